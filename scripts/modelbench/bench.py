"""bench: each C++ server against the database's own ceiling, and what a request costs it against
nginx and the real Apache+PHP. Its parts, each in blocks: the ceilings (each model's
--standalone loop with --concurrency K for K = 1 and K = cores: the same work without HTTP);
the servers (blocking per-request and persistent, async, async with a worker per core) under ab
on /html, /json and /hello at -c 1, 20 and 200 for a fixed time, /hello also with -k, and wrk
beside ab on /html and /hello; the cost (server CPU per request of nginx's own /hello, Apache
with mod_php, blocking, blocking prefork, async and its cluster on /hello with and without
keep-alive and on /html, beside the no-HTTP floors: docs/cost-measurement.md); the memory
(async holding 1000 idle keep-alive connections, blocking with 150 live workers). It runs
through the engine, so every server is warmed up and every run measured on a quiet machine; it
writes bench/<timestamp>/: report.md (printed at the end), bench.csv, runs/, raw/. The targets
are docs/performance.md's. Exit status 0 when every run succeeded (whatever the figures), 1
when one failed, 2 on bad arguments.
"""

import csv
import os
import subprocess
import sys

from modelbench import prepare, systems
from modelbench.checkout import Checkout
from modelbench.engine import loads, machine, processes
from modelbench.engine.engine import Engine
from modelbench.engine.plan import Group, Load, Part, Run
from modelbench.engine.processes import CORES
from modelbench.engine.recorder import Recorder, utc_now
from modelbench.experiments.base import Context
from modelbench.report.results import Results, load_runs
from modelbench.report.tables import fmt, table
from modelbench.report import statistics

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
# The performance targets (docs/performance.md).
MIN_RATIO = {"blocking-persistent": 0.60, "blocking-per-request": 0.80, "async": 0.60}
MAX_SERVER_OVER_DB = 0.30
MAX_RSS_MIB = {"async": 16, "blocking-per-request": 64, "blocking-persistent": 64}
MAX_EXTRA_LATENCY_MS = 0.3
PARTS = ("ceilings", "servers", "cost", "memory")
# The cost part (docs/cost-measurement.md): (key, system, flags) measured, the cases, the floors.
COST_SERVERS = (("nginx", "nginx", False, ()), ("apache", "php", False, ()),
                ("blocking", "blocking", False, ()),
                ("prefork", "blocking", False, ("--lifecycle", "prefork")),
                ("async", "async", False, ()), ("cluster", "async", True, ()))
COST_CASES = {"hello": Load("ab", "/hello", 200, n=20000),
              "hello-k": Load("ab", "/hello", 100, n=50000, keepalive=True),
              "html": Load("ab", "/html", 20, n=3000)}
COST_FLOORS = {"blocking": ("blocking", 3000), "async": ("async", 3000), "apache": ("php", 1000)}
# (target, numerator, denominator, case, bound): the ratio of two systems' CPU per request in a
# block, its median over the blocks held to the bound.
COST_RATIOS = (("/hello new connection: blocking ≤ Apache+mod_php", "blocking", "apache",
                "hello", 1.0),
               ("/hello new connection: blocking ≤ 2 × nginx", "blocking", "nginx", "hello", 2.0),
               ("/hello new connection: prefork ≤ 1.5 × nginx", "prefork", "nginx", "hello", 1.5),
               ("/hello new connection: async ≤ nginx", "async", "nginx", "hello", 1.0),
               ("/hello keep-alive -c 100: async ≤ nginx", "async", "nginx", "hello-k", 1.0),
               ("/hello keep-alive -c 100: blocking ≤ 2 × nginx", "blocking", "nginx", "hello-k",
                2.0),
               ("/hello keep-alive -c 100: prefork ≤ 2 × nginx", "prefork", "nginx", "hello-k",
                2.0))
# /html -c 20: what each model adds over its own floor, against what Apache+PHP adds over its
# CLI loop.
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
    parser.add_argument("--results-dir", metavar="DIR",
                        help="write there instead of bench/<timestamp>/")
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
        raise prepare.PrepareError(f"{' '.join(command)} failed: {result.stderr.strip()[-300:]}")
    return max(200, int(loads.standalone.parse(result.stdout)["iterations_per_s"] * seconds))


def cost_base(key, case):
    return f"cost-{key}-{case}"


