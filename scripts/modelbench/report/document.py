"""report.md and results.csv of a reproduce results directory (docs/results.md). The plots are
drawn first: sections link only those that exist."""

import csv
import json
import os
import re

from modelbench import systems
from modelbench.engine import steps
from modelbench.engine.loads.base import utc_time
from modelbench.engine.machine import SPEED_CHANGE, speed_changed
from modelbench.engine.serverstatus import AGREE_PCT
from modelbench.report import html_page, overview, plots
from modelbench.report.overview import verdict_cell
from modelbench.report.results import Results, load_runs
from modelbench.report.tables import fmt, table
from modelbench.report.statistics import LEVEL, SIGN_TEST_MIN, level_text, median
from modelbench.report.verdicts import NOT_REPRODUCED

META_COLUMNS = ["id", "base", "block", "attempt", "experiment", "server", "system", "variant",
                "calibrated", "server_flags", "rtt_ms", "endpoint", "tool", "concurrency",
                "requests", "seconds", "status", "cause", "command"]
WARMUP_COLUMNS = ["warmup_s", "warmup_steady", "warmup_processes_before",
                  "warmup_processes_after", "warmup_requests_per_s", "warmup_cpu_ms_per_request"]
FIGURE_COLUMNS = [
    "complete", "failed", "failed_length", "failed_other", "non2xx", "requests_per_s", "mean_ms",
    "p50_ms", "p90_ms", "p99_ms", "max_ms", "transfer_kib_s", "duration_s", "document_bytes",
    "availability_pct", "siege_concurrency", "successful",
    "iterations", "real_s", "user_s", "sys_s", "iterations_per_s",
    "delay_ms", "response_ms", "task_two_after_task_one_ms", "task_two_after_response",
    "task_three_before_task_two",
    "rate_asked", "sent_per_s", "not_sent", "p99_9_ms", "uncorrected_mean_ms",
    "uncorrected_p50_ms", "uncorrected_p99_ms", "uncorrected_max_ms", "generator_cpu_s",
    "wall_s", "cores", "server_cpu_s", "server_cpu_pct_core", "server_cpu_pct_machine",
    "server_cpu_source", "status_cpu_s", "status_cpu_diff_pct", "status_cpu_agrees",
    "db_cpu_s", "db_cpu_pct_core", "db_cpu_pct_machine", "client_cpu_s", "client_cpu_pct_core",
    "client_cpu_pct_machine", "machine_busy_pct", "other_cpu_pct", "server_peak_threads",
    "server_peak_processes", "server_peak_rss_mib", "server_db_connects", "requests_by_worker",
    "listen_overflows", "listen_drops", "syn_retransmits", "probe_before_ms", "probe_after_ms",
    "throttled_pct",
    "held_asked", "held", "held_waiting", "kib_per_connection", "memory_measure",
    "held_processes", "held_threads", "held_fds", "open_after_probe",
    "heavy_n", "heavy_alone_ms", "heavy_p99_ms", "p99_per_heavy", "loop_delay_p99_ms",
    "loop_delay_max_ms",
    "no_port", "time_wait_client", "time_wait_server",
    "probes", "probes_unanswered", "unavailable_share", "peak_connected",
]


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=1, ensure_ascii=False)


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def warmup_cells(run):
    warm = run.get("warmup")
    if not warm:
        return [""] * len(WARMUP_COLUMNS)
    last = warm["slices"][-1] if warm["slices"] else {}
    return [warm["seconds"], int(warm["steady"]), warm["processes_before"],
            warm["processes_after"], last.get("requests_per_s", ""),
            last.get("cpu_ms_per_request") or ""]


def write_csv(results, path):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(META_COLUMNS + WARMUP_COLUMNS + FIGURE_COLUMNS)
        writer.writerows([run.get(c, "") for c in META_COLUMNS] + warmup_cells(run) +
                         [run.get("figures", {}).get(c, "") for c in FIGURE_COLUMNS]
                         for run in results.runs.values())


