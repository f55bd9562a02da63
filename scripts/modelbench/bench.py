"""bench: each C++ server against the database's own ceiling, and what a request costs it against
nginx and the real Apache+PHP. Its parts, each in blocks: the ceilings (each model's --standalone
loop with --concurrency 1 and cores: the same work without HTTP); the servers (blocking
per-request and persistent, async, async with a worker per core) under ab on /html, /json and
/hello at -c 1, 20 and 200 for a fixed time, /hello also with -k, and wrk on /html and /hello; the
cost (server CPU per request of nginx's own /hello, Apache with mod_php, blocking, blocking
prefork, async and its cluster on /hello with and without keep-alive and on /html, beside the
no-HTTP floors: docs/cost-measurement.md); the memory (async holding 1000 idle keep-alive
connections, blocking with 150 live workers). Every server is warmed up and every run measured on
a quiet machine. It writes results/bench-<UTC time>/: report.md (printed at the end), bench.csv,
runs/, raw/, and judges docs/performance.md's targets as reproduce judges a claim. Exit status 0
when every run succeeded (whatever the verdicts), 1 when one failed, 2 on bad arguments, 130 when
interrupted.
"""

import csv
import os
import subprocess

from modelbench import systems, verb
from modelbench.checkout import Checkout
from modelbench.engine import loads, machine, steps
from modelbench.engine.engine import Engine
from modelbench.engine.plan import Group, Load, Part, Run
from modelbench.engine.processes import CORES
from modelbench.engine.recorder import Recorder, utc_now
from modelbench.experiments.base import Context
from modelbench.report import statistics
from modelbench.report.results import Results, load_runs, per_request_ms
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED,
                                        Side, all_of, at_least, at_most, interval_text,
                                        needs, ratio)

CONCURRENCIES = (1, 20, 200)
ENDPOINTS = ("/html", "/json", "/hello")
WRK_PATHS = ("/html", "/hello")
# name: (system, cluster, flags, its ceiling)
SERVERS = {
    "blocking-per-request": ("blocking", False, ("--db-connection", "per-request"),
                             "ceiling-per-connect"),
    "blocking-persistent": ("blocking", False, ("--db-connection", "persistent"),
                            "ceiling-persistent"),
    "async": ("async", False, (), "ceiling-async-loop"),
    "async-cluster": ("async", True, (), "ceiling-async-loop"),
}
# ceiling: (system, flags), the standalone loop of each single-worker server's model and mode.
CEILINGS = {ceiling: (system, flags) for system, cluster, flags, ceiling in SERVERS.values()
            if not cluster}
LABELS = {"blocking-per-request": "blocking, per-request", "blocking-persistent":
          "blocking, persistent", "async": "async, 1 worker", "async-cluster":
          "async, 1 worker per core", "ceiling-per-connect":
          "blocking threads, connect per iteration", "ceiling-persistent":
          "blocking threads, persistent", "ceiling-async-loop": "async loop, pool"}
ASYNC_IDLE_CONNECTIONS = 1000
BLOCKING_LIVE_WORKERS = 150
NEEDED_OPEN_FILES = 4096
# The performance targets (docs/performance.md), and the cost part's bound on the failed requests
# of a system's runs (Apache under -k closes a few connections ab reuses).
MIN_RATIO = {"blocking-persistent": 0.60, "blocking-per-request": 0.80, "async": 0.60}
MAX_SERVER_OVER_DB = 0.30
MAX_RSS_MIB = {"async": 16, "blocking-per-request": 64, "blocking-persistent": 64}
MAX_EXTRA_LATENCY_MS = 0.3
MAX_FAILED_SHARE = 0.002
PARTS = ("ceilings", "servers", "cost", "memory")
# The cost part (docs/cost-measurement.md): (key, system, cluster, flags), cases, floors.
COST_SERVERS = (("nginx", "nginx", False, ()), ("apache", "php", False, ()),
                ("blocking", "blocking", False, ()),
                ("prefork", "blocking", False, ("--lifecycle", "prefork")),
                ("async", "async", False, ()), ("cluster", "async", True, ()))