def make_plan(checkout, ctx, seconds, blocks, chosen=PARTS):
    ceilings = []
    for name, (system, flags) in CEILINGS.items():
        for k in sorted({1, CORES}) if "ceilings" in chosen else ():
            n = iterations_for(checkout, system, flags, k, seconds)
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
    memory = [Group([Run(f"bench-memory-{name}", f"memory: {name}", "bench",
                         ctx.server(system, own_flags=(*flags, "--keepalive-timeout", "60"),
                                    key=f"{name}-memory"), Load("hold", path, held), warm=False)])
              for name, system, flags, path, held in (
                  ("async", "async", (), "/hello", ASYNC_IDLE_CONNECTIONS),
                  ("blocking-per-request", "blocking", SERVERS["blocking-per-request"][2],
                   "/html", BLOCKING_LIVE_WORKERS),
                  ("blocking-persistent", "blocking", SERVERS["blocking-persistent"][2],
                   "/html", BLOCKING_LIVE_WORKERS))]
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
    return [parts[name] for name in chosen]


# ---- the report ------------------------------------------------------------------------------

def summaries(results):
    """One row per measured base: its medians and the ratios the targets are about."""
    rows = {}
    for base in results.by_base:
        if not results.ok(base) or not base.startswith("bench-"):
            continue
        record = results.record(base)
        row = {"base": base, "server": record.get("server", "").removesuffix("-memory"),
               "tool": record.get("tool"), "endpoint": record.get("endpoint"),
               "concurrency": record.get("concurrency"),
               "keepalive": int(base.endswith("-k") or record.get("tool") == "wrk"),
               "runs": len(results.blocks(base))}
        row.update({key: results.figure(base, key) for key in (
            "requests_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "other_cpu_pct",
            "iterations_per_s", "rss_mib", "threads", "fds")})
        row.update({f"{who}_cpu_ms_per_req": results.per_request_ms(base, who)
                    for who in ("server", "db", "client")})
        rows[base] = row
    for base, row in rows.items():
        if row["tool"] == "standalone":
            row.update(requests_per_s=row["iterations_per_s"], mean_ms=None)
            if row["server_cpu_ms_per_req"] and row["db_cpu_ms_per_req"]:
                row["server_cpu_over_db"] = row["server_cpu_ms_per_req"] / row["db_cpu_ms_per_req"]
            continue
        ceiling = None
        if row["tool"] == "ab" and row["endpoint"] == "/html" and not row["keepalive"]:
            ceiling = rows.get(ceiling_base(SERVERS[row["server"]][3], min(row["concurrency"],
                                                                            CORES)))
        elif row["tool"] == "ab" and row["endpoint"] == "/hello":
            ceiling = rows.get(cell_base("async", "/hello", row["concurrency"],
                                         keepalive=bool(row["keepalive"])))
        if ceiling and ceiling["requests_per_s"] and row["requests_per_s"]:
            row["ceiling_requests_per_s"] = ceiling["requests_per_s"]
            row["ratio_to_ceiling"] = row["requests_per_s"] / ceiling["requests_per_s"]
        server_ms = row["server_cpu_ms_per_req"]
        if server_ms is not None and row["db_cpu_ms_per_req"] and row["endpoint"] != "/hello":
            row["server_cpu_over_db"] = server_ms / row["db_cpu_ms_per_req"]
        if server_ms is not None and row["client_cpu_ms_per_req"]:
            row["server_cpu_over_client"] = server_ms / row["client_cpu_ms_per_req"]
    return rows


def verdict(measured, holds):
    """'held' when holds(measured), 'not measured' when measured is None."""
    return "not measured" if measured is None else "held" if holds(measured) else "**missed**"