def section_environment(results, settings):
    machine = settings.get("machine", {})
    system = " ".join(machine[k] for k in ("system", "kernel") if k in machine) or "?"
    versions = settings.get("versions", {})
    # The time without its offset, as before settings.json had one: the line says UTC.
    started = f"{utc_time(settings['started']):%Y-%m-%dT%H:%M:%S}" if settings.get("started") \
        else "?"
    return "\n".join([
        "## Environment", "",
        f"- run: {started} UTC, size `{settings.get('size', '?')}`, "
        f"command `{settings.get('command', '?')}`",
        f"- machine: {results.cores} cores ({machine.get('cpu', '?')}), {system}",
        "- systems: " + "; ".join(f"{name}: {text}" for name, text in
                                  versions.get("systems", {}).items()),
        "- tools: " + "; ".join(versions.get("tools", {}).values()),
        "- the load tool, the server and mariadbd share these cores: compare the systems within "
        "this run, not with the posts' absolute figures.", "",
    ])


def speed_line(kept):
    """The machine's speed over the runs: the probe's range, and the runs it changed during."""
    probed = [run["figures"] for run in kept if "probe_before_ms" in run["figures"]]
    if not probed:
        return "- the machine's speed: not probed"
    every = [f[k] for f in probed for k in ("probe_before_ms", "probe_after_ms")]
    changed = sum(1 for f in probed if speed_changed(f))
    return (f"- the machine's speed: a fixed CPU loop timed before and after each run took "
            f"{min(every):.1f}–{max(every):.1f} ms (lower is faster); {changed} of {len(probed)} "
            f"runs saw it change by more than ×{SPEED_CHANGE:g} (noted under their tables)")


def section_runs(results, settings):
    kept = [run for run in results.runs.values()
            if run.get("status") == "ok" and "other_cpu_pct" in run.get("figures", {})]
    others = [run["figures"]["other_cpu_pct"] for run in kept]
    again = sum(1 for run in results.runs.values() if run.get("attempt", 1) > 1)
    warmups = [run["warmup"] for run in results.runs.values() if run.get("warmup")]
    warm = [w for w in warmups if not w.get("lead_in")]
    leads = [w for w in warmups if w.get("lead_in")]
    unsteady = sum(1 for w in warm if not w["steady"])
    minutes = fmt(settings["run_s"] / 60, 1) if "run_s" in settings else "?"
    return "\n".join([
        "## How the runs were made", "",
        "Each experiment's servers are up together and its runs are made in blocks: a block "
        "runs every server once at each point (a concurrency, a listen queue) in turn, the "
        "servers of a point in a random order, the points' order reversed every other block, so "
        "that the runs a claim compares are made seconds apart on the same host (a server per "
        "cost in E5, per delay in E6; the calibrated models join E1b's real systems from block "
        "3, once blocks 1 and 2 have given them their cost). Before its first run at a point a "
        "server is warmed up at the run's concurrency in one-second slices of ab until its "
        "processes stop growing and two slices agree within 10 % on requests/s, its CPU per "
        "request not falling by more than 10 %, a slice over which it forked followed by "
        "unbroken load until it stopped forking; before each later run there it is led in with "
        "half-second slices until its CPU per request is not dearer than at its run before by "
        "more than 10 %, or stopped falling (not E3's counts of lengths, nor the /tasks demo). "
        "The machine is waited for until other processes keep less than 10 % of it busy. A "
        "figure in a table is the median over the blocks; a ratio between two servers, or two "
        "points of one, is taken within each block, and a verdict rests on its "
        f"{level_text(LEVEL)} interval over the blocks. After the planned blocks, the "
        "comparisons still undecided get more blocks while the run's time allows (their n says "
        "how many).", "",
        f"- runs kept: {len(kept)}; measured again because other work took more than 20 % of "
        f"the machine meanwhile: {again}",
        speed_line(kept),
        f"- other processes' share of the machine during the kept runs: median "
        f"{fmt(median(others), 1)} %, at most {fmt(max(others) if others else None, 1)} %",
        f"- warm-ups: {len(warm)}, median {fmt(median(w['seconds'] for w in warm), 0)} s, "
        f"longest {fmt(max((w['seconds'] for w in warm), default=None), 0)} s; "
        f"{unsteady} ended at the cap of {settings.get('warmup_max_s', '?')} s of slices before "
        "they were steady (the table *Warm-ups* at the end gives each); lead-ins: "
        f"{len(leads)}, median {fmt(median(w['seconds'] for w in leads), 1)} s, longest "
        f"{fmt(max((w['seconds'] for w in leads), default=None), 1)} s, "
        f"{sum(1 for w in leads if len(w['slices']) > 1)} of more than one slice",
        f"- time of the runs: {minutes} minutes, of which {added_blocks(settings)}; the blocks' "
        "order drawn from seed "
        f"{settings.get('seed', '?')}",
        status_agreement(kept), "",
    ])


