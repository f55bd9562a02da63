"""Turns a reproduce.sh results directory (runs/*.json, steps.tsv, checks.txt, settings.txt) into
results.csv (one row per run), report.md (the posts' tables with the real systems beside the
models, medians over the rounds; the models against the real systems; the findings, each claim
judged for both, with its measured cause when not reproduced) and PNG plots drawn by gnuplot.
reproduce.sh writes them after its runs; this redraws them:

  python3 -m modelbench.reproduce.report --dir results/<timestamp> [--build-dir build]
                                         [--against results/<another>]
"""

import argparse
import csv
import os
import platform
import re
import subprocess
import sys

from modelbench.repeats import NOT_REPRODUCED, Spread, median
from modelbench.reproduce import calibration, e5, e6, findings, plots, remote
from modelbench.reproduce.plan import CONCURRENCIES, PAIRS, POSTS_BACKLOG, SERVERS
from modelbench.reproduce.results import Results, client_text, load_runs
from modelbench.serverstatus import AGREE_PCT, STATUS
from modelbench.tables import fmt, ratio_cell, table
from modelbench.targets import KINDS

META_COLUMNS = ["id", "base", "round", "attempt", "experiment", "server", "system", "variant",
                "server_flags", "rtt_ms", "endpoint", "tool", "concurrency", "requests",
                "duration", "status", "cause", "command"]
FIGURE_COLUMNS = [
    "complete", "failed", "failed_length", "failed_other", "non2xx", "requests_per_s", "mean_ms",
    "p50_ms", "p90_ms", "p99_ms", "max_ms", "transfer_kib_s", "duration_s", "document_bytes",
    "availability_pct", "siege_concurrency", "successful",
    "iterations", "real_s", "user_s", "sys_s", "iterations_per_s",
    "delay_ms", "response_ms", "task_two_after_task_one_ms", "task_two_after_response",
    "task_three_before_task_two",
    "wall_s", "cores", "server_cpu_s", "server_cpu_pct_core", "server_cpu_pct_machine",
    "server_cpu_source", "status_cpu_s", "status_cpu_diff_pct", "status_cpu_agrees",
    "db_cpu_s", "db_cpu_pct_core", "db_cpu_pct_machine", "client_cpu_s", "client_cpu_pct_core",
    "client_cpu_pct_machine", "machine_busy_pct", "other_cpu_pct", "server_peak_threads",
    "server_peak_processes", "server_peak_rss_mib", "server_db_connects", "requests_by_worker",
    "listen_overflows", "listen_drops", "syn_retransmits",
]
# What each real system is, for the headings of its pair.
REAL_NAMES = {"php": "Apache+PHP", "node": "Node.js", "node-cluster": "Node.js with node:cluster"}


