"""CTest `reproduce_smoke`: runs `scripts/reproduce.sh --smoke` against the servers of the build
tree CTest runs in (BUILD_DIR) and checks what it produced:
  - the script succeeded, its last line says what it left running, the private MariaDB is as it
    was before (running or not), and no server process of this checkout outlived the run;
  - every run of the smoke plan (modelbench.reproduce.plan: the calibration, every experiment on
    php, node, blocking and async, the cluster variants and the calibrated models in E1a and E1b,
    E5's sweep) is in results.csv;
  - every figure of every run in results.csv is positive (CPU of mariadbd only where the
    endpoint queries it; siege's 10-ms-resolution percentiles, and CPU ticks of runs shorter
    than half a second, may read 0);
  - no failed and no non-2xx requests, except E3's expected Length failures without -l;
  - every load run of a model has its CPU from /proc checked against the server's own /status,
    and the two agree (within 5 %, or a clock tick per process);
  - report.md has every experiment's section with the four systems' columns (and the
    calibrated models' in E1a and E1b), no missing figure, the model-against-real section with
    every row for each pair, a verdict word for both sides of every claim, a cause beside every
    "not reproduced", E6's tables and the round trips each model pays, and non-empty PNGs;
  - the calibration: a chosen cost for each model that is one of its measured points, the
    calibrated runs' servers reporting that cost in /status, E5's servers the cost of their
    point; the report's calibration table, the claims under calibration and the targets;
  - the verdicts follow the ranges over the rounds: in a copy of the results with a second
    round written in, a claim whose rounds fall on both sides of its criterion is judged
    inconclusive, and reproduced or not reproduced when both rounds agree;
  - E5's crossovers follow the measured points: in a copy whose requests/s are rewritten, the
    report interpolates the crossing costs that were written in, says "not within the sweep"
    when there is none, and the stability target against another run holds or not by ±20 %;
  - the calibration's search finds the cost of a model whose ratio is a known function of the
    cost, from the same starting points the real search uses.

  reproduce_smoke_test.py SOURCE_DIR BUILD_DIR [RESULTS_DIR]
      (scripts/ on PYTHONPATH, as CTest runs it; the results go to RESULTS_DIR, by default
      BUILD_DIR/Testing/reproduce-smoke)
"""

import copy
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import psutil

from modelbench.repeats import VERDICTS
from modelbench.reproduce import calibration, e5, plan, report

# The calibration's search is one step whose runs (cal-MODEL-pN) it chooses as it goes.
EXPECTED_IDS = [step.run_id for step in plan.steps("smoke") if step.tool != "calibrate"]
LOAD_FIGURES = ["complete", "requests_per_s", "mean_ms", "max_ms", "transfer_kib_s",
                "duration_s", "wall_s", "client_cpu_s", "server_peak_threads",
                "server_peak_processes", "server_peak_rss_mib"]
# /proc counts CPU in 10 ms ticks: a run shorter than this may truly read 0 ticks.
TICK_FIGURES = ["server_cpu_s", "machine_busy_pct"]
TICK_RESOLVED_S = 0.5
PERCENTILES = ["p50_ms", "p90_ms", "p99_ms"]
STANDALONE_FIGURES = ["iterations", "real_s", "user_s", "sys_s", "iterations_per_s",
                      "db_cpu_s", "server_peak_rss_mib"]
TASKS_FIGURES = ["delay_ms", "response_ms", "task_two_after_task_one_ms"]
DATABASE_ENDPOINTS = ("/html", "/json")
REPORT_SECTIONS = ["## Calibration", "## E1a", "## E1b", "## E2", "## E3", "## E4", "## E5",
                   "## E6", "### What each model pays per round trip",
                   "## Model against the real system", "### Verdicts", "## Findings",
                   "## The posts' claims under calibration", "## Targets of the calibrated models"]
