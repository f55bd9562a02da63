"""bench.sh's tables: from the runs of one bench directory (runs.csv, settings.json), the
medians over the repetitions and the ratios to the ceilings, in bench.csv and report.md (also
printed), with every performance target checked (docs/performance.md).

  python3 -m modelbench.bench.report DIR     rebuild DIR/bench.csv and DIR/report.md

Ratios: a server's requests/s over the matching ceiling (the standalone loop of its own model
and connection mode, with K = min(c, cores)); for /hello, over the async server's /hello with the
same ab flags (the HTTP ceiling). CPU: server CPU per request over mariadbd's (/html, /json) and
over ab's (/hello).
"""

import csv
import json
import os
import sys

from modelbench.repeats import median
from modelbench.tables import fmt

CEILING_OF = {
    "blocking-per-request": "ceiling-per-connect",
    "blocking-persistent": "ceiling-persistent",
    "async": "ceiling-async-loop",
    "async-cluster": "ceiling-async-loop",
}
LABELS = {
    "blocking-per-request": "blocking, per-request",
    "blocking-persistent": "blocking, persistent",
    "async": "async, 1 worker",
    "async-cluster": "async, 1 worker per core",
    "ceiling-per-connect": "blocking threads, connect per iteration",
    "ceiling-persistent": "blocking threads, persistent",
    "ceiling-async-loop": "async loop, pool",
}
HTTP_CEILING = "async"
SUMMARY_COLUMNS = [
    "kind", "server", "endpoint", "concurrency", "keepalive", "runs", "requests_per_s",
    "mean_ms", "p50_ms", "p90_ms", "p99_ms", "server_cpu_ms_per_req", "db_cpu_ms_per_req",
    "ab_cpu_ms_per_req", "ceiling", "ceiling_requests_per_s", "ratio_to_ceiling",
    "server_cpu_over_db", "server_cpu_over_ab", "other_cpu_pct", "rss_mib", "threads",
    "connections",
]
# The performance targets (docs/performance.md).
MIN_RATIO = {"blocking-persistent": 0.60, "blocking-per-request": 0.80, "async": 0.60}
MAX_SERVER_OVER_DB = 0.30
MAX_ASYNC_RSS_MIB = 16
MAX_BLOCKING_RSS_MIB = 64
MAX_EXTRA_LATENCY_MS = 0.3


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def per_request_ms(row, key):
    cpu, requests = number(row.get(key)), number(row.get("requests"))
    return 1000 * cpu / requests if cpu is not None and requests else None


def summarise(rows, cores):
    """One summary per (kind, server, endpoint, concurrency, keep-alive): medians over the
    successful repetitions, then the ratios."""
    groups = {}
    for row in rows:
        if row.get("status", "ok") != "ok":
            continue
        key = (row["kind"], row["server"], row["endpoint"], int(row["concurrency"]),
               int(row["keepalive"]))
        groups.setdefault(key, []).append(row)
    summaries = {}
    for key, members in groups.items():
        kind, server, endpoint, c, keepalive = key
        s = {"kind": kind, "server": server, "endpoint": endpoint, "concurrency": c,
             "keepalive": keepalive, "runs": len(members)}
        for column in ("requests_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "other_cpu_pct",
                       "rss_mib", "threads", "connections"):
            s[column] = median(number(m.get(column)) for m in members)
        for column, source in (("server_cpu_ms_per_req", "server_cpu_s"),
                               ("db_cpu_ms_per_req", "db_cpu_s"),
                               ("ab_cpu_ms_per_req", "client_cpu_s")):
            s[column] = median(per_request_ms(m, source) for m in members)
        summaries[key] = s
    for (kind, server, endpoint, c, keepalive), s in summaries.items():
        if kind == "ceiling" and s["server_cpu_ms_per_req"] is not None and s["db_cpu_ms_per_req"]:
            # What the client library and the rendering cost next to mariadbd with no HTTP at all.
            s["server_cpu_over_db"] = s["server_cpu_ms_per_req"] / s["db_cpu_ms_per_req"]
        if kind != "ab":
            continue
        if endpoint == "/html":
            k = min(c, cores)
            ceiling = summaries.get(("ceiling", CEILING_OF[server], "/html", k,
                                     int(server != "blocking-per-request")))
            s["ceiling"] = f"{CEILING_OF[server]} K={k}"
        elif endpoint == "/hello":
            ceiling = summaries.get(("ab", HTTP_CEILING, "/hello", c, keepalive))
            s["ceiling"] = f"{HTTP_CEILING} /hello"
        else:
            ceiling = None
        if ceiling and ceiling["requests_per_s"] and s["requests_per_s"] is not None:
            s["ceiling_requests_per_s"] = ceiling["requests_per_s"]
            s["ratio_to_ceiling"] = s["requests_per_s"] / ceiling["requests_per_s"]
        server_ms = s["server_cpu_ms_per_req"]
        if server_ms is not None and s["db_cpu_ms_per_req"] and endpoint != "/hello":
            s["server_cpu_over_db"] = server_ms / s["db_cpu_ms_per_req"]
        if server_ms is not None and s["ab_cpu_ms_per_req"]:
            s["server_cpu_over_ab"] = server_ms / s["ab_cpu_ms_per_req"]
    return summaries


