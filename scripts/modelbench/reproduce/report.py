"""Turns a reproduce.sh results directory (runs/*.json, steps.tsv, checks.txt, settings.txt) into
results.csv (one row per run), report.md (the blog's tables, both models side by side, and the
findings with verdicts computed from this run) and PNG plots drawn by gnuplot. reproduce.sh
writes them after its runs; this redraws them:

  python3 -m modelbench.reproduce.report --dir results/<timestamp> [--build-dir build]
"""

import argparse
import csv
import glob
import json
import os
import platform
import re
import subprocess
import sys

from modelbench.reproduce import findings, plots
from modelbench.reproduce.results import SERVERS, Results
from modelbench.tables import fmt, table

META_COLUMNS = ["id", "experiment", "server", "variant", "endpoint", "tool", "concurrency",
                "requests", "duration", "status", "cause", "command"]
FIGURE_COLUMNS = [
    "complete", "failed", "failed_length", "failed_other", "non2xx", "requests_per_s", "mean_ms",
    "p50_ms", "p90_ms", "p99_ms", "max_ms", "transfer_kib_s", "duration_s", "document_bytes",
    "availability_pct", "siege_concurrency", "successful",
    "iterations", "real_s", "user_s", "sys_s", "iterations_per_s",
    "delay_ms", "response_ms", "task_two_after_task_one_ms", "task_two_after_response",
    "task_three_before_task_two",
    "wall_s", "cores", "server_cpu_s", "server_cpu_pct_core", "server_cpu_pct_machine",
    "db_cpu_s", "db_cpu_pct_core", "db_cpu_pct_machine", "client_cpu_s", "client_cpu_pct_core",
    "client_cpu_pct_machine", "machine_busy_pct", "server_peak_threads", "server_peak_rss_mib",
    "server_db_connects", "requests_by_worker",
]


def load_runs(directory):
    runs = []
    for path in glob.glob(os.path.join(directory, "runs", "*.json")):
        with open(path) as f:
            runs.append(json.load(f))
    return {run["id"]: run for run in sorted(runs, key=lambda r: r.get("started", ""))}


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
# Markdown tables


def load_rows(results, ids, extra=()):
    """The rows every load-run table shares, one column per run id."""
    def row(label, key, digits=1, scale=1.0):
        return [label] + [fmt(results.figure(i, key), digits, scale) for i in ids]

    def percentile(run_id, key):
        value = results.figure(run_id, key)
        # siege's single times have 10 ms resolution: 0 means "under 10 ms".
        if value == 0 and results.runs[run_id].get("tool") == "siege":
            return "<10"
        return fmt(value, 1)

    percentiles = ["p50 / p90 / p99 (ms)"] + [
        " / ".join(percentile(i, k) for k in ("p50_ms", "p90_ms", "p99_ms")) for i in ids]
    rows = [
        row("requests/s", "requests_per_s"),
        row("mean response time (ms)", "mean_ms", 2),
        percentiles,
        row("longest (ms)", "max_ms"),
        row("throughput (MiB/s)", "transfer_kib_s", 2, 1 / 1024),
        row("failed requests", "failed", 0),
        row("non-2xx responses", "non2xx", 0),
    ]
    rows += list(extra)
    rows += [
        ["CPU server, % of one core (of the machine)"] + [results.cpu(i, "server") for i in ids],
        ["CPU mariadbd, % of one core (of the machine)"] + [results.cpu(i, "db") for i in ids],
        ["CPU load tool, % of one core (of the machine)"] + [results.cpu(i, "client") for i in ids],
        row("machine busy (%)", "machine_busy_pct"),
        row("peak threads of the server", "server_peak_threads", 0),
        row("peak RSS of the server (MiB)", "server_peak_rss_mib"),
        row("database connections opened (server's /status)", "server_db_connects", 0),
    ]
    by_worker = [results.figure(i, "requests_by_worker") for i in ids]
    if any(by_worker):
        rows.append(["requests answered by each worker"] + [w or "" for w in by_worker])
    return rows


def table_notes(results, ids):
    """Notes under a table: what happened to a run (a hung tool), and runs whose load tool used
    most of a core, where it rather than the server was measured."""
    notes = [f"`{i}`: {results.runs[i]['note']}." for i in ids if results.runs[i].get("note")]
    for run_id in ids:
        cpu = results.figure(run_id, "client_cpu_pct_core")
        if cpu is not None and cpu >= 90:
            tool = results.runs[run_id].get("tool")
            notes.append(f"`{run_id}`: {tool} used {cpu:.0f} % of a core, so {tool} rather than "
                         "the server was the limit of that run.")
    return ["", "Note: " + " ".join(notes)] if notes else []


