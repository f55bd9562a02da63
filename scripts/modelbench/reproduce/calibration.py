"""The calibration: the CPU cost that makes each model spend, per /html request, what the real
system it stands for spends on this machine — blocking against Apache+PHP, async against
Node.js — and the models run with it beside the native models and the real systems.

What is matched is a ratio measured within one run: the server's CPU per request over mariadbd's
CPU per request, under `ab -c 20` on /html (the CPU of the server's process tree and of mariadbd
from /proc, over the requests answered). Both sides run the same queries against the same
mariadbd, so mariadbd's CPU is the yardstick: the ratio says how much the server itself spends
beside the database, and carries over to a faster or slower machine where milliseconds do not.

The cost is spent per row fetched and rendered (`--cpu-per-row-ns`), not per request: what PHP
and the JavaScript MySQL driver spend beyond the C++ servers grows with the rows they decode and
render, so /json (300 rows) gets half of /html's (600 rows) and /hello none, as on the real
systems, while on /html it is the same CPU per request as E5's `--cpu-per-request-us` and so a
point on E5's axis.

The cost is searched, not derived: the model is measured at cost 0, then at the cost that would
close the gap if the cost added itself to the server's CPU and nothing else changed, then at
costs interpolated between the measured points nearest the real system's ratio (extrapolated
while all lie on one side), until a measured point is within the size's tolerance. The point
chosen is always one that was measured.
"""

import json
import os
from dataclasses import asdict, dataclass

from modelbench.repeats import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, Spread,
                                within)
from modelbench.reproduce import e5, findings
from modelbench.reproduce.plan import (CALIBRATED_AGAINST, CALIBRATION_C, CONCURRENCIES, SERVERS,
                                       Step)
from modelbench.reproduce.results import Results, load_runs
from modelbench.tables import fmt, table

HTML_ROWS = 600  # both tables of /html: the rows a per-row cost is charged for
FILE = "calibration.json"
# (points measured at most, tolerance of the model's ratio around the real system's).
SEARCH = {"smoke": (3, 0.10), "default": (6, 0.05), "full": (6, 0.05)}
# Each native model's key and its calibrated variant's (the plan names it KEY-cal).
CALIBRATED = {s.key.removesuffix("-cal"): s.key for s in SERVERS.values() if s.calibrated}
# The targets: the calibrated models within ±25 % of their real system, the E5 crossover within
# ±20 % from one run to another.
MATCH_LOW, MATCH_HIGH = 0.75, 1.25
STABLE = 0.20


class CalibrationError(Exception):
    pass


@dataclass
class Point:
    """One measured cost of the search: its run, the flag's value and the CPU per /html request
    it amounts to, and what the model then spent: server and mariadbd CPU per request (ms)."""

    run_id: str
    per_row_ns: int
    cost_us: float
    ratio: float
    server_ms: float
    db_ms: float


def percent(change):
    """+0.06 -> '+6 %'."""
    return f"{change * 100:+.0f} %".replace("-", "−")


def cost_us(per_row_ns):
    return per_row_ns * HTML_ROWS / 1000


def per_row_ns(cost):
    return max(0, round(cost * 1000 / HTML_ROWS))


def run_ratio(run):
    """(server CPU ÷ mariadbd CPU, server ms, mariadbd ms per request) of a run's record, or
    None when it failed or mariadbd's CPU was not measured."""
    f = run.get("figures", {})
    if run.get("status") != "ok" or not f.get("db_cpu_s") or not f.get("complete"):
        return None
    return (f["server_cpu_s"] / f["db_cpu_s"], 1000 * f["server_cpu_s"] / f["complete"],
            1000 * f["db_cpu_s"] / f["complete"])


def real_ratios(results, real):
    """The real system's ratio in every round of its calibration runs."""
    return [r[0] for r in (run_ratio(run) for run in results.rounds(f"cal-{real}").values())
            if r is not None]


def next_cost(points, target):
    """The next cost to measure (µs per /html request): interpolated between the measured
    points nearest the target on either side; extrapolated through the two nearest while all
    lie on one side; from a single point, the cost that adds the missing CPU to the server."""
    below = [p for p in points if p.ratio < target]
    above = [p for p in points if p.ratio >= target]
    if below and above:
        pair = (max(below, key=lambda p: p.ratio), min(above, key=lambda p: p.ratio))
    else:
        pair = sorted(points, key=lambda p: abs(p.ratio - target))[:2]
    if len(pair) == 2 and pair[0].ratio != pair[1].ratio:
        a, b = pair
        slope = (b.cost_us - a.cost_us) / (b.ratio - a.ratio)
        if slope > 0:
            return a.cost_us + (target - a.ratio) * slope
    nearest = min(points, key=lambda p: abs(p.ratio - target))
    return nearest.cost_us + (target - nearest.ratio) * nearest.db_ms * 1000