COST_CASES = {"hello": Load("ab", "/hello", 200, n=20000),
              "hello-k": Load("ab", "/hello", 100, n=50000, keepalive=True),
              "html": Load("ab", "/html", 20, n=3000)}
COST_FLOORS = {"blocking": ("blocking", 3000), "async": ("async", 3000), "apache": ("php", 1000)}
# (numerator, denominator, case, bound): two systems' CPU per request, their ratio ≤ bound.
COST_RATIOS = (("blocking", "apache", "hello", 1.0), ("blocking", "nginx", "hello", 2.0),
               ("prefork", "nginx", "hello", 1.5), ("async", "nginx", "hello", 1.0),
               ("async", "nginx", "hello-k", 1.0), ("blocking", "nginx", "hello-k", 2.0),
               ("prefork", "nginx", "hello-k", 2.0))
# /html -c 20: what each model adds over its own floor, against Apache+PHP's over its CLI loop.
COST_FLOOR_OF = {"blocking": "blocking", "prefork": "blocking", "async": "async",
                 "cluster": "async"}


def add_arguments(parser):
    parser.add_argument("--quick", action="store_true",
                        help="1 s per run, for a first look (default: 5 s per run)")
    parser.add_argument("--blocks", type=int, default=3, metavar="N",
                        help="blocks of every part (each runs every server once at each "
                        "point); the median is reported (default 3)")
    parser.add_argument("--only", metavar="LIST", default=",".join(PARTS),
                        help=f"parts to run, comma-separated: {', '.join(PARTS)} (default all)")
    verb.add_results_dir(parser, "bench")
    parser.add_argument("--max-wait", type=float, default=900, metavar="S",
                        help="wait at most S seconds for other work to leave the machine idle, "
                        "then measure anyway (default 900)")


def cell_base(name, endpoint, c, tool="ab", keepalive=False):
    suffix = "-wrk" if tool == "wrk" else "-k" if keepalive else ""
    return f"bench-{name}{endpoint.replace('/', '-')}-c{c}{suffix}"


def ceiling_base(name, k):
    return f"bench-{name}-k{k}"


def iterations_for(checkout, system, flags, k, seconds):
    """Iterations of a standalone loop that take about `seconds`, from a short unrecorded run."""
    command = [*systems.get(system).standalone(checkout, 100 * k), "--concurrency", str(k), *flags]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise verb.VerbError(f"{' '.join(command)} failed: {result.stderr.strip()[-300:]}")
    return max(200, int(loads.standalone.parse(result.stdout)["iterations_per_s"] * seconds))


def cost_base(key, case):
    return f"cost-{key}-{case}"