MODELS = ("blocking", "async")
FOUR = "| php | blocking | node | async |"
SIX = "| php | blocking | blocking calibrated | node | async | async calibrated |"
E1_CLAIMS = 8
# The targets: requests/s and CPU per request at three concurrencies for two models, the
# headline, the crossover's stability (a row saying it needs a second run).
TARGETS = 2 * 2 * 3 + 1 + 1
CLAIMS = 16
SERVER_PROGRAMS = ("apache2", "node", "blocking-server", "async-server", "apache-server",
                   "node-server")

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
    if row["system"] in MODELS:
        expect(row["server_cpu_source"] == "/proc, checked against /status",
               f"{run_id}: server CPU from '{row['server_cpu_source']}'")
        expect(row["status_cpu_agrees"] == "1",
               f"{run_id}: /status counted {row['status_cpu_s']} s of CPU, /proc "
               f"{row['server_cpu_s']} s")
    failed, length = number(row, "failed"), number(row, "failed_length")
    expect(number(row, "non2xx") == 0, f"{run_id}: {row['non2xx']} non-2xx responses")
    if row["experiment"] == "E3" and not row["base"].endswith("-l"):
        # ab takes the first length as the reference: a random factorial differs most times.
        expect(length is not None and length > 0, f"{run_id}: no Length failures, expected some")
        expect(failed == length, f"{run_id}: {failed} failed, not all of them Length failures")
    else:
        expect(failed == 0, f"{run_id}: {row['failed']} failed requests")


def section(report_text, heading):
    """The text of a section, from its heading to the next heading of the same level."""
    level = heading.split()[0]
    match = re.search(rf"^{re.escape(heading)}.*?$(.*?)(?=^{level} |\Z)", report_text,
                      re.MULTILINE | re.DOTALL)
    return match.group(1) if match else ""


