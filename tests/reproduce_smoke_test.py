"""CTest `reproduce_smoke`: runs `scripts/reproduce.sh --smoke` against the servers of the build
tree CTest runs in (BUILD_DIR) and checks what it produced:
  - the script succeeded and every run of the smoke plan (modelbench.reproduce.plan: every
    experiment for both servers, and async cluster in E1b) is in results.csv;
  - every figure of every run in results.csv is positive (CPU of mariadbd only where the
    endpoint queries it; siege's 10-ms-resolution percentiles, and CPU ticks of runs shorter
    than half a second, may read 0);
  - no failed and no non-2xx requests, except E3's expected Length failures without -l;
  - report.md has every experiment's section with both models, no missing figure, a verdict
    for every finding, and non-empty PNG plots.

  reproduce_smoke_test.py SOURCE_DIR BUILD_DIR     (scripts/ on PYTHONPATH, as CTest runs it)
"""

import csv
import os
import shutil
import subprocess
import sys

from modelbench.reproduce import plan

EXPECTED_IDS = [step.run_id for step in plan.steps("smoke")]
LOAD_FIGURES = ["complete", "requests_per_s", "mean_ms", "max_ms", "transfer_kib_s",
                "duration_s", "wall_s", "client_cpu_s", "server_peak_threads",
                "server_peak_rss_mib"]
# /proc counts CPU in 10 ms ticks: a run shorter than this may truly read 0 ticks.
TICK_FIGURES = ["server_cpu_s", "machine_busy_pct"]
TICK_RESOLVED_S = 0.5
PERCENTILES = ["p50_ms", "p90_ms", "p99_ms"]
STANDALONE_FIGURES = ["iterations", "real_s", "user_s", "sys_s", "iterations_per_s",
                      "db_cpu_s", "server_peak_rss_mib"]
TASKS_FIGURES = ["delay_ms", "response_ms", "task_two_after_task_one_ms"]
DATABASE_ENDPOINTS = ("/html", "/json")
REPORT_SECTIONS = ["## E1a", "## E1b", "## E2", "## E3", "## E4", "## Findings"]

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
            expect(value is not None and value >= 0,
                   f"{row['id']}: {column} is '{row.get(column)}'")
        else:
            expect(value is not None and value > 0,
                   f"{row['id']}: {column} is '{row.get(column)}', expected a positive figure")


def check_row(row):
    run_id, tool = row["id"], row["tool"]
    expect(row["status"] == "ok", f"{run_id}: status {row['status']}: {row['cause']}")
    if row["status"] != "ok":
        return
    if tool == "standalone":
        check_positive(row, STANDALONE_FIGURES)
        return
    if tool == "tasks":
        check_positive(row, TASKS_FIGURES)
        return
    ticks = TICK_FIGURES + (["db_cpu_s"] if row["endpoint"] in DATABASE_ENDPOINTS else [])
    allow_zero = PERCENTILES if tool == "siege" else []
    if number(row, "wall_s") is not None and number(row, "wall_s") < TICK_RESOLVED_S:
        allow_zero = allow_zero + ticks
    check_positive(row, LOAD_FIGURES + PERCENTILES + ticks, allow_zero)
    failed, length = number(row, "failed"), number(row, "failed_length")
    expect(number(row, "non2xx") == 0, f"{run_id}: {row['non2xx']} non-2xx responses")
    if row["experiment"] == "E3" and not run_id.endswith("-l"):
        # ab takes the first length as the reference: a random factorial differs most times.
        expect(length is not None and length > 0, f"{run_id}: no Length failures, expected some")
        expect(failed == length, f"{run_id}: {failed} failed, not all of them Length failures")
    else:
        expect(failed == 0, f"{run_id}: {row['failed']} failed requests")


def check_report(directory):
    path = os.path.join(directory, "report.md")
    if not os.path.exists(path):
        problems.append("no report.md")
        return
    with open(path) as f:
        report = f.read()
    for section in REPORT_SECTIONS:
        expect(section in report, f"report.md: no section '{section}'")
    for header in ("| blocking -c 200 |", "| async -c 200 |", "async cluster",
                   "| blocking | async |"):
        expect(header in report, f"report.md: no column '{header}'")
    findings = report.split("## Findings", 1)[-1]
    expect("**not measured**" not in findings, "report.md: a finding is 'not measured'")
    tables = report.split("## Findings", 1)[0].split("## E1a", 1)[-1]
    for line in tables.splitlines():
        # '–' marks a figure that was not measured; the blog columns leave cells empty instead.
        expect(not (line.startswith("|") and " – " in line),
               f"report.md: missing figure in '{line}'")
    for png in ("e1b-requests-per-s.png", "e1b-latency.png", "cpu-split.png"):
        png_path = os.path.join(directory, png)
        ok = os.path.exists(png_path) and os.path.getsize(png_path) > 1000
        if ok:
            with open(png_path, "rb") as f:
                ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
        expect(ok, f"{png}: missing, empty or not a PNG")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source_dir, build_dir = sys.argv[1], sys.argv[2]
    results = os.path.join(build_dir, "Testing", "reproduce-smoke")
    shutil.rmtree(results, ignore_errors=True)
    command = [os.path.join(source_dir, "scripts", "reproduce.sh"), "--smoke",
               "--results-dir", results]
    print("running:", " ".join(command), "(BUILD_DIR=" + build_dir + ")", flush=True)
    status = subprocess.run(command, env={**os.environ, "BUILD_DIR": build_dir}).returncode
    expect(status == 0, f"reproduce.sh --smoke exited with {status}")

    csv_path = os.path.join(results, "results.csv")
    rows = {}
    if os.path.exists(csv_path):
        with open(csv_path, newline="") as f:
            rows = {row["id"]: row for row in csv.DictReader(f)}
    else:
        problems.append("no results.csv")
    for run_id in EXPECTED_IDS:
        expect(run_id in rows, f"results.csv: no row '{run_id}'")
    for row in rows.values():
        check_row(row)
    check_report(results)

    if problems:
        print(f"\n{len(problems)} problem(s) in {results}:")
        for problem in problems:
            print("  -", problem)
        return 1
    print(f"\nreproduce.sh --smoke: {len(rows)} runs, every check passed ({results})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