def make_plan(checkout, ctx, seconds, blocks, chosen):
    """The chosen parts; without a checkout (before the build that sizes the ceilings' loops)
    only what to prepare for them."""
    ceilings = []
    for name, (system, flags) in CEILINGS.items():
        for k in sorted({1, CORES}) if "ceilings" in chosen else ():
            n = iterations_for(checkout, system, flags, k, seconds) if checkout else 1
            server = ctx.server(system, key=name)
            ceilings.append(Group([Run(ceiling_base(name, k), f"{name} K={k}: {n} iterations",
                                       "bench", server, Load("standalone", n=n),
                                       flags=("--concurrency", str(k), *flags), warm=False)]))
    # (tool, endpoint, c, keep-alive) of every server's runs: ab, ab -k on /hello, wrk.
    loads = ([("ab", e, c, False) for e in ENDPOINTS for c in CONCURRENCIES] +
             [("ab", "/hello", c, True) for c in CONCURRENCIES] +
             [("wrk", e, c, False) for e in WRK_PATHS for c in CONCURRENCIES])
    servers = []
    for name, (system, cluster, flags, _) in SERVERS.items():
        server = ctx.server(system, cluster=cluster, own_flags=flags, key=name)
        servers.append(Group([Run(cell_base(name, e, c, tool, k),
                                  f"{name} {e} {tool}{' -k' if k else ''} -c {c}", "bench",
                                  server, Load(tool, e, c, seconds=seconds, keepalive=k))
                              for tool, e, c, k in loads]))
    memory = []
    for name in MAX_RSS_MIB:
        system, _, flags, _ = SERVERS[name]
        path, held = (("/hello", ASYNC_IDLE_CONNECTIONS) if system == "async" else
                      ("/html", BLOCKING_LIVE_WORKERS))
        server = ctx.server(system, own_flags=(*flags, "--keepalive-timeout", "60"),
                            key=f"{name}-memory")
        memory.append(Group([Run(f"bench-memory-{name}", f"memory: {name}", "bench", server,
                                 Load("hold", path, held), warm=False)]))
    cost = []
    for key, system, cluster, flags in COST_SERVERS:
        server = ctx.server(system, cluster=cluster, own_flags=flags, key=f"cost-{key}")
        cost.append(Group([Run(cost_base(key, case), f"cost {key} {load.text()}", "bench",
                               server, load) for case, load in COST_CASES.items()
                           if load.path in server.system.endpoints]))
    for key, (system, n) in COST_FLOORS.items():
        cost.append(Group([Run(cost_base(key, "floor"), f"cost floor {key}: {n} iterations",
                               "bench", ctx.server(system, key=f"cost-floor-{key}"),
                               Load("standalone", n=n), warm=False)]))
    parts = {"ceilings": Part(ceilings, blocks), "servers": Part(servers, blocks),
             "cost": Part(cost, blocks), "memory": Part(memory, 1)}
    return [parts[name] for name in PARTS if name in chosen]


def per_second(figures):
    """A run's requests/s, or a standalone loop's iterations/s."""
    return figures.get("requests_per_s") or figures.get("iterations_per_s")


def cpu_over(who):
    """Reads a run's server CPU over who's (db, client): the same ratio as per request."""
    return lambda figures: ratio(figures.get("server_cpu_s"), figures.get(f"{who}_cpu_s"))


def html_ceiling(server, c):
    """The ceiling of a server's /html at -c c: its model's loop with K = min(c, cores)."""
    return ceiling_base(SERVERS[server][3], min(c, CORES))


def ceiling_of(row):
    """What a server's row is measured against: for /html (ab) its model's loop, for /hello
    (ab) the async server's /hello with the same flags; None for the others."""
    if row["tool"] == "ab" and row["endpoint"] == "/html" and not row["keepalive"]:
        return html_ceiling(row["server"], row["concurrency"])
    if row["tool"] == "ab" and row["endpoint"] == "/hello":
        return cell_base("async", "/hello", row["concurrency"], keepalive=bool(row["keepalive"]))
    return None


def summaries(results):
    """One row per measured base of bench's own parts: its medians and their ratios."""
    rows = {}
    for base in results.by_base:
        if not results.ok(base) or not base.startswith("bench-"):
            continue
        record = results.record(base)
        rows[base] = {"base": base, "server": record.get("server", "").removesuffix("-memory"),
                      "tool": record.get("tool"), "endpoint": record.get("endpoint"),
                      "concurrency": record.get("concurrency"),
                      "keepalive": int(base.endswith("-k") or record.get("tool") == "wrk"),
                      "runs": len(results.blocks(base)),
                      "requests_per_s": results.figure(base, per_second),
                      **{key: results.figure(base, key) for key in (
                          "mean_ms", "p50_ms", "p90_ms", "p99_ms", "other_cpu_pct", "rss_mib",
                          "threads", "fds")},
                      **{f"{who}_cpu_ms_per_req": results.per_request_ms(base, who)
                         for who in ("server", "db", "client")}}
    for row in rows.values():
        ceiling = rows.get(ceiling_of(row), {}).get("requests_per_s")
        server_ms = row["server_cpu_ms_per_req"]
        row.update(ceiling_requests_per_s=ceiling,
                   ratio_to_ceiling=ratio(row["requests_per_s"], ceiling),
                   server_cpu_over_db=None if row["endpoint"] == "/hello" else
                   ratio(server_ms, row["db_cpu_ms_per_req"]),
                   server_cpu_over_client=ratio(server_ms, row["client_cpu_ms_per_req"]))
    return rows


