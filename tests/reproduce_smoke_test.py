"""CTest `reproduce_smoke`: runs `scripts/reproduce.sh --smoke` against the servers of the build
tree CTest runs in (BUILD_DIR) and the real systems, and checks what it produced end to end (the
verdict rules, the calibration's and the crossover's arithmetic are the harness's own tests,
tests/harness):
  - the script succeeded, its last line says what it left running, the private MariaDB is as it
    was before (running or not), and no server process of this checkout outlived the run;
  - every run of the smoke plan (every experiment on every system, the clusters, the calibrated
    models and Node.js 4 with mysql-native) is in results.csv and succeeded;
  - every figure of every run is positive (CPU of mariadbd only where the endpoint queries it;
    siege's 10-ms-resolution percentiles, and CPU ticks of runs shorter than half a second, may
    read 0); no failed and no non-2xx requests, except E3's expected Length failures on
    /factorial and PHP-FPM's unix socket at -c 200 (the post's claim);
  - every load run of a model served directly (not behind nginx) has its CPU from /proc checked
    against the server's own /status,
    and the two agree; every run the plan warms up says what its warm-up did;
  - report.md has every experiment's section with the systems' columns, the model-against-real
    tables, a verdict for both sides of every claim and a cause beside every "not reproduced";
    summary.json has the same claims and verdicts, and the headline figures; the PNGs are drawn;
  - the calibration chose a cost for each model from E1b, the calibrated servers ran with it
    and their /status says so, and E5's servers report the cost of their point.

  reproduce_smoke_test.py SOURCE_DIR BUILD_DIR [RESULTS_DIR]
      (the results go to RESULTS_DIR, by default BUILD_DIR/Testing/reproduce-smoke)
"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys

import psutil

from modelbench import experiments
from modelbench.experiments.base import Context
from modelbench.engine import plan
from modelbench.report.verdicts import NOT_REPRODUCED, VERDICTS

LOAD_FIGURES = ["complete", "requests_per_s", "mean_ms", "max_ms", "transfer_kib_s",
                "duration_s", "wall_s", "client_cpu_s", "server_peak_threads",
                "server_peak_processes", "server_peak_rss_mib"]
SIEGES = ("siege", "ports-siege")
BYTE_COUNTERS = ("ab", "wrk", *SIEGES)
TICK_FIGURES = ["server_cpu_s", "machine_busy_pct"]
TICK_RESOLVED_S = 0.5
PERCENTILES = ["p50_ms", "p90_ms", "p99_ms"]
STANDALONE_FIGURES = ["iterations", "real_s", "user_s", "sys_s", "iterations_per_s",
                      "db_cpu_s", "server_peak_rss_mib"]
TASKS_FIGURES = ["delay_ms", "response_ms", "task_two_after_task_one_ms"]
DATABASE_ENDPOINTS = ("/html", "/json")
MODELS = ("blocking", "async")
SECTIONS = ["## Verdicts", "## What each experiment found", "## Findings", "## E1a", "## E1b",
            "## E1 on the post's Node.js", "## E2", "## E3", "## E4", "## Calibration", "## E5",
            "## E6", "## E7", "## E8", "## E9", "## E10", "## Model against the real system",
            "## How the runs were made", "## Warm-ups", "## Environment"]
COLUMNS = {"## E1a": "| php | blocking | blocking calibrated | node | async | async calibrated "
                      "| node4 | node4-native |",
           "## E2": "| php | blocking | node | async |"}
UNIX_SOCKET_RUNS = ("e2n-fpm-unix-c200-",)
EXPLAINED = ("no model of it", "the models have no second driver",
             "no calibrated variant")
SERVER_PROGRAMS = ("apache2", "node", "blocking-server", "async-server", "apache-server",
                   "node-server", "nginx", "php-fpm8.2")

problems = []


def expect(condition, message):
    if not condition:
        problems.append(message)


def number(row, column):
    try:
        return float(row[column])
    except (KeyError, ValueError):
        return None


def check_positive(row, columns, allow_zero=()):
    for column in columns:
        value = number(row, column)
        if column in allow_zero:
            expect(value is not None and value >= 0, f"{row['id']}: {column} is '{row[column]}'")
        else:
            expect(value is not None and value > 0,
                   f"{row['id']}: {column} is '{row.get(column)}', expected a positive figure")


def check_row(row, warmed):
    run_id, tool = row["id"], row["tool"]
    expect(row["status"] == "ok", f"{run_id}: status {row['status']}: {row['cause']}")
    if row["status"] != "ok":
        return
    if tool == "standalone":
        # A smoke loop takes tens of ms: its user or its sys time alone may round to 0 ticks.
        check_positive(row, STANDALONE_FIGURES, allow_zero=("user_s", "sys_s"))
        expect((number(row, "user_s") or 0) + (number(row, "sys_s") or 0) > 0,
               f"{run_id}: user_s and sys_s are both 0")
        return
    if tool == "tasks":
        check_positive(row, TASKS_FIGURES)
        return
    if tool in ("slow-headers", "slow-read"):
        # E11: slow clients send no whole requests; its figures are its probe's and how many
        # slowhttptest held.
        check_positive(row, ["probes", "peak_connected"])
        return
    ticks = TICK_FIGURES + (["db_cpu_s"] if row["endpoint"] in DATABASE_ENDPOINTS else [])
    allow_zero = PERCENTILES if tool in SIEGES else []  # its times have 10 ms resolution
    if (number(row, "wall_s") or 0) < TICK_RESOLVED_S or tool.startswith("idle-"):
        # E8: a server at its cap with idle connections serves the probe's few requests on
        # workers that each take less than a clock tick (Apache: 0.0 s over 2 s).
        allow_zero = allow_zero + ticks
    # openloop counts requests and their latency, not bytes.
    load_figures = [f for f in LOAD_FIGURES if f != "transfer_kib_s" or tool in BYTE_COUNTERS]
    check_positive(row, load_figures + PERCENTILES + ticks, allow_zero)
    if run_id in warmed:
        expect(row["warmup_s"] not in ("", "0"), f"{run_id}: no warm-up recorded")
    if row["system"] in MODELS and not row["server"].endswith("-nginx"):
        # Behind nginx the CPU is nginx's and the model's together, which no /status counts.
        expect(row["server_cpu_source"] == "/proc, checked against /status",
               f"{run_id}: server CPU from '{row['server_cpu_source']}'")
        expect(row["status_cpu_agrees"] == "1",
               f"{run_id}: /status counted {row['status_cpu_s']} s of CPU, /proc "
               f"{row['server_cpu_s']} s")
    failed, length = number(row, "failed"), number(row, "failed_length")
    if run_id.startswith(UNIX_SOCKET_RUNS):
        return  # the post's claim: PHP-FPM on its unix socket may fail at -c 200
    expect(number(row, "non2xx") == 0, f"{run_id}: {row['non2xx']} non-2xx responses")
    if row["experiment"] == "E3" and row["endpoint"] == "/factorial" and \
            not row["base"].endswith("-l"):
        # ab takes the first length as the reference: a random factorial differs most times.
        expect(length is not None and length > 0, f"{run_id}: no Length failures, expected some")
        expect(failed == length, f"{run_id}: {failed} failed, not all of them Length failures")
    elif tool == "ports-siege":
        # E10's client may run out of its few ports: those connects fail, and no other.
        expect(failed == number(row, "no_port"),
               f"{run_id}: {row['failed']} failed, {row['no_port']} of them for want of a port")
    else:
        expect(failed == 0, f"{run_id}: {row['failed']} failed requests")


def section(text, heading):
    level = heading.split()[0]
    match = re.search(rf"^{re.escape(heading)}.*?$(.*?)(?=^{level} |\Z)", text,
                      re.MULTILINE | re.DOTALL)
    return match.group(1) if match else ""


def check_report(directory, summary):
    text = open(os.path.join(directory, "report.md")).read()
    for heading in SECTIONS:
        expect(heading in text, f"report.md: no section '{heading}'")
    first = re.search(r"^## .*$", text, re.MULTILINE)
    expect(first and first.group(0) == "## Verdicts", "report.md does not open with its verdicts")
    for heading, columns in COLUMNS.items():
        expect(columns in section(text, heading), f"report.md {heading}: no table '{columns}'")
    expect("| node cluster ×" in section(text, "## E1b") and
           "| async cluster ×" in section(text, "## E1b"), "report.md E1b: no cluster columns")
    header = []
    for line in text.splitlines():
        if line.startswith("|  |"):
            header = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| requests/s |") or line.startswith("| mean response time"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            missing = [name for name, cell in zip(header, cells) if cell == "–"]
            expect(not missing, f"report.md: no figure for {missing} in '{line}'")
    models = section(text, "## Model against the real system")
    for pair in ("### blocking ↔ php", "### async ↔ node", "### async cluster ×"):
        expect(pair in models, f"report.md: no '{pair}' table")
    verdicts = [line for line in section(text, "## Verdicts").splitlines()
                if line.startswith("| E")]
    claims = summary["claims"]
    expect(len(verdicts) == len(claims) > 20, f"report.md Verdicts: {len(verdicts)} claims, "
           f"summary.json {len(claims)}")
    for row, claim in zip(verdicts, claims):
        # The claim, then each side's verdict and the statistic it rests on.
        cells = [c.strip().strip("*") for c in row.strip("|").split("|")][:4]
        del cells[2:3]
        expect(cells == [claim["key"], claim["real"]["verdict"], claim["models"]["verdict"]],
               f"report.md and summary.json disagree: {cells} vs {claim['key']}")
        expect(cells[1] in VERDICTS and cells[2] in VERDICTS, f"report.md Verdicts: {row}")
        for side in ("real", "models"):
            # Not measured only where there is nothing to measure: no model of it.
            expect(claim[side]["verdict"] != "not measured" or
                   claim[side]["evidence"].startswith(EXPLAINED),
                   f"{claim['key']} ({side}): not measured: {claim[side]['evidence']}")
    for claim in claims:
        for side in ("real", "models"):
            if claim[side]["verdict"] == NOT_REPRODUCED:
                expect(re.search(r"\d", claim[side]["cause"]) is not None,
                       f"{claim['key']} ({side}): not reproduced without a measured cause")
    expect(len(summary["headline"]) > 30, f"summary.json: {len(summary['headline'])} headline "
           "figures")
    for png in ("e1b-requests-per-s.png", "e1b-latency.png", "e5-crossover.png",
                "e6-database-latency.png", "e7-latency.png", "cpu-split.png"):
        path = os.path.join(directory, png)
        ok = os.path.exists(path) and os.path.getsize(path) > 1000 and \
            open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
        expect(ok, f"{png}: missing, empty or not a PNG")


def status_cost(directory, run_id):
    try:
        with open(os.path.join(directory, "raw", f"{run_id}.status.json")) as f:
            return json.load(f)[0]["cost"]
    except (OSError, ValueError, IndexError, KeyError):
        return {}


def check_costs(directory, rows):
    with open(os.path.join(directory, "calibration.json")) as f:
        choices = json.load(f)
    expect(sorted(choices) == ["async", "blocking"], f"calibration.json: {sorted(choices)}")
    for row in rows:
        if row["calibrated"] == "True" and row["status"] == "ok" and row["tool"] != "standalone":
            cost = choices.get(row["system"], {}).get("cost_us")
            expect(status_cost(directory, row["id"]).get("per_request_us") == cost,
                   f"{row['id']}: /status cost {status_cost(directory, row['id'])}, the "
                   f"calibration chose {cost} µs")
        match = re.match(r"^e5-.*-u(\d+)-b\d+$", row["id"])
        if match and row["status"] == "ok":
            expect(status_cost(directory, row["id"]).get("per_request_us") ==
                   int(match.group(1)), f"{row['id']}: /status cost "
                   f"{status_cost(directory, row['id'])}")


def leftover_servers(source):
    found = []
    for process in psutil.process_iter(["pid", "name", "cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if any(name in (process.info["name"] or "") for name in SERVER_PROGRAMS) and \
                source in cmdline:
            found.append(f"{process.info['pid']} {cmdline[:100]}")
    return found


def main():
    source, build = sys.argv[1], sys.argv[2]
    results = sys.argv[3] if len(sys.argv) > 3 else os.path.join(build, "Testing",
                                                                 "reproduce-smoke")
    shutil.rmtree(results, ignore_errors=True)
    db_before = subprocess.run(["bash", os.path.join(source, "scripts", "db.sh"), "status"],
                               capture_output=True).returncode == 0
    run = subprocess.run(["bash", os.path.join(source, "scripts", "reproduce.sh"), "--smoke",
                          "--results-dir", results], capture_output=True, text=True,
                         env={**os.environ, "BUILD_DIR": build})
    print(run.stdout[-3000:])
    expect(run.returncode == 0, f"reproduce.sh exited {run.returncode}: {run.stderr[-2000:]}")
    last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    expect(last.startswith("left running: "), f"the last line is not 'left running: ': {last}")
    db_after = subprocess.run(["bash", os.path.join(source, "scripts", "db.sh"), "status"],
                              capture_output=True).returncode == 0
    expect(db_before == db_after, f"the private MariaDB ran before: {db_before}, after: "
           f"{db_after}")
    expect(not leftover_servers(source), f"servers left: {leftover_servers(source)}")

    with open(os.path.join(results, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    ctx = Context("smoke", ["php", "node", "blocking", "async"], calibrated=True)
    planned = {f"{r.base}-b{number}": r for e in experiments.ALL
               for _, number, r in plan.planned_runs(e.plan(ctx))}
    ids = {row["id"] for row in rows}
    missing = [run_id for run_id in planned if run_id not in ids]
    expect(not missing, f"runs of the plan missing in results.csv: {sorted(missing)}")
    warmed = {run_id for run_id, run in planned.items() if run.warm}
    for row in rows:
        check_row(row, warmed)
    with open(os.path.join(results, "summary.json")) as f:
        summary = json.load(f)
    check_report(results, summary)
    check_costs(results, rows)
    for problem in problems:
        print(f"FAIL: {problem}")
    print(f"reproduce_smoke: {len(rows)} runs checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