def targets(rows):
    """(target, measured, verdict) for each performance target."""
    out = []
    for server, minimum in MIN_RATIO.items():
        row = rows.get(cell_base(server, "/html", 20), {})
        ratio = row.get("ratio_to_ceiling")
        out.append((f"/html ab -c 20: {LABELS[server]} ≥ {minimum:.0%} of "
                    f"{LABELS[SERVERS[server][3]]} K={min(20, CORES)}",
                    "–" if ratio is None else f"{row['requests_per_s']:,.0f} / "
                    f"{row['ceiling_requests_per_s']:,.0f} req/s = {ratio:.0%}",
                    verdict(ratio, lambda v: v >= minimum)))
    for server, (_, _, _, ceiling) in SERVERS.items():
        worst, at = max(((rows.get(cell_base(server, "/html", c), {}).get("server_cpu_over_db"),
                          c) for c in CONCURRENCIES), key=lambda v: -1 if v[0] is None else v[0])
        floor = rows.get(ceiling_base(ceiling, 1), {}).get("server_cpu_over_db")
        measured = "–" if worst is None else f"at most {worst:.0%} (at -c {at})"
        if floor is not None:
            measured += f"; its standalone loop alone, K=1: {floor:.0%}"
        out.append((f"server CPU per /html request ≤ {MAX_SERVER_OVER_DB:.0%} of mariadbd's: "
                    f"{LABELS[server]}", measured,
                    verdict(worst, lambda v: v <= MAX_SERVER_OVER_DB)))
    for server in SERVERS:
        row = rows.get(cell_base(server, "/hello", 200, keepalive=True), {})
        value = row.get("server_cpu_over_client")
        out.append((f"/hello ab -k -c 200: {LABELS[server]} uses less CPU than ab",
                    "–" if value is None else f"server {row['server_cpu_ms_per_req'] * 1000:.2f} "
                    f"µs, ab {row['client_cpu_ms_per_req'] * 1000:.2f} µs per request "
                    f"({value:.2f}×)", verdict(value, lambda v: v < 1)))
    for server, limit in MAX_RSS_MIB.items():
        rss = rows.get(f"bench-memory-{server}", {}).get("rss_mib")
        held = "1000 idle keep-alive connections" if server == "async" else "150 live workers"
        out.append((f"RSS of {LABELS[server]} with {held} ≤ {limit} MiB",
                    "–" if rss is None else f"{rss:.1f} MiB", verdict(rss, lambda v: v <= limit)))
    for server, (_, _, _, ceiling) in SERVERS.items():
        row = rows.get(cell_base(server, "/html", 1), {})
        floor = rows.get(ceiling_base(ceiling, 1), {})
        floor_ms = 1000 / floor["requests_per_s"] if floor.get("requests_per_s") else None
        extra = None if row.get("mean_ms") is None or floor_ms is None else \
            row["mean_ms"] - floor_ms
        out.append((f"/html ab -c 1: {LABELS[server]} within {MAX_EXTRA_LATENCY_MS} ms of the "
                    "standalone iteration", "–" if extra is None else
                    f"{row['mean_ms']:.3f} ms vs {floor_ms:.3f} ms (+{extra:.3f} ms)",
                    verdict(extra, lambda v: v <= MAX_EXTRA_LATENCY_MS)))
    return out


# A cost run counts when at most this share of its requests failed (Apache under -k closes a few
# connections ab reuses).
MAX_FAILED_SHARE = 0.002


def cost_us(results, key, case):
    """{block: server CPU per request in µs} of a cost run's valid blocks."""
    out = {}
    for block, run in results.blocks(cost_base(key, case)).items():
        f = run["figures"]
        units = f.get("complete") or f.get("iterations")
        failed = f.get("failed", 0) + f.get("non2xx", 0)
        if units and f.get("server_cpu_s") is not None and failed <= MAX_FAILED_SHARE * units:
            out[block] = 1e6 * f["server_cpu_s"] / units
    return out


def cost_section(results):
    """The cost tables (µs per request, medians over the blocks) and their targets."""
    def us(key, case):
        return fmt(statistics.median(cost_us(results, key, case).values()), 1)

    def per_block(combine, *series):
        values = [cost_us(results, key, case) for key, case in series]
        blocks = set.intersection(*(set(v) for v in values))
        return statistics.of_blocks([combine(*(v[b] for v in values)) for b in sorted(blocks)])

    table_rows = [[key] + [us(key, case) for case in COST_CASES] for key, *_ in COST_SERVERS
                  if any(results.has(cost_base(key, c)) for c in COST_CASES)]
    if not table_rows:
        return []
    floors = [[f"floor: {key}", us(key, "floor")] for key in COST_FLOORS
              if results.has(cost_base(key, "floor"))]
    target_rows = []
    for name, numerator, denominator, case, bound in COST_RATIOS:
        ratio = per_block(lambda a, b: a / b, (numerator, case), (denominator, case))
        target_rows.append([name, "–" if ratio is None else ratio.text(2, prefix="×"),
                            verdict(ratio, lambda v: v.estimate <= bound)])
    for key, floor in COST_FLOOR_OF.items():
        # What the model adds over its floor, less what Apache+PHP adds over its CLI loop.
        extra = per_block(lambda m, mf, a, af: (m - mf) - (a - af), (key, "html"),
                          (floor, "floor"), ("apache", "html"), ("apache", "floor"))
        target_rows.append([f"/html -c 20: {key} adds over its floor no more than Apache+PHP "
                            "over its CLI loop",
                            "–" if extra is None else extra.text(0, suffix=" µs"),
                            verdict(extra, lambda v: v.estimate <= 0)])
    return ["## Server CPU per request against nginx and Apache+PHP", "",
            "Server CPU (its process tree, /proc) per request in µs, medians over the blocks "
            "(a run counts when at most 0.2 % of its requests failed): `ab -c 200` on /hello (a "
            "new connection each), `ab -k -c 100` (keep-alive, below the blocking server's 150 "
            "threads), `ab -c 20` on /html; the floors are the same /html work without HTTP, "
            "per iteration (docs/cost-measurement.md).", "",
            table(["system"] + list(COST_CASES), table_rows), "",
            table(["floor", "µs per iteration"], floors), "",
            "Targets: a value taken within each block, with its 95 % interval over the blocks; "
            "held on its estimate.", "",
            table(["target", "measured", "verdict"], target_rows), ""]