# How a target's verdict (report.verdicts) reads.
SAID = {REPRODUCED: "holds", NOT_REPRODUCED: "**does not hold**", INCONCLUSIVE: "inconclusive",
        NOT_MEASURED: "not measured"}


def side(interval, bases, criterion, bound, digits=2, prefix="×", suffix=""):
    """A target's Side: the interval its evidence, criterion(interval, bound) its verdict."""
    if interval is None:
        return needs(*bases)
    return Side(interval.text(digits, prefix, suffix), criterion(interval, bound),
                statistic=interval, bases=tuple(bases))


def targets(results):
    """(target, Side) of each performance target."""
    for server, minimum in MIN_RATIO.items():
        bases = (cell_base(server, "/html", 20), html_ceiling(server, 20))
        yield (f"/html ab -c 20: {LABELS[server]} ≥ ×{minimum:.2f} of "
               f"{LABELS[SERVERS[server][3]]} K={min(20, CORES)}",
               side(results.ratio(bases, per_second), bases, at_least, minimum))
    for server, (_, _, _, ceiling) in SERVERS.items():
        bases = [cell_base(server, "/html", c) for c in CONCURRENCIES]
        sides = [side(results.interval(b, cpu_over("db")), [b], at_most, MAX_SERVER_OVER_DB)
                 for b in bases]
        floor = results.interval(ceiling_base(ceiling, 1), cpu_over("db"))
        yield (f"server CPU per /html request ≤ ×{MAX_SERVER_OVER_DB:.2f} mariadbd's at every "
               f"-c: {LABELS[server]}", Side(
                   "; ".join(f"-c {c}: {s.evidence}" for c, s in zip(CONCURRENCIES, sides))
                   + f"; its standalone loop alone, K=1: {interval_text(floor, prefix='×')}",
                   all_of(*(s.verdict for s in sides)), bases=tuple(bases)))
    for server in SERVERS:
        base = cell_base(server, "/hello", 200, keepalive=True)
        yield (f"/hello ab -k -c 200: {LABELS[server]}'s CPU ≤ ×1 ab's",
               side(results.interval(base, cpu_over("client")), [base], at_most, 1))
    for server, limit in MAX_RSS_MIB.items():
        base = f"bench-memory-{server}"
        held = "1000 idle keep-alive connections" if server == "async" else "150 live workers"
        yield (f"RSS of {LABELS[server]} with {held} ≤ {limit} MiB",
               side(statistics.every(results.values(base, "rss_mib")), [base], at_most, limit,
                    1, "", " MiB"))
    for server, (_, _, _, ceiling) in SERVERS.items():
        bases = (cell_base(server, "/html", 1), ceiling_base(ceiling, 1))
        # ms per request less ms per iteration: at -c 1, ab's mean time per request.
        extra = results.paired(bases, per_second, lambda served, loop: 1000 / served - 1000 / loop)
        yield (f"/html ab -c 1: {LABELS[server]} within {MAX_EXTRA_LATENCY_MS} ms of the "
               "standalone iteration",
               side(extra, bases, at_most, MAX_EXTRA_LATENCY_MS, 3, "", " ms"))
    for numerator, denominator, case, bound in COST_RATIOS:
        bases = (cost_base(numerator, case), cost_base(denominator, case))
        yield (f"/hello {'keep-alive -c 100' if case == 'hello-k' else 'new connection'}: "
               f"{numerator} ≤ ×{bound:g} {denominator}",
               side(results.per_request_ratio(bases), bases, at_most, bound))
    for key, floor in COST_FLOOR_OF.items():
        bases = (cost_base(key, "html"), cost_base(floor, "floor"), cost_base("apache", "html"),
                 cost_base("apache", "floor"))
        extra = results.paired(bases, per_request_ms("server"),
                               lambda m, mf, a, af: 1000 * ((m - mf) - (a - af)))
        yield (f"/html -c 20: {key} adds over its floor no more than Apache+PHP over its CLI loop",
               side(extra, bases, at_most, 0, 0, "", " µs"))
    for key, *_ in COST_SERVERS:
        bases = [cost_base(key, case) for case in COST_CASES]
        failed = results.rate(bases, lambda f: (f.get("failed") or 0) + (f.get("non2xx") or 0))
        yield (f"cost runs of {key}: failed or non-2xx requests ≤ {MAX_FAILED_SHARE:.1%}",
               side(failed, bases, at_most, MAX_FAILED_SHARE))