def added_blocks(settings):
    """"12 runs (2.9 minutes) in blocks added for undecided comparisons" (the minutes only where
    the run kept them)."""
    minutes = f" ({fmt(settings['more_s'] / 60, 1)} minutes)" if "more_s" in settings else ""
    return f"{settings.get('more_runs', 0)} runs{minutes} in blocks added for undecided comparisons"


def status_agreement(kept):
    """A line on the C++ servers' CPU by their own /status against /proc's ('' with neither)."""
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


def pairs():
    """(model, the real system it stands for), and their cluster variants where both have one."""
    models = [model for model in systems.ALL if model.stands_for]
    return [(model.name, model.stands_for) for model in models] + [
        (f"{model.name}-cluster", f"{model.stands_for}-cluster") for model in models
        if model.cluster_flags and systems.get(model.stands_for).cluster_flags]


def section_models(results, experiments):
    parts = []
    for model, real in pairs():
        rows = [row for experiment in experiments
                for row in experiment.pair_rows(results, model, real)]
        if rows:
            parts += [f"### {results.label(model)} ↔ {results.label(real)}", "",
                      table(["", results.label(model), results.label(real), "model ÷ real"],
                            rows), ""]
    if not parts:
        return ""
    return "\n".join([
        "## Model against the real system", "",
        "Each model beside the real system it stands for, on the same machine, database and "
        "load: medians over the blocks with their 95 % interval, and the model's figure over the "
        "real system's (ratios taken within each block). The shape is how requests/s change "
        "from one concurrency to the next; CPU per request is the process tree's CPU time over "
        "the requests answered.", "",
    ] + parts)


def section_findings(claims):
    if not claims:
        return ""
    rows = []
    for c in claims:
        for name, side in (("real systems", c.real), ("models", c.model)):
            evidence = side.evidence + (f"; {side.speed_note}" if side.speed_note else "")
            if side.verdict == NOT_REPRODUCED:
                evidence += f". **Cause:** {side.cause}"
            rows.append([f"{c.claim}. Criterion: {c.criterion}." if name == "real systems"
                         else "〃", name, evidence, verdict_cell(side)])
    return "\n".join([
        "## Findings", "",
        "Each claim of the posts, judged for the real systems (php, node) and for the models "
        "(blocking, async) on the interval of its statistic: a figure or a ratio taken within "
        f"each block, its {level_text(LEVEL)} interval (Student's t of the logarithms over "
        f"fewer than {SIGN_TEST_MIN} blocks, the sign test's interval of the median from "
        f"{SIGN_TEST_MIN} on), or a rate of events over every request or run of the side "
        "(Clopper–Pearson). **Reproduced** when the interval meets the criterion, **not "
        "reproduced** when none of it does (with the measured cause), **inconclusive** when it "
        "straddles a bound; where the statistic moved with the host's speed probe over its "
        "blocks (Kendall's tau, p < 0.05) the evidence says so, and an inconclusive verdict "
        "then depends on the host's speed. Each interval gives its level and n.", "",
        table(["claim and criterion", "for", "evidence in this run", "verdict"], rows), "",
    ])


def section_checks(directory):
    text = read_text(os.path.join(directory, "checks.txt")).strip()
    return "\n".join(["## Checks before the runs", "", text, ""]) if text else ""


def section_failures(directory):
    rows = [[s.id, s.cause, f"`{s.log}`" if s.log else ""]
            for s in steps.read(directory)]
    return "\n".join(["## Steps that failed", "", table(["step", "cause", "log"], rows), ""]) \
        if rows else ""