def section_e1a(results):
    ids = [f"e1a-{s}" for s in ("blocking", "async") if f"e1a-{s}" in results.runs]
    if not ids:
        return ""
    rows = []
    for label, key in (("real", "real_s"), ("user", "user_s"), ("sys", "sys_s")):
        rows.append([label] + [fmt(results.figure(i, key), 3, suffix=" s") for i in ids])
    rows.append(["iterations/s"] + [fmt(results.figure(i, "iterations_per_s"), 1) for i in ids])
    rows.append(["CPU mariadbd, % of one core (of the machine)"] +
                [results.cpu(i, "db") for i in ids])
    rows.append(["peak threads"] + [fmt(results.figure(i, "server_peak_threads"), 0) for i in ids])
    blog = {"real": ("7.410 s", "9.771 s"), "user": ("3.653 s", "6.707 s"),
            "sys": ("2.107 s", "1.399 s"), "iterations/s": ("135.0", "102.3")}
    for r in rows:
        r += list(blog.get(r[0], ("", "")))
    n = next((results.figure(i, "iterations") for i in ids if results.ok(i)), "N")
    return "\n".join([
        "## E1a — the /html workload in one process, no HTTP",
        "",
        f"Each server's `--standalone {n}`: two queries and both tables rendered, "
        f"{n} times; blocking runs them one after the other, async keeps both queries of "
        "an iteration in flight on its event loop. Timed like `time` (real, user, sys of the "
        "process).",
        "",
        table([""] + [i[4:] for i in ids] + ["blog: PHP", "blog: Node.js + mysql"], rows),
        "",
    ])


def section_e1b(results):
    columns, ids = [], []
    for server in SERVERS:
        for c in (1, 20, 200):
            run_id = f"e1b-{server}-c{c}"
            if run_id in results.runs:
                columns.append(f"{results.label(server)} -c {c}")
                ids.append(run_id)
    if not ids:
        return ""
    counts = ", ".join(
        f"-c {results.runs[i].get('concurrency')} -n {results.runs[i].get('requests')}"
        for i in ids[:3])
    blog = table(["value", "PHP+Apache -c 20", "PHP+Apache -c 200", "Node.js -c 20",
                  "Node.js -c 200"],
                 [["requests/s", 1173, 1146, 119, 114], ["response time (ms)", 17, 174, 167, 1750],
                  ["throughput (MiB/s)", 21, 20, 2, 2]])
    plots = [p for p in ("e1b-requests-per-s.png", "e1b-latency.png")
             if os.path.exists(os.path.join(results.directory, p))]
    return "\n".join([
        "## E1b — /html under ApacheBench",
        "",
        f"`ab -r` ({counts}) against `/html` (two queries, both tables, "
        f"{fmt(results.figure(ids[0], 'document_bytes'), 0)} bytes); every run on a "
        "freshly started server. The cluster columns are the follow-up the post proposed: the async server "
        f"replicated on every core (`--workers 0`, {results.cores} workers here).",
        "",
        table(["value"] + columns, load_rows(results, ids)),
    ] + table_notes(results, ids) + [
        "",
        "The blog's figures (four cores, 2011), for the shape rather than the values; at -c 1 it "
        "measured 9.4 ms (PHP+Apache) and 8.9 ms (Node.js):",
        "",
        blog,
        "",
    ] + [f"![{p}]({p})" for p in plots] + [""])


def section_e2(results):
    ids = [f"e2-{s}" for s in ("blocking", "async") if f"e2-{s}" in results.runs]
    if not ids:
        return ""
    first = results.runs[ids[0]]
    return "\n".join([
        "## E2 — hello world",
        "",
        f"`ab -r -c {first.get('concurrency')} -n {first.get('requests')}` against `/hello` "
        "(`Hello World! 10\\n`). The blog, through nginx: PHP-FPM 5042 req/s, Node.js 5356 req/s, "
        "no failures, longest request about 3.2–3.7 s (a SYN retransmit).",
        "",
        table(["value"] + [results.label(results.runs[i]["server"]) for i in ids],
              load_rows(results, ids)),
    ] + table_notes(results, ids) + [""])


def section_e3(results):
    ids, columns = [], []
    for server in ("blocking", "async"):
        for suffix, label in (("", ""), ("-l", " with -l")):
            run_id = f"e3-{server}{suffix}"
            if run_id in results.runs:
                ids.append(run_id)
                columns.append(f"{server}{label}")
    if not ids:
        return ""
    first = results.runs[ids[0]]
    extra = [
        ["of which Length failures"] + [fmt(results.figure(i, "failed_length"), 0) for i in ids],
        ["complete requests"] + [fmt(results.figure(i, "complete"), 0) for i in ids],
    ]
    return "\n".join([
        "## E3 — /factorial and ab's Length failures",
        "",
        f"`ab -r -n {first.get('requests')} -c {first.get('concurrency')}` against `/factorial` "
        "(n! for a random n in 10..40, so the body length varies), then the same with `-l`. ab "
        "takes the first response's length as the reference and counts every other length as "
        "'Failed requests (Length)'; the blog saw 970 of 1000. `-l` accepts varying lengths.",
        "",
        table(["value"] + columns, load_rows(results, ids, extra)),
    ] + table_notes(results, ids) + [""])