def cost_section(results):
    """The cost tables: µs per request, medians over the blocks (their targets: targets())."""
    def us(key, case):
        return fmt(results.per_request_ms(cost_base(key, case), "server"), 1, scale=1000)

    table_rows = [[key] + [us(key, case) for case in COST_CASES] for key, *_ in COST_SERVERS
                  if any(results.has(cost_base(key, c)) for c in COST_CASES)]
    if not table_rows:
        return []
    floors = [[f"floor: {key}", us(key, "floor")] for key in COST_FLOORS
              if results.has(cost_base(key, "floor"))]
    return ["## Server CPU per request against nginx and Apache+PHP", "",
            "Server CPU (its process tree, /proc) per request in µs, medians over the blocks: "
            "`ab -c 200` on /hello (a new connection each), `ab -k -c 100` (keep-alive, below the "
            "blocking server's 150 threads), `ab -c 20` on /html; the floors are the same /html "
            "work without HTTP, per iteration (docs/cost-measurement.md).", "",
            table(["system"] + list(COST_CASES), table_rows), "",
            table(["floor", "µs per iteration"], floors), ""]


def render(rows, settings, failures, results):
    ceilings = [[LABELS[r["server"]], r["base"].rsplit("-k", 1)[1], fmt(r["requests_per_s"]),
                 fmt(r["server_cpu_ms_per_req"], 3), fmt(r["db_cpu_ms_per_req"], 3),
                 fmt(r.get("server_cpu_over_db"), 2), fmt(r["other_cpu_pct"], 0)]
                for r in rows.values() if r["tool"] == "standalone"]
    order = list(SERVERS)
    loads = sorted((r for r in rows.values() if r["tool"] in ("ab", "wrk")),
                   key=lambda r: (r["tool"], ENDPOINTS.index(r["endpoint"]),
                                  order.index(r["server"]), r["keepalive"], r["concurrency"]))
    servers = [[LABELS[r["server"]], r["endpoint"],
                f"{r['tool']} {'-k ' if r['keepalive'] and r['tool'] == 'ab' else ''}"
                f"-c {r['concurrency']}", fmt(r["requests_per_s"]),
                fmt(r.get("ceiling_requests_per_s")), fmt(r.get("ratio_to_ceiling"), 2),
                fmt(r["p50_ms"], 2), fmt(r["p99_ms"], 2), fmt(r["server_cpu_ms_per_req"], 4),
                fmt(r["db_cpu_ms_per_req"], 4), fmt(r["client_cpu_ms_per_req"], 4),
                fmt(r.get("server_cpu_over_db"), 2), fmt(r.get("server_cpu_over_client"), 2),
                fmt(r["other_cpu_pct"], 0)] for r in loads]
    memory = [[LABELS[r["server"]], f"{r['concurrency']} connections after GET {r['endpoint']}",
               fmt(r["rss_mib"]), fmt(r["threads"], 0), fmt(r["fds"], 0)]
              for r in rows.values() if r["tool"] == "hold"]
    lines = [
        "# Benchmark: each server against the database's own ceiling, nginx and Apache+PHP", "",
        f"`{settings['command']}` — {settings['started']} UTC, {CORES} cores, "
        f"{settings['seconds']:g} s per run, median of {settings['blocks']} blocks, "
        f"{settings['run_s'] / 60:.1f} min of runs; every server warmed up before each run, "
        "each run on a quiet machine (measured again when other work polluted it). *other %*: "
        "CPU of other processes during the runs, in % of the machine.", ""]
    if ceilings:
        lines += ["## Ceilings: the /html workload without HTTP (`--standalone N --concurrency K`)",
                  "", table(["loop", "K", "iterations/s", "own CPU ms/iter",
                             "mariadbd CPU ms/iter", "own ÷ mariadbd", "other %"], ceilings), ""]
    if servers:
        lines += [
            "## Servers under ab and wrk, and their ratios", "",
            "Ceiling: /html over the standalone loop of the same model and connection mode "
            "with K = min(c, cores); /hello over the async server's /hello with the same ab "
            "flags. CPU in ms per request; *server ÷ db* is server CPU over mariadbd's per "
            "request, *server ÷ client* over the load tool's.", "",
            table(["server", "endpoint", "load", "req/s", "ceiling req/s", "÷ ceiling",
                   "p50 ms", "p99 ms", "server CPU", "mariadbd CPU", "client CPU",
                   "server ÷ db", "server ÷ client", "other %"], servers), ""]
    lines += cost_section(results)
    if memory:
        lines += ["## Memory", "", table(["server", "held", "RSS MiB", "threads",
                                          "descriptors"], memory), ""]
    judged = [[text, s.evidence + (f"; {s.speed_note}" if s.speed_note else ""), SAID[s.verdict]]
              for text, s in targets(results) if any(results.has(b) for b in s.bases)]
    if judged:
        lines += [
            "## Targets (docs/performance.md, docs/cost-measurement.md)", "",
            "Each judged as reproduce judges a claim (report/verdicts.py), on its statistic's 95 % "
            "interval over the blocks: a ratio or difference taken within each block (a ceiling's "
            "block b is round b of the ceilings' part), a figure taken in each run, the "
            "failed requests of a system's runs as a rate (Clopper–Pearson), the RSS in every "
            "run. It **holds** when the whole interval meets the target, **does not hold** when "
            "none of it does, and is **inconclusive** when it straddles the bound (more "
            "`--blocks` decide).", "", table(["target", "measured", "verdict"], judged), ""]
    if failures:
        lines += [f"## Failed runs ({failures}): see steps.tsv", ""]
    return "\n".join(lines)