def section_warmups(results):
    rows = []
    for base, by_block in results.by_base.items():
        warm = [(b, run["warmup"]) for b, run in sorted(by_block.items()) if run.get("warmup")]
        if warm:
            rows.append([f"`{base}`"] + ["; ".join(
                f"b{b}: {w['seconds']:g} s, {w['processes_before']} → {w['processes_after']} "
                f"processes, {w['slices'][-1]['requests_per_s']:,.0f} req/s"
                + (f", {w['slices'][-1]['cpu_ms_per_request']:.3f} ms CPU/req"
                   if w['slices'][-1].get('cpu_ms_per_request') else "")
                + ("" if w["steady"] else " (cap)") for b, w in warm)])
    if not rows:
        return ""
    return "\n".join(["## Warm-ups", "",
                      "What each run's warm-up (block 1, or the block where the server joined) "
                      "or lead-in (the blocks after) did: its seconds, the server's processes "
                      "before and after it, its last slice's requests/s and the server's CPU per "
                      "request over that slice.", "",
                      table(["run", "warm-ups and lead-ins"], rows), ""])


def cpu_split(results):
    """The CPU split plot: each experiment's and server's heaviest run, in % of the machine."""
    heaviest = {}
    for base, by_block in results.by_base.items():
        run = next(iter(by_block.values()))
        key = (run.get("experiment"), run.get("server"))
        busy = results.figure(base, "machine_busy_pct")
        if busy is not None and results.figure(base, "server_cpu_pct_machine") is not None and \
                busy > heaviest.get(key, (None, -1))[1]:
            heaviest[key] = (base, busy)
    rows = []
    # By experiment, then by name: a run's row is where a reader looks for it.
    for (experiment, server), (base, busy) in sorted(
            heaviest.items(), key=lambda item: (item[0][0] or "", results.label(item[0][1]))):
        parts = [results.figure(base, f"{who}_cpu_pct_machine") or 0.0
                 for who in ("server", "db", "client")]
        rows.append([f"{experiment} {results.label(server)}", *parts, max(0.0, busy - sum(parts))])
    lines = [plots.Line(*line) for line in (
        ("server", "server", "#2471a3"), ("db", "mariadbd", "#d68910"),
        ("client", "load tool", "#7d3c98"), ("other", "other", "#aab7b8"))]
    return plots.Plot("cpu-split", ["run", "server", "db", "client", "other"], rows,
                      [plots.Panel("CPU during the heaviest run of each experiment and server "
                                   "(% of the machine)", "run", lines, xlabel="% of all cores",
                                   stacked=True, key="below horizontal")],
                      size=(900, 120 + 18 * len(rows)))


def write(directory, experiments, settings):
    """Writes results.csv, the plots, report.md and report.html; returns (results, claims, plots
    not drawn). report.md opens with the answer (report.overview), the detail after it."""
    results = Results(directory, load_runs(directory))
    write_csv(results, os.path.join(directory, "results.csv"))
    try:
        plot_errors = plots.render(directory, [p for e in experiments for p in e.plots(results)]
                                   + [cpu_split(results)])
    except OSError as error:
        plot_errors = [str(error)]
    judged = [(e, e.claims(results)) for e in experiments]
    claims = [c for _, of_one in judged for c in of_one]
    detail = [e.section(results) for e in experiments]
    sections = ["# modelbench: the posts' experiments, reproduced on this machine", "",
                overview.run_line(results, settings, len(steps.read(directory))), "",
                overview.section_verdicts(claims),
                overview.section_found(results, [j for j, text in zip(judged, detail) if text]),
                section_findings(claims)]
    sections += detail + [section_models(results, experiments)]
    if os.path.exists(os.path.join(directory, "cpu-split.png")):
        sections += ["## CPU split", "", "![cpu-split.png](cpu-split.png)", ""]
    sections += [read_text(os.path.join(directory, "remote.md")), section_runs(results, settings),
                 section_checks(directory), section_failures(directory), section_warmups(results),
                 section_environment(results, settings), "## Files", "",
                 "`report.html` (this report as one page, the plots in it), "
                 "`summary.json` (the verdicts and headline figures, for programs; its keys: "
                 "docs/results.md), `results.csv` (one row per run, every figure a column), "
                 "`runs/` (one JSON per run), `raw/` (every tool's output, the servers' logs and "
                 "files, the models' /status after each run), `plots/` (the plots' data and "
                 "gnuplot scripts). What the experiments are: docs/experiments.md.", ""]
    if plot_errors:
        sections += ["Plots not drawn: " + "; ".join(plot_errors), ""]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(sections))
    with open(os.path.join(directory, "report.md"), "w") as f:
        f.write(text)
    html_page.write(directory, text)
    return results, claims, plot_errors