def section_e4(results):
    parts = []
    for server in ("blocking", "async"):
        run = results.runs.get(f"e4-tasks-{server}")
        if run is None:
            continue
        if run.get("status") != "ok":
            parts += [f"**{server}**: the demo failed: {run.get('cause')}", ""]
            continue
        f = run["figures"]
        order = "after" if f["task_two_after_response"] else "before"
        parts += [f"**{server}** — response after {f['response_ms']:.0f} ms, task two logged "
                  f"{order} the response arrived ({f['task_two_after_task_one_ms']} ms after task "
                  "one):", "", "```"] + run["timeline"] + ["```", ""]
    ids = [f"e4-siege-{s}" for s in ("blocking", "async") if f"e4-siege-{s}" in results.runs]
    siege_part = []
    if ids:
        first = results.runs[ids[0]]
        def row(label, key, digits):
            return [label] + [fmt(results.figure(i, key), digits) for i in ids]

        extra = [row("siege transactions", "complete", 0),
                 row("availability (%)", "availability_pct", 2),
                 row("siege concurrency", "siege_concurrency", 2)]
        siege_part = [
            f"### /json under `siege -c {first.get('concurrency')} -d 1 "
            f"-t {first.get('duration')}`",
            "",
            "siege 4.0.7 with `scripts/siegerc` (a `limit` above 255 users; HTTP/1.1, a new "
            "connection per transaction, as the blog's defaults). The mean is siege's "
            "'Concurrency' divided by its transaction rate (siege prints single times with 10 ms "
            "resolution, so its percentiles are multiples of 10 ms). The blog: about 990 trans/s "
            "for both at 500 users.",
            "",
            table(["value"] + [results.label(results.runs[i]["server"]) for i in ids],
                  load_rows(results, ids, extra)),
        ] + table_notes(results, ids) + [""]
    if not parts and not siege_part:
        return ""
    delay = next((results.figure(f"e4-tasks-{s}", "delay_ms") for s in ("blocking", "async")
                  if results.figure(f"e4-tasks-{s}", "delay_ms") is not None), None)
    return "\n".join([
        "## E4 — the deferred task, and /json under siege",
        "",
        f"### `/tasks?delay_ms={delay}`",
        "",
        "Task one is logged, task two is scheduled after the delay, task three is the response. "
        "Server lines are the server's stderr (UTC); client lines are this script's request.",
        "",
    ] + parts + siege_part)


def section_cpu(results):
    if not os.path.exists(os.path.join(results.directory, "cpu-split.png")):
        return ""
    return "\n".join([
        "## CPU split",
        "",
        "Where the machine's CPU went during the heaviest run of each experiment, in % of the "
        "machine: the server, mariadbd, the load tool, and everything else.",
        "",
        "![cpu-split.png](cpu-split.png)",
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
    return "\n".join([
        f"- run: {settings.get('started', '?')} UTC, size `{settings.get('size', '?')}`, "
        f"command `{settings.get('command', '?')}`",
        f"- machine: {results.cores} cores ({cpu}), {platform.system()} {platform.release()}",
        f"- build: `{build_dir}` ({build_type}"
        f"{', ' + sanitize + ' sanitizer' if sanitize else ''})",
        f"- tools: {ab_version}; {siege_version}; {mariadb}",
        "- the load tool, the server and mariadbd share these cores: compare the models within "
        "this run, not with the blog's absolute figures.",
    ])


def write(directory, build_dir=""):
    """Writes results.csv, the plots and report.md; returns the plots not drawn (their
    errors)."""
    results = Results(directory, load_runs(directory))
    settings = read_settings(directory)
    write_csv(results, os.path.join(directory, "results.csv"))
    try:
        plot_errors = plots.draw(results)
    except (OSError, subprocess.SubprocessError) as error:
        plot_errors = [str(error)]

    claims = findings.evaluate(results)
    sections = [
        "# modelbench: the blog experiments, reproduced on this machine",
        "",
        environment(results, settings, build_dir),
        "",
        section_checks(directory),
        section_e1a(results),
        section_e1b(results),
        section_e2(results),
        section_e3(results),
        section_e4(results),
        section_cpu(results),
        "## Findings",
        "",
        "Each claim of the posts, the evidence measured in this run, and a verdict computed from "
        "those figures with the criterion shown.",
        "",
        table(["claim (source)", "evidence in this run", "verdict"],
              [[c.claim, c.evidence, f"**{c.verdict}**"] for c in claims]),
        "",
        section_failures(directory),
        "## Files",
        "",
        "`results.csv` (one row per run, every figure a column), `raw/` (every tool's output, the "
        "servers' logs and their /status after each run), `runs/` (one JSON per run), `plots/` "
        "(gnuplot data and scripts).",
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
    args = parser.parse_args()
    plot_errors = write(args.dir, args.build_dir)
    for error in plot_errors:
        print(f"report: plot not drawn: {error}", file=sys.stderr)
    return 1 if plot_errors else 0


if __name__ == "__main__":
    sys.exit(main())