def ab_flags(s):
    return f"{'-k ' if s['keepalive'] else ''}-c {s['concurrency']}"


def cell(value, digits=1, suffix=""):
    return fmt(value, digits, suffix=suffix)


def ratio_cell(value):
    return "–" if value is None else f"{value:.2f}"


def targets(summaries, cores):
    """(target, measured, verdict) for each performance target."""
    out = []

    def get(*key):
        return summaries.get(key, {})

    k = min(20, cores)
    for server, minimum in MIN_RATIO.items():
        s = get("ab", server, "/html", 20, 0)
        ratio = s.get("ratio_to_ceiling")
        out.append((f"/html ab -c 20: {LABELS[server]} ≥ {minimum:.0%} of "
                    f"{LABELS[CEILING_OF[server]]} K={k}",
                    "–" if ratio is None else
                    f"{s['requests_per_s']:,.0f} / {s['ceiling_requests_per_s']:,.0f} req/s "
                    f"= {ratio:.0%}",
                    verdict(ratio is not None and ratio >= minimum, ratio)))
    for server in CEILING_OF:
        worst = None
        for c in (1, 20, 200):
            value = get("ab", server, "/html", c, 0).get("server_cpu_over_db")
            if value is not None and (worst is None or value > worst[0]):
                worst = (value, c)
        floor = get("ceiling", CEILING_OF[server], "/html", 1,
                    int(server != "blocking-per-request")).get("server_cpu_over_db")
        measured = "–" if worst is None else f"at most {worst[0]:.0%} (at -c {worst[1]})"
        if floor is not None:
            measured += f"; its standalone loop alone, K=1: {floor:.0%}"
        out.append((f"server CPU per /html request ≤ {MAX_SERVER_OVER_DB:.0%} of mariadbd's: "
                    f"{LABELS[server]}", measured,
                    verdict(worst is not None and worst[0] <= MAX_SERVER_OVER_DB, worst)))
    for server in CEILING_OF:
        s = get("ab", server, "/hello", 200, 1)
        value = s.get("server_cpu_over_ab")
        out.append((f"/hello ab -k -c 200: {LABELS[server]} uses less CPU than ab",
                    "–" if value is None else
                    f"server {s['server_cpu_ms_per_req'] * 1000:.2f} µs, ab "
                    f"{s['ab_cpu_ms_per_req'] * 1000:.2f} µs per request ({value:.2f}×)",
                    verdict(value is not None and value < 1, value)))
    for server, limit, what in (("async", MAX_ASYNC_RSS_MIB, "1000 idle keep-alive connections"),
                                ("blocking-per-request", MAX_BLOCKING_RSS_MIB, "150 live workers"),
                                ("blocking-persistent", MAX_BLOCKING_RSS_MIB, "150 live workers")):
        s = next((v for key, v in summaries.items() if key[:2] == ("memory", server)), {})
        rss = s.get("rss_mib")
        out.append((f"RSS of {LABELS[server]} with {what} ≤ {limit} MiB",
                    "–" if rss is None else f"{rss:.1f} MiB",
                    verdict(rss is not None and rss <= limit, rss)))
    for server in CEILING_OF:
        s = get("ab", server, "/html", 1, 0)
        base = get("ceiling", CEILING_OF[server], "/html", 1,
                   int(server != "blocking-per-request"))
        extra = None
        if s.get("mean_ms") is not None and base.get("mean_ms") is not None:
            extra = s["mean_ms"] - base["mean_ms"]
        out.append((f"/html ab -c 1: {LABELS[server]} within {MAX_EXTRA_LATENCY_MS} ms of the "
                    "standalone iteration",
                    "–" if extra is None else
                    f"{s['mean_ms']:.3f} ms vs {base['mean_ms']:.3f} ms (+{extra:.3f} ms)",
                    verdict(extra is not None and extra <= MAX_EXTRA_LATENCY_MS, extra)))
    return out