def render(rows, settings, failures, results):
    def ratio(value):
        return "–" if value is None else f"{value:.2f}"

    ceilings = [[LABELS[r["server"]], r["base"].rsplit("-k", 1)[1], fmt(r["requests_per_s"]),
                 fmt(r["server_cpu_ms_per_req"], 3), fmt(r["db_cpu_ms_per_req"], 3),
                 ratio(r.get("server_cpu_over_db")), fmt(r["other_cpu_pct"], 0)]
                for r in rows.values() if r["tool"] == "standalone"]
    order = list(SERVERS)
    loads = sorted((r for r in rows.values() if r["tool"] in ("ab", "wrk")),
                   key=lambda r: (r["tool"], ENDPOINTS.index(r["endpoint"]),
                                  order.index(r["server"]), r["keepalive"], r["concurrency"]))
    servers = [[LABELS[r["server"]], r["endpoint"],
                f"{r['tool']} {'-k ' if r['keepalive'] and r['tool'] == 'ab' else ''}"
                f"-c {r['concurrency']}", fmt(r["requests_per_s"]),
                fmt(r.get("ceiling_requests_per_s")), ratio(r.get("ratio_to_ceiling")),
                fmt(r["p50_ms"], 2), fmt(r["p99_ms"], 2), fmt(r["server_cpu_ms_per_req"], 4),
                fmt(r["db_cpu_ms_per_req"], 4), fmt(r["client_cpu_ms_per_req"], 4),
                ratio(r.get("server_cpu_over_db")), ratio(r.get("server_cpu_over_client")),
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
    if rows:
        lines += ["## Targets (docs/performance.md)", "",
                  table(["target", "measured", "verdict"], [list(t) for t in targets(rows)]), ""]
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
    failures = sum(1 for run in results.runs.values() if run.get("status") != "ok")
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
    directory = os.path.abspath(args.results_dir or os.path.join(
        checkout.root, "bench", f"{utc_now():%Y%m%dT%H%M%SZ}"))
    os.makedirs(directory, exist_ok=True)
    print(f"== bench: results in {directory}", flush=True)
    processes.sigterm_as_ctrl_c()
    seconds = 1.0 if args.quick else 5.0
    try:
        needs = ("build", "db") + (("php", "nginx") if "cost" in chosen else ())
        database, _ = prepare.ready(checkout, needs, log_dir=directory)
        _, _, enough = machine.raise_open_files(NEEDED_OPEN_FILES)
        if not enough:
            raise prepare.PrepareError(f"the open-file limit is below the {NEEDED_OPEN_FILES} "
                                       "these runs need")
        parts = make_plan(checkout, Context("default", ["blocking", "async", "php", "nginx"]),
                          seconds, args.blocks, [p for p in PARTS if p in chosen])
        gate = machine.QuietGate(print)
        busy, waited = gate.wait_for_quiet(args.max_wait)
        print(f"== measuring: other work kept {busy:.0f} % of the {CORES} cores busy (waited "
              f"{waited:.0f} s)")
        engine = Engine(directory, checkout, Recorder(directory, checkout, database.pid()), gate)
        started = utc_now()
        try:
            engine.run(parts)
        finally:
            engine.stop_all()
    except prepare.PrepareError as error:
        print(f"bench.sh: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench.sh: interrupted", file=sys.stderr)
        return 130
    settings = {"command": "scripts/bench.sh " + " ".join(sys.argv[2:]), "blocks": args.blocks,
                "started": started.strftime("%Y-%m-%d %H:%M"), "seconds": seconds,
                "run_s": (utc_now() - started).total_seconds()}
    report, failures = write_report(directory, settings)
    print(report)
    print(f"== results in {directory}: report.md, bench.csv, runs/, raw/")
    return 1 if failures else 0