def table_rows(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def check_report(directory, cores):
    path = os.path.join(directory, "report.md")
    if not os.path.exists(path):
        problems.append("no report.md")
        return
    with open(path) as f:
        text = f.read()
    for heading in REPORT_SECTIONS:
        expect(heading in text, f"report.md: no section '{heading}'")
    nine = (f"| php | blocking | blocking calibrated | node | async | async calibrated | "
            f"node cluster ×{cores} | async cluster ×{cores} | async cluster ×{cores} calibrated |")
    for heading, header, count in (("## E1a", SIX, 1), ("## E1b", nine, 3), ("## E2", FOUR, 2),
                                   ("## E3", "| php | php -l | blocking | blocking -l | node | "
                                    "node -l | async | async -l |", 1), ("## E4", FOUR, 2)):
        found = section(text, heading).count(header)
        expect(found == count, f"report.md {heading}: {found} tables with the columns "
               f"'{header}', expected {count}")
    experiments = text.split("## E1a", 1)[-1].split("## CPU split", 1)[0]
    for line in table_rows(experiments):
        # '–' marks a figure that was not measured; ranges are empty in a single round.
        expect(" – " not in line, f"report.md: missing figure in '{line}'")
    check_models(section(text, "## Model against the real system"), cores)
    check_findings(text)
    check_calibration_report(text)
    check_e5_report(section(text, "## E5"))
    for png in ("e1b-requests-per-s.png", "e1b-latency.png", "cpu-split.png",
                "e5-crossover.png", "e6-database-latency.png"):
        png_path = os.path.join(directory, png)
        ok = os.path.exists(png_path) and os.path.getsize(png_path) > 1000
        if ok:
            with open(png_path, "rb") as f:
                ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
        expect(ok, f"{png}: missing, empty or not a PNG")


def check_models(text, cores):
    """Each pair's table holds requests/s at every concurrency, the shape, the CPU per request
    of the server and of mariadbd, threads and processes, every cell measured."""
    pairs = {"### blocking ↔ php": 18, "### async ↔ node": 18,
             f"### async cluster ×{cores} ↔ node cluster ×{cores}": 11}
    for heading, rows_expected in pairs.items():
        rows = table_rows(section(text, heading))[2:]
        expect(len(rows) == rows_expected,
               f"report.md '{heading}': {len(rows)} rows, expected {rows_expected}")
        labels = " ".join(row.split("|")[1] for row in rows)
        for needed in ["requests/s, -c 1", "requests/s, -c 20", "requests/s, -c 200",
                       "shape", "server CPU per /html request", "mariadbd CPU per /html request",
                       "peak threads", "peak processes"]:
            expect(needed in labels, f"report.md '{heading}': no row '{needed}'")
        for row in rows:
            expect(" – " not in row, f"report.md '{heading}': missing figure in '{row}'")
    verdicts = table_rows(section(text, "### Verdicts"))[2:]
    expect(len(verdicts) == CLAIMS, f"report.md Verdicts: {len(verdicts)} claims, expected "
           f"{CLAIMS}")
    for row in verdicts:
        cells = [c.strip().strip("*") for c in row.strip("|").split("|")]
        expect(len(cells) == 3 and cells[1] in VERDICTS and cells[2] in VERDICTS,
               f"report.md Verdicts: not a verdict word for both sides in '{row}'")
        expect("not measured" not in cells, f"report.md Verdicts: a claim not measured: {row}")


def check_findings(text):
    rows = table_rows(section(text, "## Findings"))[2:]
    expect(len(rows) == 2 * CLAIMS, f"report.md Findings: {len(rows)} rows, expected 2 per "
           "claim")
    for row in rows:
        if "**not reproduced**" in row:
            cause = row.split("**Cause:**", 1)[1] if "**Cause:**" in row else ""
            expect(re.search(r"\d", cause) is not None,
                   f"report.md Findings: a 'not reproduced' without a measured cause: {row}")


def check_inconclusive(directory):
    """Rewrites a copy of the results with a second round of the async server's E1b runs and
    checks the models' cluster verdict against the round's gains: both rounds at ×1.0 give
    'not reproduced', both at ×1.6 'reproduced', one of each 'inconclusive'."""
    with tempfile.TemporaryDirectory(prefix="reproduce_smoke.") as work:
        copy_dir = os.path.join(work, "results")
        shutil.copytree(directory, copy_dir, ignore=shutil.ignore_patterns("raw"))
        runs = report.load_runs(copy_dir)
        for gains, expected in (((1.0, 1.0), "not reproduced"), ((1.6, 1.6), "reproduced"),
                                ((1.0, 1.6), "inconclusive")):
            for c in (20, 200):
                single = runs[f"e1b-async-c{c}-r1"]
                rate = single["figures"]["requests_per_s"]
                for round_, gain in enumerate(gains, 1):
                    for base, value in ((f"e1b-async-c{c}", rate),
                                        (f"e1b-async-cluster-c{c}", rate * gain)):
                        record = copy.deepcopy(runs[f"{base}-r1"])
                        record.update(id=f"{base}-r{round_}", round=round_)
                        record["figures"]["requests_per_s"] = value
                        with open(os.path.join(copy_dir, "runs", f"{record['id']}.json"),
                                  "w") as f:
                            json.dump(record, f)
            report.write(copy_dir)
            with open(os.path.join(copy_dir, "report.md")) as f:
                verdicts = section(f.read(), "### Verdicts")
            row = next((line for line in table_rows(verdicts) if "| E1b cluster |" in line), "")
            got = row.strip("|").split("|")[-1].strip().strip("*") if row else "no row"
            expect(got == expected, f"cluster gains ×{gains[0]} and ×{gains[1]} in two rounds: "
                   f"models' verdict '{got}', expected '{expected}'")


def cells_of(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def check_calibration(directory, rows):
    """calibration.json: a cost for each model, chosen among the points it measured, each point
    a run with its flag; every calibrated server ran with the chosen cost, and E5's servers
    with their point's, as their own /status (or the standalone report) says."""
    choices = calibration.read(directory)
    expect(sorted(choices) == sorted(plan.CALIBRATED_AGAINST),
           f"calibration.json: models {sorted(choices)}, expected "
           f"{sorted(plan.CALIBRATED_AGAINST)}")
    for model, choice in choices.items():
        points = choice.get("points", [])
        expect(bool(points) and choice.get("chosen") in points,
               f"calibration.json {model}: the chosen cost is not one of the measured points")
        expect(choice.get("target_ratio", 0) > 0, f"calibration.json {model}: no target ratio")
        for point in points:
            row = rows.get(point["run_id"], {})
            expect(row.get("server_flags") == f"--cpu-per-row-ns {point['per_row_ns']}",
                   f"{point['run_id']}: server flags '{row.get('server_flags')}', expected "
                   f"--cpu-per-row-ns {point['per_row_ns']}")
    for run_id, row in rows.items():
        server = plan.SERVERS.get(row["server"])
        if server is not None and server.calibrated and server.system in choices:
            ns = choices[server.system]["chosen"]["per_row_ns"]
            expect(row["server_flags"].endswith(f"--cpu-per-row-ns {ns}"),
                   f"{run_id}: server flags '{row['server_flags']}', expected the calibrated "
                   f"--cpu-per-row-ns {ns}")
            if row["tool"] == "standalone":
                if ns:
                    with open(os.path.join(directory, "raw", f"{run_id}.standalone.txt")) as f:
                        expect(f" {ns} ns per row" in f.read(),
                               f"{run_id}: the standalone report has no cost of {ns} ns per row")
            else:
                check_status_cost(directory, run_id, "per_row_ns", ns)
        match = e5.RUN.match(row["base"])
        if match:
            check_status_cost(directory, run_id, "per_request_us", int(match.group(3)))


def check_status_cost(directory, run_id, key, value):
    """Every worker's /status after the run reports the cost setting, and spent CPU on it."""
    try:
        with open(os.path.join(directory, "raw", f"{run_id}.status.json")) as f:
            documents = json.load(f)
    except (OSError, ValueError):
        documents = []
    expect(bool(documents), f"{run_id}: no /status after the run")
    for document in documents:
        cost = document.get("cost", {})
        expect(cost.get(key) == value, f"{run_id}: /status cost {cost}, expected {key} {value}")
        expect(not value or cost.get("spent_cpu_s", 0) > 0,
               f"{run_id}: /status says no CPU was spent on a cost of {value}")


def check_calibration_report(text):
    chosen = [r for r in table_rows(section(text, "## Calibration")) if "↔" in r][1:]
    expect(len(chosen) == 2, f"report.md Calibration: {len(chosen)} models, expected 2")
    for row in chosen:
        expect("--cpu-per-row-ns" in row and " – " not in row,
               f"report.md Calibration: no cost or a missing figure in '{row}'")
    under = table_rows(section(text, "## The posts' claims under calibration"))
    verdicts = [r for r in under if r.count("|") == 5][2:]
    expect(len(verdicts) == E1_CLAIMS, f"report.md claims under calibration: {len(verdicts)} "
           f"claims, expected {E1_CLAIMS}")
    for row in verdicts:
        cells = [c.strip("*") for c in cells_of(row)]
        expect(all(c in VERDICTS for c in cells[1:]) and "not measured" not in cells,
               f"report.md claims under calibration: not a verdict for every side in '{row}'")
    for row in (r for r in under if r.count("|") == 4):
        if "**not reproduced**" in row:
            cause = row.split("**Cause:**", 1)[1] if "**Cause:**" in row else ""
            expect(re.search(r"\d", cause) is not None,
                   f"report.md claims under calibration: no measured cause in '{row}'")
    targets = table_rows(section(text, "## Targets of the calibrated models"))[2:]
    expect(len(targets) == TARGETS, f"report.md Targets: {len(targets)} rows, expected "
           f"{TARGETS}")
    for row in targets:
        verdict = cells_of(row)[-1]
        expect(verdict.split(" (")[0] in ("holds", "**does not hold**", "inconclusive") or
               verdict == "not measured" and "needs a second run" in row,
               f"report.md Targets: verdict '{verdict}' in '{row}'")


def check_e5_report(text):
    costs = plan.E5_SIZES["smoke"]["costs_us"]
    for c in plan.E5_SIZES["smoke"]["concurrencies"]:
        part = section(text, f"### -c {c}")
        rows = table_rows(part)[2:2 + len(costs)]
        expect([cells_of(r)[0] for r in rows] == [f"{u / 1000:g}" for u in costs],
               f"report.md E5 -c {c}: rows {[cells_of(r)[0] for r in rows]}, expected the "
               f"costs {costs}")
        found = re.findall(r"^- the .*: \*\*(.*?)\*\*", part, re.MULTILINE)
        expect(len(found) == 2 and all(re.fullmatch(r"[\d.]+ ms|not within the sweep|from .*",
                                                    f) for f in found),
               f"report.md E5 -c {c}: crossovers {found}")


def write_e5_rates(directory, runs, rates):
    """Rewrites the requests/s of the -c 20 E5 runs: rates[server] is one value per cost."""
    for key, values in rates.items():
        for u, value in zip(plan.E5_SIZES["smoke"]["costs_us"], values):
            record = copy.deepcopy(runs[f"e5-{key}-c20-u{u}-r1"])
            record["figures"]["requests_per_s"] = value
            with open(os.path.join(directory, "runs", f"{record['id']}.json"), "w") as f:
                json.dump(record, f)


def check_crossovers(directory):
    """In copies whose E5 requests/s are rewritten: the crossing costs written in are the ones
    reported, none is 'not within the sweep', and the stability target against another copy
    holds within ±20 % and not beyond."""
    blocking = [500, 400]
    with tempfile.TemporaryDirectory(prefix="reproduce_smoke.") as work:
        dirs = {}
        for name, async_rates, cluster_rates in (("base", [1000, 200], [2000, 200]),
                                                 ("near", [1000, 190], [2000, 200]),
                                                 ("far", [1000, 380], [2000, 500])):
            dirs[name] = os.path.join(work, name)
            shutil.copytree(directory, dirs[name], ignore=shutil.ignore_patterns("raw"))
            write_e5_rates(dirs[name], report.load_runs(directory),
                           {"blocking": blocking, "async": async_rates,
                            "async-cluster": cluster_rates})
        # The logarithm of the ratio is interpolated. base: blocking ÷ async 0.5 → 2 crosses 1
        # at half the sweep's 1 ms; ÷ cluster 0.25 → 2 at two thirds. near: ÷ async 0.5 →
        # 400/190 at 0.482 ms (the base 4 % later); far: ÷ async 0.5 → 400/380 at 0.931 ms (the
        # base 46 % earlier), ÷ cluster never above 0.8.
        for against, expected in (("near", ["holds", "holds"]),
                                  ("far", ["**does not hold**", "**does not hold**"])):
            report.write(dirs["base"], against=dirs[against])
            with open(os.path.join(dirs["base"], "report.md")) as f:
                text = f.read()
            part = section(section(text, "## E5"), "### -c 20")
            for name, cost in (("overtakes the single event loop", "0.500 ms"),
                               ("stops keeping up with the blocking model", "0.667 ms")):
                expect(f"{name}: **{cost}**" in part,
                       f"E5 rewritten to cross at {cost}: '{name}' not reported so")
            rows = [r for r in table_rows(section(text, "## Targets of the calibrated models"))
                    if "E5 crossover" in r and "-c 20" in r]
            got = [cells_of(r)[-1] for r in rows]
            expect(got == expected, f"E5 stability against '{against}': {got}, expected "
                   f"{expected}")
        report.write(dirs["far"])
        with open(os.path.join(dirs["far"], "report.md")) as f:
            part = section(section(f.read(), "## E5"), "### -c 20")
        expect("stops keeping up with the blocking model: **not within the sweep**" in part,
               "E5 rewritten with the cluster ahead at every cost: not 'not within the sweep'")


def check_search():
    """The search against a model whose CPU grows by half the cost it is given and then
    faster (so neither the first guess nor a straight line hits it), and against one that
    already spends more than its real system at cost 0: it ends within the tolerance, at a
    point it measured, in at most the points it may take."""
    def model(own_ms):
        def run(step):
            cost_ms = int(step.flags[1]) * calibration.HTML_ROWS / 1e6
            server_ms = own_ms + 0.5 * cost_ms + 0.05 * cost_ms ** 2
            return {"status": "ok", "figures": {"server_cpu_s": server_ms, "db_cpu_s": 0.5,
                                                "complete": 1000}}
        return run

    # Ratio 4 (2 ms against 0.5 ms): 0.3 + 0.5 c + 0.05 c² = 2 at c = 2.681 ms.
    for own_ms, expected_ms in ((0.3, 2.681), (2.5, 0.0)):
        with tempfile.TemporaryDirectory(prefix="reproduce_smoke.") as work:
            os.makedirs(os.path.join(work, "runs"))
            with open(os.path.join(work, "runs", "cal-php-r1.json"), "w") as f:
                json.dump({"id": "cal-php-r1", "base": "cal-php", "round": 1, "status": "ok",
                           "server": "php", "figures": {"server_cpu_s": 2.0, "db_cpu_s": 0.5,
                                                        "complete": 1000}}, f)
            step = plan.Step("cal-blocking", "cal-blocking", 1, "search", "calibrate",
                             "calibration", plan.SERVERS["blocking"], "/html", (),
                             {"c": 20, "n": 100})
            calibration.Calibration(work, "default", model(own_ms), lambda _: None).search(step)
            choice = calibration.read(work)["blocking"]
            points, tolerance = calibration.SEARCH["default"]
            chosen_ms = choice["chosen"]["cost_us"] / 1000
            expect(len(choice["points"]) <= points and choice["chosen"] in choice["points"],
                   f"search with {own_ms} ms of own CPU: {len(choice['points'])} points")
            if expected_ms:
                expect(choice["converged"] and abs(chosen_ms / expected_ms - 1) < tolerance,
                       f"search: chose {chosen_ms:.3f} ms, the model matches at "
                       f"{expected_ms} ms")
            else:
                expect(chosen_ms == 0 and len(choice["points"]) == 1,
                       f"search with a model above its target at cost 0: chose {chosen_ms} ms "
                       f"after {len(choice['points'])} points, expected 0 after one")


def db_running(source_dir):
    return subprocess.run(["bash", os.path.join(source_dir, "scripts", "db.sh"), "status"],
                          capture_output=True).returncode == 0


def server_processes(paths):
    """pid -> command line of the servers now running from these directories."""
    found = {}
    for process in psutil.process_iter(["pid", "name", "cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if process.info["name"] in SERVER_PROGRAMS and any(p in cmdline for p in paths):
            found[process.info["pid"]] = cmdline
    return found


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    source_dir, build_dir = sys.argv[1], sys.argv[2]
    results = (sys.argv[3] if len(sys.argv) == 4
               else os.path.join(build_dir, "Testing", "reproduce-smoke"))
    shutil.rmtree(results, ignore_errors=True)
    command = [os.path.join(source_dir, "scripts", "reproduce.sh"), "--smoke",
               "--results-dir", results]
    print("running:", " ".join(command), "(BUILD_DIR=" + build_dir + ")", flush=True)
    db_before = db_running(source_dir)
    servers_before = server_processes([source_dir, build_dir, results])
    run = subprocess.run(command, env={**os.environ, "BUILD_DIR": build_dir},
                         stdout=subprocess.PIPE, text=True, errors="replace")
    print(run.stdout, flush=True)
    expect(run.returncode == 0, f"reproduce.sh --smoke exited with {run.returncode}")
    last = run.stdout.rstrip("\n").splitlines()[-1] if run.stdout.strip() else ""
    expect(last.startswith("left running: nothing"),
           f"reproduce.sh's last line is '{last}', expected 'left running: nothing...'")
    expect(db_running(source_dir) == db_before,
           f"the private MariaDB was {'running' if db_before else 'stopped'} before the run and "
           f"is {'running' if not db_before else 'stopped'} after it")
    left = {pid: cmd for pid, cmd in server_processes([source_dir, build_dir, results]).items()
            if pid not in servers_before}
    expect(not left, f"servers left running after the run: {left}")

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
    cores = next((int(float(r["cores"])) for r in rows.values() if r.get("cores")), 0)
    check_report(results, cores)
    check_calibration(results, rows)
    if all(f"e1b-{s}-c{c}-r1" in rows for s in ("async", "async-cluster") for c in (20, 200)):
        check_inconclusive(results)
    if all(run_id in rows for run_id in EXPECTED_IDS if run_id.startswith("e5-")):
        check_crossovers(results)
    check_search()

    if problems:
        print(f"\n{len(problems)} problem(s) in {results}:")
        for problem in problems:
            print("  -", problem)
        return 1
    print(f"\nreproduce.sh --smoke: {len(rows)} runs, every check passed ({results})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