class Calibration:
    """The driver's side: runs the search of each model's cost (its runs through run(step),
    which measures a step as any other and returns its record) and gives the calibrated servers
    their flags. The choice is kept in calibration.json of the results directory."""

    def __init__(self, directory, size, run, log):
        self.directory = directory
        self.size = size
        self.run = run
        self.log = log

    def search(self, step):
        """Searches the cost of step's model; CalibrationError when it cannot."""
        model = step.server.system
        real = CALIBRATED_AGAINST[model]
        ratios = real_ratios(Results(self.directory, load_runs(self.directory)), real)
        if not ratios:
            raise CalibrationError(f"no calibration run of {real} succeeded (cal-{real}-r*): "
                                   "nothing to calibrate against")
        target = Spread.of(ratios).median
        max_points, tolerance = SEARCH[self.size]
        self.log(f"    {real}: CPU per request {target:.2f} × mariadbd's (median of "
                 f"{len(ratios)} run(s)); searching {model}'s --cpu-per-row-ns")
        points = []
        cost = 0.0
        while len(points) < max_points:
            ns = per_row_ns(cost)
            if any(p.per_row_ns == ns for p in points):
                break  # the search stands still: a finer step is below the flag's resolution
            point = self.measure(step, len(points) + 1, ns)
            points.append(point)
            self.log(f"    point {len(points)}: --cpu-per-row-ns {ns} ({point.cost_us:.0f} µs per "
                     f"/html request): {point.ratio:.2f} × mariadbd's (want {target:.2f})")
            if abs(point.ratio / target - 1) <= tolerance or (ns == 0 and point.ratio > target):
                break
            cost = next_cost(points, target)
        chosen = min(points, key=lambda p: abs(p.ratio - target))
        converged = abs(chosen.ratio / target - 1) <= tolerance
        self.log(f"    chosen: --cpu-per-row-ns {chosen.per_row_ns}, {chosen.ratio:.2f} × "
                 f"mariadbd's against {real}'s {target:.2f}"
                 + ("" if converged else f" (not within ±{tolerance * 100:.0f} %)"))
        choices = read(self.directory)
        choices[model] = {"real": real, "target_ratio": target, "tolerance": tolerance,
                          "points": [asdict(p) for p in points], "chosen": asdict(chosen),
                          "converged": converged}
        with open(os.path.join(self.directory, FILE), "w") as f:
            json.dump(choices, f, indent=1)

    def measure(self, step, number, ns):
        point = Step(f"{step.base}-p{number}", f"{step.base}-p{number}", 1,
                     f"{step.title}: --cpu-per-row-ns {ns}", "ab", step.experiment,
                     step.server, step.path, ("--cpu-per-row-ns", str(ns)), step.settings)
        record = self.run(point)
        measured = run_ratio(record)
        if measured is None:
            raise CalibrationError(f"{point.run_id} failed or measured no mariadbd CPU: "
                                   f"{record.get('cause', 'no figures')}")
        return Point(point.run_id, ns, cost_us(ns), *measured)

    def flags(self, server):
        """The cost flags of a calibrated server; CalibrationError when its model has none."""
        choice = read(self.directory).get(server.system)
        if choice is None:
            raise CalibrationError(f"no calibrated cost for {server.system}: its calibration "
                                   "did not run or failed")
        return ("--cpu-per-row-ns", str(choice["chosen"]["per_row_ns"]))