def read_text(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def read_settings(directory):
    settings = {}
    for line in read_text(os.path.join(directory, "settings.txt")).splitlines():
        key, _, value = line.partition("=")
        if key:
            settings[key.strip()] = value.strip()
    return settings


def write_csv(results, path):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(META_COLUMNS + FIGURE_COLUMNS)
        for run in results.runs.values():
            figures = run.get("figures", {})
            writer.writerow([run.get(c, "") for c in META_COLUMNS] +
                            [figures.get(c, "") for c in FIGURE_COLUMNS])


# ---------------------------------------------------------------------------------------------
# Markdown tables: one column per server, each figure the median over the rounds


def range_cell(spread, digits=1):
    """'1,040.2–1,090.7' over the rounds ('' for a single run, '–' when not measured)."""
    if spread is None:
        return "–"
    if spread.count == 1:
        return ""
    return f"{spread.low:,.{digits}f}–{spread.high:,.{digits}f}"


def columns_of(results, pattern, keys):
    """(label, base) of the servers among keys whose run pattern.format(key) ran."""
    return [(results.label(k), pattern.format(k)) for k in keys
            if results.has(pattern.format(k))]


def load_rows(results, bases, extra=()):
    """The rows every load-run table shares, one column per base id."""
    def row(label, key, digits=1, scale=1.0):
        return [label] + [fmt(results.figure(b, key), digits, scale) for b in bases]

    def percentile(base, key):
        value = results.figure(base, key)
        # siege's single times have 10 ms resolution: 0 means "under 10 ms".
        if value == 0 and results.record(base).get("tool") == "siege":
            return "<10"
        return fmt(value, 1)

    def per_request(who):
        return [fmt(results.per_request_ms(b, who), 3) for b in bases]

    rows = [
        row("requests/s", "requests_per_s"),
        ["requests/s, range over the rounds"] +
        [range_cell(results.spread(b, "requests_per_s")) for b in bases],
        row("mean response time (ms)", "mean_ms", 2),
        ["p50 / p90 / p99 (ms)"] + [
            " / ".join(percentile(b, k) for k in ("p50_ms", "p90_ms", "p99_ms")) for b in bases],
        row("longest (ms)", "max_ms"),
        row("throughput (MiB/s)", "transfer_kib_s", 2, 1 / 1024),
        row("failed requests", "failed", 0),
        row("non-2xx responses", "non2xx", 0),
    ]
    rows += list(extra)
    rows += [
        ["CPU server, % of one core (of the machine)"] + [results.cpu(b, "server") for b in bases],
        ["CPU server per request (ms)"] + per_request("server"),
    ]
    if any(results.figure(b, "status_cpu_s") is not None or
           results.record(b).get("figures", {}).get("server_cpu_source") == STATUS for b in bases):
        rows.append(["CPU server: its own /status (against /proc)"] +
                    [status_cell(results, b) for b in bases])
    rows += [
        ["CPU mariadbd, % of one core (of the machine)"] + [results.cpu(b, "db") for b in bases],
        ["CPU mariadbd per request (ms)"] + per_request("db"),
        ["CPU load tool, % of one core (of the machine)"] +
        [results.cpu(b, "client") for b in bases],
        row("machine busy (%)", "machine_busy_pct"),
        row("peak threads of the server", "server_peak_threads", 0),
        row("peak processes of the server", "server_peak_processes", 0),
        row("peak RSS of the server (MiB)", "server_peak_rss_mib"),
    ]
    if any(results.figure(b, "server_db_connects") is not None for b in bases):
        # Only the models count them (/status); the real systems have no such counter.
        rows.append(["database connections opened (model's /status)"] +
                    [fmt(results.figure(b, "server_db_connects"), 0)
                     if KINDS[results.record(b).get("system", "blocking")].status else "n/a"
                     for b in bases])
    return rows


def status_cell(results, base):
    """The server's CPU by its own /status: the only figure for a remote server; beside /proc's,
    the median of both and their difference, flagged when a round's exceeds the tolerance."""
    figures = results.record(base).get("figures", {})
    if figures.get("server_cpu_source") == STATUS:
        return f"{fmt(results.figure(base, 'server_cpu_s'), 2)} s (remote: /status only)"
    status = results.figure(base, "status_cpu_s")
    if status is None:
        return "n/a (no /status)"
    diff = results.figure(base, "status_cpu_diff_pct")
    agree = "" if all(results.values(base, "status_cpu_agrees")) else "; **disagree**"
    return (f"{fmt(status, 2)} s vs {fmt(results.figure(base, 'server_cpu_s'), 2)} s "
            f"({'–' if diff is None else f'{diff:+.1f} %'}{agree})")


def table_notes(results, bases):
    """Notes under a table: what happened to a run (a hung tool), a server whose own /status
    disagreed with /proc about its CPU, and runs whose load tool used most of a core, where it
    rather than the server was measured."""
    notes = []
    for base in bases:
        for round_, run in results.rounds(base).items():
            run_id = run["id"]
            if run.get("note"):
                notes.append(f"`{run_id}`: {run['note']}.")
            f = run["figures"]
            if f.get("status_cpu_agrees") == 0:
                notes.append(f"`{run_id}`: the server's /status counted {f['status_cpu_s']} s "
                             f"of CPU, /proc {f['server_cpu_s']} s: more than "
                             f"{AGREE_PCT:.0f} % apart.")
            cpu = run["figures"].get("client_cpu_pct_core")
            if cpu is not None and cpu >= 90:
                tool = run.get("tool")
                notes.append(f"`{run_id}`: {tool} used {cpu:.0f} % of a core, so {tool} rather "
                             "than the server was the limit of that run.")
    return ["", "Note: " + " ".join(notes)] if notes else []


def section_runs(results, settings):
    kept = [run for run in results.runs.values()
            if run.get("status") == "ok" and "other_cpu_pct" in run.get("figures", {})]
    others = [run["figures"]["other_cpu_pct"] for run in kept]
    again = sum(1 for run in results.runs.values() if run.get("attempt", 1) > 1)
    rounds = settings.get("repeats", "?")
    minutes = fmt(float(settings["run_s"]) / 60, 1) if "run_s" in settings else "?"
    return "\n".join([
        "## How the runs were made",
        "",
        f"Every run below was made in {rounds} round(s), the servers interleaved: each "
        "experiment's runs once per round, the servers' order turned by one place every round. "
        "Every load run had a freshly started server, one warm-up request that must answer 200, "
        "and waited for a quiet machine first: until other processes kept less than "
        "10 % of it busy. A figure in a table is the median over the rounds; a range is the "
        "lowest to the highest round. A ratio between two servers is taken within each round "
        "and then summarised the same way.",
        "",
        f"- runs kept: {len(kept)}; measured again because other work took more than 20 % of "
        f"the machine meanwhile: {again}",
        f"- other processes' share of the machine during the kept runs: median "
        f"{fmt(median(others), 1)} %, at most {fmt(max(others) if others else None, 1)} %",
        f"- time of the runs: {minutes} minutes",
        status_agreement(kept),
        "",
    ])


def status_agreement(kept):
    """A line on the servers' own /status against /proc: the CPU both counted over each run of a
    local C++ server ('' when no run had both)."""
    checked = [run["figures"] for run in kept if "status_cpu_agrees" in run["figures"]]
    if not checked:
        return ""
    differences = [abs(f["status_cpu_diff_pct"]) for f in checked
                   if f.get("status_cpu_diff_pct") is not None]
    disagree = sum(1 for f in checked if not f["status_cpu_agrees"])
    return (f"- the server's CPU by its own `/status` against `/proc`, over each run of a C++ "
            f"server here: {len(checked) - disagree} of {len(checked)} runs agree within "
            f"{AGREE_PCT:.0f} % (or a clock tick per process); the largest difference "
            f"{fmt(max(differences) if differences else None, 1)} %" +
            (f"; **{disagree} disagree** (noted under their tables)" if disagree else ""))


def section_e1a(results):
    cols = columns_of(results, "e1a-{}", ["php", "blocking", "blocking-cal", "node", "async",
                                          "async-cal"])
    if not cols:
        return ""
    bases = [b for _, b in cols]

    def per_iteration_ms(base, keys):
        values = [1000 * sum(run["figures"][k] for k in keys) / run["figures"]["iterations"]
                  for run in results.rounds(base).values()]
        return fmt(median(values), 3)

    rows = [[label] + [fmt(results.figure(b, key), 3, suffix=" s") for b in bases]
            for label, key in (("real", "real_s"), ("user", "user_s"), ("sys", "sys_s"))]
    rows += [
        ["real, range over the rounds (s)"] +
        [range_cell(results.spread(b, "real_s"), 3) for b in bases],
        ["iterations/s"] + [fmt(results.figure(b, "iterations_per_s"), 1) for b in bases],
        ["own CPU per iteration (ms)"] + [per_iteration_ms(b, ("user_s", "sys_s"))
                                          for b in bases],
        ["CPU mariadbd per iteration (ms)"] + [fmt(results.per_request_ms(b, "db"), 3)
                                               for b in bases],
        ["CPU mariadbd, % of one core (of the machine)"] + [results.cpu(b, "db") for b in bases],
        ["peak threads"] + [fmt(results.figure(b, "server_peak_threads"), 0) for b in bases],
    ]
    blog = {"real": ("7.410 s", "9.771 s"), "user": ("3.653 s", "6.707 s"),
            "sys": ("2.107 s", "1.399 s"), "iterations/s": ("135.0", "102.3")}
    for r in rows:
        r += list(blog.get(r[0], ("", "")))
    n = results.figure(bases[0], "iterations") or "N"
    commands = "; ".join(f"{label}: `{results.record(b).get('command', '?')}`"
                         for label, b in cols)
    return "\n".join([
        "## E1a — the /html workload in one process, no HTTP",
        "",
        f"The /html workload (two queries, both tables rendered) {n:.0f} times in one process, "
        "timed like `time`: real from the start to the exit, user and sys from the process's "
        f"rusage. PHP opens a new connection per iteration, as the page does; Node.js fires "
        f"each iteration's two queries at once on its pool; the models do as their servers. "
        f"Commands (paths shortened): {shorten(commands)}.",
        "",
        table([""] + [label for label, _ in cols] + ["post: PHP", "post: Node.js + mysql"],
              rows),
        "",
    ])


def shorten(text):
    """Commands without the checkout's directories, for reading."""
    return re.sub(r"/\S*/(servers|bin)/", r"\1/", text)


def section_e1b(results):
    keys = list(SERVERS)
    parts = []
    for c in CONCURRENCIES:
        cols = columns_of(results, "e1b-{}-c" + str(c), keys)
        if not cols:
            continue
        bases = [b for _, b in cols]
        first = results.record(bases[0])
        parts += [f"### {client_text(first)}", "",
                  table(["value"] + [label for label, _ in cols], load_rows(results, bases))]
        parts += table_notes(results, bases) + [""]
    if not parts:
        return ""
    bytes_ = next((results.figure(f"e1b-{k}-c20", "document_bytes") for k in keys
                   if results.figure(f"e1b-{k}-c20", "document_bytes")), None)
    blog = table(["value", "PHP+Apache -c 20", "PHP+Apache -c 200", "Node.js -c 20",
                  "Node.js -c 200"],
                 [["requests/s", 1173, 1146, 119, 114], ["response time (ms)", 17, 174, 167, 1750],
                  ["throughput (MiB/s)", 21, 20, 2, 2]])
    plot_files = [p for p in ("e1b-requests-per-s.png", "e1b-latency.png")
                  if os.path.exists(os.path.join(results.directory, p))]
    return "\n".join([
        "## E1b — /html under ApacheBench",
        "",
        f"`ab -r` against `/html` (two queries, both tables, {fmt(bytes_, 0)} bytes) on every "
        "server; each real system beside the model that stands for it. The cluster columns are "
        "the follow-up the post proposed: Node.js with `node:cluster` and the async model with "
        f"`--workers 0`, one worker per core ({results.cores} here).",
        "",
    ] + parts + [
        "The post's figures (four cores, 2011), for the shape rather than the values; at -c 1 "
        "it measured 9.4 ms (PHP+Apache) and 8.9 ms (Node.js):",
        "",
        blog,
        "",
    ] + [f"![{p}]({p})" for p in plot_files] + [""])


def counter_rows(results, bases):
    return [["listen queue overflows (ListenOverflows)"] +
            [range_or_value(results.spread(b, "listen_overflows")) for b in bases],
            ["listen drops (ListenDrops)"] +
            [range_or_value(results.spread(b, "listen_drops")) for b in bases],
            ["SYN retransmits (TCPSynRetrans)"] +
            [range_or_value(results.spread(b, "syn_retransmits")) for b in bases],
            ["longest, range over the rounds (ms)"] +
            [range_cell(results.spread(b, "max_ms"), 0) for b in bases]]


def range_or_value(spread):
    """A count over the rounds: its median, and its range when the rounds differ."""
    if spread is None:
        return "–"
    if spread.low == spread.high:
        return fmt(spread.median, 0)
    return f"{fmt(spread.median, 0)} ({spread.low:,.0f}–{spread.high:,.0f})"


def section_e2(results, settings):
    keys = ["php", "blocking", "node", "async"]
    parts = []
    for suffix, title in (("", "the servers' listen queue (511)"),
                          (f"-backlog{POSTS_BACKLOG}",
                           f"`--backlog {POSTS_BACKLOG}`: the posts' listen queue")):
        cols = columns_of(results, "e2-{}" + suffix, keys)
        if not cols:
            continue
        bases = [b for _, b in cols]
        parts += [f"### {title}", "",
                  table(["value"] + [label for label, _ in cols],
                        load_rows(results, bases, counter_rows(results, bases)))]
        parts += table_notes(results, bases) + [""]
    if not parts:
        return ""
    first = next(results.record(f"e2-{k}") for k in keys if results.has(f"e2-{k}"))
    return "\n".join([
        "## E2 — hello world",
        "",
        f"{client_text(first)} against `/hello` "
        "(`Hello World! 10\\n`). The post, through nginx: PHP-FPM 5042 req/s, Node.js 5356 "
        "req/s, no failures, the longest request about 3.2–3.7 s in every run: a SYN sent again "
        "after the listen queue overflowed. Kernels before 5.4 capped every listen queue at "
        f"128 (`net.core.somaxconn`); this machine's is {settings.get('somaxconn', '?')}, so E2 "
        f"runs twice: with the servers' queue of 511 and with `--backlog {POSTS_BACKLOG}`. The "
        "kernel's counters are the deltas of `/proc/net/netstat` (TcpExt) over each run, for "
        "the whole machine.",
        "",
    ] + parts)


def section_e3(results):
    bases, labels = [], []
    for key in ("php", "blocking", "node", "async"):
        for suffix, label in (("", ""), ("-l", " -l")):
            if results.has(f"e3-{key}{suffix}"):
                bases.append(f"e3-{key}{suffix}")
                labels.append(f"{key}{label}")
    if not bases:
        return ""
    first = results.record(bases[0])
    extra = [
        ["of which Length failures"] + [fmt(results.figure(b, "failed_length"), 0) for b in bases],
        ["complete requests"] + [fmt(results.figure(b, "complete"), 0) for b in bases],
    ]
    return "\n".join([
        "## E3 — /factorial and ab's Length failures",
        "",
        f"`ab -r -n {first.get('requests')} -c {first.get('concurrency')}` against `/factorial` "
        "(n! for a random n in 10..40, so the body length varies), then the same with `-l`. ab "
        "takes the first response's length as the reference and counts every other length as "
        "'Failed requests (Length)'; the post saw 970 of 1000. `-l` accepts varying lengths.",
        "",
        table(["value"] + labels, load_rows(results, bases, extra)),
    ] + table_notes(results, bases) + [""])


def section_e4(results):
    keys = ["php", "blocking", "node", "async"]
    parts = []
    for key in keys:
        base = f"e4-tasks-{key}"
        if not results.has(base):
            continue
        rounds = results.rounds(base)
        if not rounds:
            parts += [f"**{key}**: the demo failed: {results.record(base).get('cause')}", ""]
            continue
        first = next(iter(rounds.values()))
        after = results.values(base, "task_two_after_response")
        parts += [f"**{key}** — response after "
                  f"{results.spread(base, 'response_ms').text(0, suffix=' ms')}; task two "
                  f"logged after the response arrived in {sum(after)} of {len(after)} runs. "
                  "The first run:", "", "```"] + first["timeline"] + ["```", ""]
    delay = next((results.figure(f"e4-tasks-{k}", "delay_ms") for k in keys
                  if results.figure(f"e4-tasks-{k}", "delay_ms") is not None), None)
    if parts:
        parts = [f"### `/tasks?delay_ms={fmt(delay, 0)}`", "",
                 "Task one is logged, task two is scheduled after the delay (a timer on the "
                 "Node.js side, a sleep of the worker on the Apache+PHP side), task three is the "
                 "response. Server lines are the server's stderr (Apache's error log for php; "
                 "UTC); client lines are this script's request.", ""] + parts
    for prefix, users in (("e4-siege", 500), ("e4-siege1000", 1000)):
        cols = columns_of(results, prefix + "-{}", keys)
        if not cols:
            continue
        bases = [b for _, b in cols]
        first = results.record(bases[0])

        def row(label, key, digits):
            return [label] + [fmt(results.figure(b, key), digits) for b in bases]

        extra = [row("siege transactions", "complete", 0),
                 row("availability (%)", "availability_pct", 2),
                 row("siege concurrency", "siege_concurrency", 2),
                 ["siege concurrency, range over the rounds"] +
                 [range_cell(results.spread(b, "siege_concurrency"), 2) for b in bases]]
        post = ("about 990 trans/s for both" if users == 500 else
                "Node.js 1437 trans/s, PHP+Apache 1990, siege concurrency 281 vs 5.6 (10 minutes)")
        parts += [
            f"### /json under `siege -c {users} -d 1 -t {first.get('duration')}`", "",
            f"The post: {post}.", "",
            table(["value"] + [label for label, _ in cols], load_rows(results, bases, extra)),
        ] + table_notes(results, bases) + [""]
    if not parts:
        return ""
    return "\n".join([
        "## E4 — the deferred task, and /json under siege",
        "",
        "siege 4.0.7 with `scripts/siegerc` (a `limit` of 1024 users; HTTP/1.1, a new connection "
        "per transaction, as the post's defaults). The mean is siege's 'Concurrency' divided by "
        "its transaction rate; siege prints single times with 10 ms resolution, so its "
        "percentiles are multiples of 10 ms. siege's 'concurrency' is the time its users spent "
        "waiting for responses over the elapsed time: the requests in flight on average.",
        "",
    ] + parts)


def section_cpu(results):
    if not os.path.exists(os.path.join(results.directory, "cpu-split.png")):
        return ""
    return "\n".join([
        "## CPU split",
        "",
        "Where the machine's CPU went during the heaviest run of each experiment (medians), in % "
        "of the machine: the server, mariadbd, the load tool, and everything else.",
        "",
        "![cpu-split.png](cpu-split.png)",
        "",
    ])


# ---------------------------------------------------------------------------------------------
# The models against the real systems


def pair_rows(results, model, real):
    """(label, model's cell, real system's cell, model ÷ real) rows of one pair."""
    rows = []

    def spread_row(label, model_base, real_base, key, digits=1):
        m, r = results.spread(model_base, key), results.spread(real_base, key)
        if m is None and r is None:
            return
        ratio = results.paired([model_base, real_base], key, lambda a, b: a / b if b else None)
        rows.append([label, spread_cell(m, digits), spread_cell(r, digits), ratio_cell(ratio)])

    def derived_row(label, model_values, real_values, digits):
        m, r = Spread.of(model_values), Spread.of(real_values)
        if m is None and r is None:
            return
        ratio = None if m is None or r is None or not r.median else m.median / r.median
        rows.append([label, spread_cell(m, digits), spread_cell(r, digits),
                     "–" if ratio is None else f"×{ratio:.2f}"])

    for c in CONCURRENCIES:
        spread_row(f"/html requests/s, -c {c}", f"e1b-{model}-c{c}", f"e1b-{real}-c{c}",
                   "requests_per_s")
    for low, high in zip(CONCURRENCIES, CONCURRENCIES[1:]):
        derived_row(f"shape: requests/s -c {high} ÷ -c {low}",
                    shape(results, model, low, high), shape(results, real, low, high), 2)
    for c in CONCURRENCIES[1:]:
        derived_row(f"server CPU per /html request, -c {c} (ms)",
                    results.per_request_ms_values(f"e1b-{model}-c{c}", "server"),
                    results.per_request_ms_values(f"e1b-{real}-c{c}", "server"), 3)
        derived_row(f"mariadbd CPU per /html request, -c {c} (ms)",
                    results.per_request_ms_values(f"e1b-{model}-c{c}", "db"),
                    results.per_request_ms_values(f"e1b-{real}-c{c}", "db"), 3)
    spread_row("peak threads, -c 200", f"e1b-{model}-c200", f"e1b-{real}-c200",
               "server_peak_threads", 0)
    spread_row("peak processes, -c 200", f"e1b-{model}-c200", f"e1b-{real}-c200",
               "server_peak_processes", 0)
    if not SERVERS[model].cluster:
        spread_row("E1a real time (s)", f"e1a-{model}", f"e1a-{real}", "real_s", 3)
        derived_row("E1a mariadbd CPU per iteration (ms)",
                    results.per_request_ms_values(f"e1a-{model}", "db"),
                    results.per_request_ms_values(f"e1a-{real}", "db"), 3)
        spread_row("E2 /hello requests/s", f"e2-{model}", f"e2-{real}", "requests_per_s")
        derived_row("E2 server CPU per /hello request (ms)",
                    results.per_request_ms_values(f"e2-{model}", "server"),
                    results.per_request_ms_values(f"e2-{real}", "server"), 3)
        spread_row("E4 siege -c 500 trans/s", f"e4-siege-{model}", f"e4-siege-{real}",
                   "requests_per_s")
        spread_row("E4 siege -c 1000 trans/s", f"e4-siege1000-{model}",
                   f"e4-siege1000-{real}", "requests_per_s")
        spread_row("E4 siege -c 1000 concurrency", f"e4-siege1000-{model}",
                   f"e4-siege1000-{real}", "siege_concurrency", 2)
    return rows


def shape(results, server, low, high):
    return results.per_round([f"e1b-{server}-c{high}", f"e1b-{server}-c{low}"],
                             "requests_per_s", lambda a, b: a / b if b else None)


def spread_cell(spread, digits):
    if spread is None:
        return "–"
    if spread.count == 1 or spread.low == spread.high:
        return fmt(spread.median, digits)
    return (f"{fmt(spread.median, digits)} ({spread.low:,.{digits}f}–"
            f"{spread.high:,.{digits}f})")


def section_models(results, claims):
    parts = []
    for model, real in PAIRS:
        rows = pair_rows(results, model, real)
        if not rows:
            continue
        parts += [f"### {results.label(model)} ↔ {results.label(real)}: the model and "
                  f"{REAL_NAMES[real]}", "",
                  table(["", results.label(model), results.label(real), "model ÷ real"], rows),
                  ""]
    if not parts and not claims:
        return ""  # nothing of the posts' experiments ran (--only E6)
    verdicts = table(["claim", "real systems (php, node)", "models (blocking, async)"],
                     [[c.key, f"**{c.real.verdict}**", f"**{c.model.verdict}**"]
                      for c in claims])
    return "\n".join([
        "## Model against the real system",
        "",
        "Each model beside the real system it stands for, on the same machine, database and "
        "load: medians over the rounds with their range, and the model's figure over the real "
        "system's (ratios of requests/s taken within each round). The shape is how requests/s "
        "change from one concurrency to the next; CPU per request is the process tree's CPU "
        "time over the requests answered.",
        "",
    ] + parts + [
        "### Verdicts",
        "",
        "Each claim of the posts, judged for the real systems and for the models from the "
        "ranges over the rounds (evidence, criteria and causes under Findings). "
        "**inconclusive**: the rounds fall on both sides of the criterion.",
        "",
        verdicts,
        "",
    ])


def section_findings(claims):
    if not claims:
        return ""
    rows = []
    for c in claims:
        for name, side in (("real systems", c.real), ("models", c.model)):
            evidence = side.evidence
            if side.verdict == NOT_REPRODUCED:
                evidence += f". **Cause:** {side.cause}"
            rows.append([f"{c.claim}. Criterion: {c.criterion}." if name == "real systems"
                         else "〃", name, evidence, f"**{side.verdict}**"])
    return "\n".join([
        "## Findings",
        "",
        "Each claim of the posts, the evidence measured here for the real systems and for the "
        "models (median over the rounds, and the range), and the verdict from that range: "
        "reproduced when the whole range meets the criterion, not reproduced when none of it "
        "does (with the measured cause), inconclusive when it straddles the criterion.",
        "",
        table(["claim and criterion", "for", "evidence in this run", "verdict"], rows),
        "",
    ])


def section_checks(directory):
    text = read_text(os.path.join(directory, "checks.txt")).strip()
    if not text:
        return ""
    return "\n".join(["## Checks before the runs", "", text, ""])


def section_failures(directory):
    steps = read_text(os.path.join(directory, "steps.tsv")).splitlines()
    failed = [line.split("\t") for line in steps if "\tfailed\t" in line]
    if not failed:
        return ""
    rows = [[f[0], f[2] if len(f) > 2 else "", f"`{f[3]}`" if len(f) > 3 else ""] for f in failed]
    return "\n".join(["## Steps that failed", "", table(["step", "cause", "log"], rows), ""])


def environment(results, settings, build_dir):
    def first_line(command):
        try:
            out = subprocess.run(command, capture_output=True, text=True, timeout=10)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "?"

    cpu = "?"
    for line in read_text("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    cache = read_text(os.path.join(build_dir, "CMakeCache.txt")) if build_dir else ""
    build_type = next((l.split("=", 1)[1] for l in cache.splitlines()
                       if l.startswith("CMAKE_BUILD_TYPE:")), "?")
    sanitize = next((l.split("=", 1)[1] for l in cache.splitlines()
                     if l.startswith("MODELBENCH_SANITIZE:")), "")
    ab_version = first_line(["ab", "-V"]).replace("This is ", "")
    siege_version = first_line(["siege", "--version"])
    mariadb = first_line(["/usr/sbin/mariadbd", "--version"])
    apache = first_line(["/usr/sbin/apache2", "-v"]).replace("Server version: ", "")
    php = first_line(["php", "-v"])
    node = first_line(["node", "--version"])
    return "\n".join([
        f"- run: {settings.get('started', '?')} UTC, size `{settings.get('size', '?')}`, "
        f"{settings.get('repeats', '?')} round(s), command `{settings.get('command', '?')}`",
        f"- machine: {results.cores} cores ({cpu}), {platform.system()} {platform.release()}",
        f"- systems: {apache} prefork with mod_php, {php}; Node.js {node} with the npm mysql "
        f"driver; the models from `{build_dir}` ({build_type}"
        f"{', ' + sanitize + ' sanitizer' if sanitize else ''})",
        f"- tools: {ab_version}; {siege_version}; {mariadb}",
        "- the load tool, the server and mariadbd share these cores: compare the systems within "
        "this run, not with the posts' absolute figures.",
    ])


def write(directory, build_dir="", against=None):
    """Writes results.csv, the plots and report.md; returns the plots not drawn (their
    errors). against: another results directory, whose E5 crossovers this run's are compared
    with."""
    results = Results(directory, load_runs(directory))
    settings = read_settings(directory)
    write_csv(results, os.path.join(directory, "results.csv"))
    try:
        plot_errors = (plots.draw(results, e6.draw(results))
                       + e5.draw(results, calibration.marks(directory)))
    except (OSError, subprocess.SubprocessError) as error:
        plot_errors = [str(error)]

    somaxconn = int(settings.get("somaxconn", "0") or 0)
    claims = findings.evaluate(results, somaxconn)
    calibrated = calibration.calibrated_claims(results, somaxconn)
    other = Results(against, load_runs(against)) if against else None
    sections = [
        "# modelbench: the posts' experiments on four systems, reproduced on this machine",
        "",
        environment(results, settings, build_dir),
        "",
        remote.section(directory),
        section_checks(directory),
        section_runs(results, settings),
        calibration.section(results),
        section_e1a(results),
        section_e1b(results),
        section_e2(results, settings),
        section_e3(results),
        section_e4(results),
        e5.section(results),
        e6.section(results),
        section_cpu(results),
        section_models(results, claims),
        section_findings(claims),
        calibration.section_verdicts(claims, calibrated),
        calibration.section_targets(results, claims, calibrated, other),
        section_failures(directory),
        "## Files",
        "",
        "`results.csv` (one row per run, every figure a column), `raw/` (every tool's output, the "
        "servers' logs and files — Apache's configuration and error log —, the models' /status "
        "after each run), `runs/` (one JSON per run), `plots/` (gnuplot data and scripts). What "
        "the experiments are: `docs/experiments.md`.",
        "",
    ]
    if plot_errors:
        sections += ["Plots not drawn: " + "; ".join(plot_errors), ""]
    # Sections of experiments that did not run are empty: no runs of blank lines for them.
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(sections))
    with open(os.path.join(directory, "report.md"), "w") as f:
        f.write(text)
    return plot_errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--build-dir", default="")
    parser.add_argument("--against", help="another results directory: its E5 crossovers "
                        "against this one's (a target of the calibrated model)")
    args = parser.parse_args()
    plot_errors = write(args.dir, args.build_dir, args.against)
    for error in plot_errors:
        print(f"report: plot not drawn: {error}", file=sys.stderr)
    return 1 if plot_errors else 0


if __name__ == "__main__":
    sys.exit(main())