def write_report(directory, settings):
    results = Results(directory, load_runs(directory))
    rows = summaries(results)
    columns = ["base", "server", "tool", "endpoint", "concurrency", "keepalive", "runs",
               "requests_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "server_cpu_ms_per_req",
               "db_cpu_ms_per_req", "client_cpu_ms_per_req", "ceiling_requests_per_s",
               "ratio_to_ceiling", "server_cpu_over_db", "server_cpu_over_client",
               "other_cpu_pct", "rss_mib", "threads", "fds"]
    with open(os.path.join(directory, "bench.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}
                         for row in rows.values())
    failures = len(steps.read(directory))
    report = render(rows, settings, failures, results)
    with open(os.path.join(directory, "report.md"), "w") as f:
        f.write(report)
    return report, failures


def run(args, parser):
    if not 1 <= args.blocks <= 99:
        parser.error("--blocks must be from 1 to 99")
    chosen = [p for p in args.only.split(",") if p]
    if not chosen or set(chosen) - set(PARTS):
        parser.error(f"--only: one or more of {', '.join(PARTS)}")
    checkout = Checkout.from_environment()
    directory = verb.results_dir(checkout, "bench", args.results_dir)
    seconds = 1.0 if args.quick else 5.0
    ctx = Context("default", systems.names())
    database, _ = verb.ready(checkout, make_plan(None, ctx, seconds, args.blocks, chosen),
                             directory, NEEDED_OPEN_FILES)
    parts = make_plan(checkout, ctx, seconds, args.blocks, chosen)
    gate = machine.QuietGate(print)
    verb.wait_for_quiet(gate, args.max_wait)
    engine = Engine(directory, checkout, Recorder(directory, checkout, database.pid()), gate)
    started = utc_now()
    engine.run(parts)
    settings = {"command": verb.command("bench"), "blocks": args.blocks, "seconds": seconds,
                "started": started.strftime("%Y-%m-%d %H:%M"),
                "run_s": (utc_now() - started).total_seconds()}
    report, failures = write_report(directory, settings)
    print(report)
    print(f"== results in {directory}: report.md, bench.csv, runs/, raw/")
    return 1 if failures else 0