def verdict(holds, measured):
    if measured is None:
        return "not measured"
    return "holds" if holds else "**does not hold**"


def wrk_section(summaries):
    """wrk's figures beside ab's for the same server, endpoint and concurrency: ab opens a
    connection per request (and -k keeps one per client on /hello), wrk keeps its connections
    and runs a thread per core, and reports a latency distribution."""
    wrk = sorted((s for key, s in summaries.items() if key[0] == "wrk"),
                 key=lambda s: (s["endpoint"], list(CEILING_OF).index(s["server"]),
                                s["concurrency"]))
    if not wrk:
        return []
    lines = [
        "",
        "## wrk beside ab",
        "",
        "The same server, endpoint and concurrency under ab (a new connection per request; "
        "`-k` keeps one per client, /hello only) and under wrk (keep-alive, a thread per core; "
        "its latency distribution). CPU in ms per request.",
        "",
        "| server | endpoint | c | ab req/s | ab -k req/s | wrk req/s | ab p50 / p99 ms | "
        "wrk p50 / p90 / p99 ms | wrk mean ms | server CPU, ab | server CPU, wrk | "
        "client CPU, ab | client CPU, wrk |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in wrk:
        key = (s["server"], s["endpoint"], s["concurrency"])
        ab = summaries.get(("ab", *key, 0), {})
        ab_k = summaries.get(("ab", *key, 1), {})
        lines.append(
            f"| {LABELS[s['server']]} | {s['endpoint']} | {s['concurrency']} | "
            f"{cell(ab.get('requests_per_s'))} | {cell(ab_k.get('requests_per_s'))} | "
            f"{cell(s['requests_per_s'])} | {cell(ab.get('p50_ms'), 2)} / "
            f"{cell(ab.get('p99_ms'), 2)} | {cell(s['p50_ms'], 2)} / {cell(s['p90_ms'], 2)} / "
            f"{cell(s['p99_ms'], 2)} | {cell(s['mean_ms'], 2)} | "
            f"{cell(ab.get('server_cpu_ms_per_req'), 4)} | "
            f"{cell(s['server_cpu_ms_per_req'], 4)} | {cell(ab.get('ab_cpu_ms_per_req'), 4)} | "
            f"{cell(s['ab_cpu_ms_per_req'], 4)} |")
    return lines


def render(summaries, settings, failures, repeated):
    cores = settings["cores"]
    lines = [
        "# Benchmark: each server against the database's own ceiling",
        "",
        f"`{settings['command']}` — {settings['started']}, {cores} cores, "
        f"{settings['seconds_per_run']:g} s per run, median of {settings['repetitions']} "
        f"repetitions, {settings['run_s']} s of runs. Load average before: "
        f"{settings['load_before']:.2f} (waited {settings['waited_s']} s), after: "
        f"{settings['load_after']:.2f}. *other %*: CPU used by other processes during the runs, "
        "in % of the machine (it pollutes the figures)." + (
            f" Each run first waited for a nearly idle machine; {repeated} were measured again "
            f"because other work took more than {settings['polluted_pct']} % of it."
            if "polluted_pct" in settings else ""),
        "",
        "## Ceilings: the /html workload without HTTP (`--standalone N --concurrency K`)",
        "",
        "| loop | K | iterations/s | ms per iteration | own CPU ms/iter | mariadbd CPU ms/iter "
        "| own ÷ mariadbd | other % |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, s in sorted(summaries.items()):
        if key[0] == "ceiling":
            lines.append(
                f"| {LABELS[s['server']]} | {s['concurrency']} | {cell(s['requests_per_s'])} | "
                f"{cell(s['mean_ms'], 3)} | {cell(s['server_cpu_ms_per_req'], 3)} | "
                f"{cell(s['db_cpu_ms_per_req'], 3)} | {ratio_cell(s.get('server_cpu_over_db'))} | "
                f"{cell(s['other_cpu_pct'], 0)} |")
    lines += [
        "",
        "## Servers under ab, and their ratios",
        "",
        "Ceiling: /html over the standalone loop of the same model and connection mode with "
        "K = min(c, cores); /hello over the async server's /hello (the HTTP ceiling). CPU in ms "
        "per request; *server ÷ db* is server CPU over mariadbd CPU per request, *server ÷ ab* "
        "over ab's.",
        "",
        "| server | endpoint | ab | req/s | ceiling req/s | ÷ ceiling | p50 ms | p99 ms | "
        "server CPU | mariadbd CPU | ab CPU | server ÷ db | server ÷ ab | other % |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = list(CEILING_OF)
    rows = sorted((s for key, s in summaries.items() if key[0] == "ab"),
                  key=lambda s: (("/html", "/json", "/hello").index(s["endpoint"]),
                                 order.index(s["server"]), s["keepalive"], s["concurrency"]))
    for s in rows:
        lines.append(
            f"| {LABELS[s['server']]} | {s['endpoint']} | {ab_flags(s)} | "
            f"{cell(s['requests_per_s'])} | {cell(s.get('ceiling_requests_per_s'))} | "
            f"{ratio_cell(s.get('ratio_to_ceiling'))} | {cell(s['p50_ms'], 2)} | "
            f"{cell(s['p99_ms'], 2)} | {cell(s['server_cpu_ms_per_req'], 4)} | "
            f"{cell(s['db_cpu_ms_per_req'], 4)} | {cell(s['ab_cpu_ms_per_req'], 4)} | "
            f"{ratio_cell(s.get('server_cpu_over_db'))} | "
            f"{ratio_cell(s.get('server_cpu_over_ab'))} | {cell(s['other_cpu_pct'], 0)} |")
    lines += wrk_section(summaries)
    lines += [
        "",
        "## Memory",
        "",
        "| server | held | RSS MiB | threads | descriptors |",
        "|---|---|---|---|---|",
    ]
    for key, s in sorted(summaries.items()):
        if key[0] == "memory":
            lines.append(f"| {LABELS[s['server']]} | {s['concurrency']} idle keep-alive "
                         f"connections after GET {s['endpoint']} | {cell(s['rss_mib'])} | "
                         f"{cell(s['threads'], 0)} | {cell(s['connections'], 0)} |")
    lines += ["", "## Targets (docs/performance.md)", "", "| target | measured | verdict |",
              "|---|---|---|"]
    lines += [f"| {t} | {m} | {v} |" for t, m, v in targets(summaries, cores)]
    if failures:
        lines += ["", f"## Failed runs ({len(failures)})", ""]
        lines += [f"- repetition {r['repetition']} {r['server']} {r['endpoint']} "
                  f"-c {r['concurrency']}: {r['cause']}" for r in failures]
    return "\n".join(lines) + "\n"


def write(directory, rows, settings):
    """Writes bench.csv, report.md and settings.json; prints the report. Returns the exit
    status: 1 when a run failed."""
    with open(os.path.join(directory, "settings.json"), "w") as f:
        json.dump(settings, f, indent=1)
    summaries = summarise(rows, settings["cores"])
    with open(os.path.join(directory, "bench.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=SUMMARY_COLUMNS)
        writer.writeheader()
        for key in sorted(summaries):
            writer.writerow({column: round(value, 4) if isinstance(value, float) else value
                             for column, value in summaries[key].items()})
    failures = [row for row in rows if row.get("status", "ok") != "ok"]
    repeated = sum(1 for row in rows if (number(row.get("attempts")) or 1) > 1)
    report = render(summaries, settings, failures, repeated)
    with open(os.path.join(directory, "report.md"), "w") as f:
        f.write(report)
    print(report)
    print(f"== results in {directory}: bench.csv, runs.csv, report.md, raw/")
    return 1 if failures else 0


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    directory = sys.argv[1]
    try:
        with open(os.path.join(directory, "runs.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(directory, "settings.json")) as f:
            settings = json.load(f)
    except OSError as error:
        print(f"bench report: {error}", file=sys.stderr)
        return 1
    return write(directory, rows, settings)


if __name__ == "__main__":
    sys.exit(main())