def read(directory):
    """The choices of a results directory's calibration: {model: choice}, {} when none."""
    try:
        with open(os.path.join(directory, FILE)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def marks(directory):
    """(label, CPU per /html request in µs) of each calibrated model: where the real systems
    sit on E5's axis."""
    return [(f"{real} = {model} calibrated", choice["chosen"]["cost_us"])
            for model, choice in read(directory).items() for real in [choice["real"]]]


# ---------------------------------------------------------------------------------------------
# The report


def section(results):
    choices = read(results.directory)
    if not choices:
        return ""
    rows, searches = [], []
    for model, choice in choices.items():
        real = choice["real"]
        chosen = choice["chosen"]
        real_runs = [run_ratio(run) for run in results.rounds(f"cal-{real}").values()]
        real_runs = [r for r in real_runs if r is not None]
        ratio = Spread.of([r[0] for r in real_runs])
        rows.append([
            f"{model} ↔ {real}",
            fmt(Spread.of([r[1] for r in real_runs]).median, 3),
            fmt(Spread.of([r[2] for r in real_runs]).median, 3),
            findings.spread_text(ratio, prefix="×"),
            f"`--cpu-per-row-ns {chosen['per_row_ns']}` ({chosen['cost_us'] / 1000:.3f} ms per "
            "/html request)",
            fmt(chosen["server_ms"], 3), fmt(chosen["db_ms"], 3),
            f"×{chosen['ratio']:.2f} ({percent(chosen['ratio'] / choice['target_ratio'] - 1)})"
            + ("" if choice["converged"] else
               f", **not within ±{choice['tolerance'] * 100:.0f} %**"
               + (": the model spends more already at cost 0"
                  if chosen["per_row_ns"] == 0 and chosen["ratio"] > choice["target_ratio"]
                  else "")),
        ])
        searches += [f"**{model}** (want ×{choice['target_ratio']:.2f}):", "",
                     table(["run", "--cpu-per-row-ns", "ms per /html request",
                            "server CPU per request (ms)", "mariadbd CPU per request (ms)",
                            "server ÷ mariadbd"],
                           [[f"`{p['run_id']}`", p["per_row_ns"], f"{p['cost_us'] / 1000:.3f}",
                             fmt(p["server_ms"], 3), fmt(p["db_ms"], 3), f"×{p['ratio']:.2f}"]
                            for p in choice["points"]]), ""]
    return "\n".join([
        "## Calibration",
        "",
        f"Each real system under `ab -c {CALIBRATION_C}` on /html, once per round: its process "
        "tree's CPU per request over mariadbd's CPU per request, both from /proc in the same "
        "run. Both sides run the same queries against the same mariadbd, so mariadbd's CPU is "
        "the yardstick, and the ratio carries over to another machine where milliseconds do "
        "not. Each model is then measured at a few costs until its own ratio is within the "
        "tolerance of its real system's (cost 0, the cost that would add the missing CPU, then "
        "costs interpolated between the measured points around the target); the cost chosen "
        "is a measured point. The cost is spent per row fetched and rendered "
        "(`--cpu-per-row-ns`): what PHP and the JavaScript MySQL driver spend beyond the C++ "
        "servers grows with the rows they decode and render, so /json (300 rows) gets half of "
        f"/html's {HTML_ROWS} rows and /hello none; on /html it is the same CPU per request "
        "as E5's `--cpu-per-request-us`, a point on E5's axis.",
        "",
        table(["model ↔ real system", "real: server CPU per request (ms)",
               "real: mariadbd CPU per request (ms)", "real: server ÷ mariadbd",
               "chosen cost", "model: server CPU per request (ms)",
               "model: mariadbd CPU per request (ms)", "model: server ÷ mariadbd"], rows),
        "",
        "The search, point by point:",
        "",
    ] + searches + [
        "The columns *calibrated* of E1a and E1b are the models with these flags (the async "
        "cluster with async's).",
        "",
    ])


def calibrated_results(results):
    """The results with each calibrated model's runs in place of its native model's, so that
    the claims of modelbench.reproduce.findings judge the calibrated models on their 'model'
    side, by the same criteria."""
    native = {cal: model for model, cal in CALIBRATED.items()}
    runs = {}
    for run_id, run in results.runs.items():
        server = run.get("server")
        if server in CALIBRATED:
            continue
        if server in native:
            run = dict(run, server=native[server],
                       id=run_id.replace(f"-{server}-", f"-{native[server]}-"),
                       base=run.get("base", run_id).replace(f"-{server}", f"-{native[server]}"))
        runs[run["id"]] = run
    return Results(results.directory, runs)


def calibrated_claims(results, somaxconn):
    """The E1 claims judged for the real systems and for the calibrated models ('model')."""
    if not any(run.get("server") in CALIBRATED.values() for run in results.runs.values()):
        return []
    return [c for c in findings.evaluate(calibrated_results(results), somaxconn)
            if c.key.startswith("E1")]


def section_verdicts(claims, calibrated):
    if not calibrated:
        return ""
    native = {c.key: c for c in claims}
    rows = [[c.key, f"**{c.real.verdict}**",
             f"**{native[c.key].model.verdict}**" if c.key in native else "–",
             f"**{c.model.verdict}**"] for c in calibrated]
    evidence = []
    for c in calibrated:
        text = c.model.evidence
        if c.model.verdict == NOT_REPRODUCED:
            text += f". **Cause:** {c.model.cause}"
        evidence.append([f"{c.claim}. Criterion: {c.criterion}.", text, f"**{c.model.verdict}**"])
    return "\n".join([
        "## The posts' claims under calibration",
        "",
        "The claims of E1a and E1b judged for the calibrated models by the same criteria, beside "
        "the real systems' and the native models' verdicts (evidence of those under Findings).",
        "",
        table(["claim", "real systems (php, node)", "models (blocking, async)",
               "calibrated models"], rows),
        "",
        table(["claim and criterion", "evidence for the calibrated models", "verdict"],
              evidence),
        "",
    ])


# ---------------------------------------------------------------------------------------------
# The targets


TARGET_WORDS = {REPRODUCED: "holds", NOT_REPRODUCED: "**does not hold**"}


def target_word(verdict):
    return TARGET_WORDS.get(verdict, verdict)


def paired_per_request(results, model_base, real_base):
    """model's server CPU per request over the real system's, round by round."""
    model = dict(zip(results.rounds(model_base), results.per_request_ms_values(model_base,
                                                                               "server")))
    real = dict(zip(results.rounds(real_base), results.per_request_ms_values(real_base,
                                                                             "server")))
    return Spread.of([model[r] / real[r] for r in model if r in real and real[r]])


def match_rows(results):
    rows = []
    for model, real in (("blocking", "php"), ("async", "node")):
        cal = CALIBRATED[model]
        for what, key in (("requests/s", "requests_per_s"), ("server CPU per request", None)):
            for c in CONCURRENCIES:
                m, r = f"e1b-{cal}-c{c}", f"e1b-{real}-c{c}"
                if key:
                    ratio = results.paired([m, r], key, lambda a, b: a / b if b else None)
                    values = (results.figure(m, key), results.figure(r, key), 1, "")
                else:
                    ratio = paired_per_request(results, m, r)
                    values = (results.per_request_ms(m, "server"),
                              results.per_request_ms(r, "server"), 3, " ms")
                measured = (f"{fmt(values[0], values[2], suffix=values[3])} vs "
                            f"{fmt(values[1], values[2], suffix=values[3])}: "
                            f"{findings.spread_text(ratio, prefix='×')}")
                rows.append([f"{results.label(cal)} within ±25 % of {real}: {what}, -c {c}",
                             measured, target_word(within(ratio, MATCH_LOW, MATCH_HIGH))])
    return rows


def headline_row(claims, calibrated):
    """The posts' headline (blocking ×2 the single event loop at -c 20) under calibration,
    wherever the real systems reproduce it."""
    real = next((c for c in claims if c.key == "E1b PHP far faster"), None)
    cal = next((c for c in calibrated if c.key == "E1b PHP far faster"), None)
    name = ("the posts' headline under calibration: blocking ≥ ×2 async at -c 20 whenever php "
            "≥ ×2 node")
    if real is None or cal is None or NOT_MEASURED in (real.real.verdict, cal.model.verdict):
        return [name, "needs E1b of php, node and both calibrated models", NOT_MEASURED]
    measured = (f"real: {real.real.evidence} — {real.real.verdict}; calibrated: "
                f"{cal.model.evidence} — {cal.model.verdict}")
    if real.real.verdict == REPRODUCED:
        verdict = target_word(cal.model.verdict)
    elif real.real.verdict == INCONCLUSIVE:
        verdict = INCONCLUSIVE
    else:
        verdict = "holds (the real systems do not reproduce it here: nothing to follow)"
    return [name, measured, verdict]


def stability_rows(results, against):
    """Each E5 crossover of this run against the same of another run (--against)."""
    here = e5.crossovers(results)
    if not here:
        return []
    if against is None:
        return [[f"E5 crossover within ±{STABLE * 100:.0f} % across two runs",
                 "needs a second run: `python3 -m modelbench.reproduce.report --dir THIS "
                 "--against OTHER` (or `reproduce.sh --against DIR`)", NOT_MEASURED]]
    there = e5.crossovers(against)
    rows = []
    for key, value in here.items():
        other = there.get(key)
        name = (f"E5 crossover within ±{STABLE * 100:.0f} % across two runs: "
                f"{e5.crossover_name(key)}")
        measured = (f"this run {e5.cost_text(value)}, {os.path.basename(against.directory)} "
                    f"{e5.cost_text(other)}")
        if key not in there:
            rows.append([name, measured + " (not measured there)", NOT_MEASURED])
        elif value is None or other is None:
            holds = value is None and other is None
            rows.append([name, measured, "holds" if holds else "**does not hold**"])
        else:
            change = 0.0 if value == other else value / other - 1 if other else float("inf")
            rows.append([name, f"{measured}: {percent(change)}",
                         "holds" if abs(change) <= STABLE else "**does not hold**"])
    return rows


def section_targets(results, claims, calibrated, against=None):
    if not read(results.directory) and not e5.crossovers(results):
        return ""
    rows = (match_rows(results) if calibrated else []) + \
        ([headline_row(claims, calibrated)] if calibrated else []) + \
        stability_rows(results, against)
    return "\n".join([
        "## Targets of the calibrated models",
        "",
        "Each calibrated model against its real system in this run (E1b: the model's figure "
        "over the real system's, taken round by round; **inconclusive** when the rounds fall on "
        "both sides of the bound), the posts' headline under calibration, and E5's crossover "
        "costs against another run's.",
        "",
        table(["target", "measured", "verdict"], rows),
        "",
    ])
