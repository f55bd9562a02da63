"""summary.json, the results a program reads (its keys: docs/results.md), and the comparison of
two runs from their summary.json: which verdicts changed, and each headline figure's ratio."""

import json
import math
import os
from dataclasses import dataclass
from typing import Optional

from modelbench.engine.loads.base import utc_time
from modelbench.report.statistics import Interval
from modelbench.report.tables import table

FORMAT = 3
# The formats load() reads: 2's headline is {name: interval}, 3's a list of Figure records.
READS = (2, 3)
# A headline figure that moved by more than this between two runs is flagged.
MOVED = 0.10


def bound(value, digits):
    """An interval's bound for JSON: None where there is none."""
    return round(value, digits) if math.isfinite(value) else None


def interval_json(interval, digits=4):
    """An Interval for a program (null bounds: unbounded; null speed: too few blocks probed)."""
    if interval is None:
        return None
    speed = interval.speed
    return {"estimate": bound(interval.estimate, digits), "low": bound(interval.low, digits),
            "high": bound(interval.high, digits), "level": round(interval.level, 4),
            "n": interval.n, "unit": interval.unit, "method": interval.method,
            **({"events": interval.events} if interval.events is not None else {}),
            "left_out": interval.left_out,
            "speed": None if speed is None else {
                "kendall_tau": speed.tau, "p": round(speed.p, 4), "moves": speed.moves,
                "faster_half": round(speed.faster, digits),
                "slower_half": round(speed.slower, digits)}}


# Where in its experiment a headline figure was measured: Figure's fields that say it.
POINT = ("concurrency", "cost_us", "rtt_ms", "share")
# Each headline metric's unit (docs/results.md lists them).
UNITS = {"requests_per_s": "requests/s", "real_s": "s", "p50_ms": "ms", "p99_ms": "ms",
         "failed_length": "requests", "requests_per_s_ratio": "×", "crossover_cost_ms": "ms",
         "cost_us": "µs", "sustained_requests_per_s": "requests/s", "stall_p99_ms": "ms",
         "stall_uncorrected_p99_ms": "ms", "kib_per_connection": "KiB", "held": "connections",
         "heavy_alone_ms": "ms", "loop_delay_p99_ms": "ms", "no_port": "connects",
         "time_wait_client": "sockets", "time_wait_server": "sockets",
         "unavailable_share": "share"}


@dataclass
class Figure:
    """A headline figure: what was measured (experiment; system, a server key as runs record it;
    against, the other system of a ratio), where (its point: the fields of POINT, None where it
    has no such coordinate), which figure (metric, in UNITS[metric]), its value and
    the interval it is the estimate of, when it has one; name: its key in format 2."""

    name: str
    experiment: str
    system: str
    metric: str
    value: Optional[float]
    interval: Optional[Interval] = None
    against: Optional[str] = None
    concurrency: Optional[int] = None
    cost_us: Optional[float] = None
    rtt_ms: Optional[float] = None
    share: Optional[float] = None
    digits: int = 3

    def json(self):
        point = {name: getattr(self, name) for name in POINT}
        return {"name": self.name, "experiment": self.experiment, "system": self.system,
                "against": self.against, **point, "metric": self.metric,
                "unit": UNITS[self.metric],
                "value": None if self.value is None else bound(self.value, self.digits),
                "interval": interval_json(self.interval, self.digits)}


def side_json(side):
    return {"verdict": side.verdict, "evidence": side.evidence, "cause": side.cause,
            "statistic": interval_json(side.statistic), "runs": list(side.bases)}


def recorded_machine(directory, settings):
    """The machine the runs had: settings.json's since it keeps it, else what the summary.json
    written at the run's end said (earlier runs), else {} (not this machine's)."""
    if "machine" in settings:
        return settings["machine"]
    try:
        return load(directory).get("machine", {})
    except (OSError, ValueError):
        return {}


def write(directory, settings, claims, experiments, results, failures):
    started = settings.get("started")
    # settings.json's time had no zone before summary.json's format 3; it was UTC.
    zoned = {**settings, **({"started": utc_time(started).isoformat()} if started else {})}
    summary = {
        "format": FORMAT,
        "run": {key: zoned.get(key) for key in ("started", "size", "command", "run_s", "runs",
                                                 "more_runs", "more_s", "remeasured", "seed",
                                                 "minutes", "more_minutes")},
        "machine": settings.get("machine", {}),
        "versions": settings.get("versions", {}),
        "settings": {key: value for key, value in zoned.items()
                     if key not in ("versions", "machine")},
        "claims": [{"key": c.key, "claim": c.claim, "criterion": c.criterion,
                    "real": side_json(c.real), "models": side_json(c.model)} for c in claims],
        "headline": [figure.json() for e in experiments for figure in e.headline(results)],
        "failures": failures,
    }
    with open(os.path.join(directory, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, ensure_ascii=False)
    return summary


def load(directory):
    path = os.path.join(directory, "summary.json")
    with open(path) as f:
        summary = json.load(f)
    if summary.get("format") not in READS:
        raise ValueError(f"{path}: summary.json format {summary.get('format')}; this harness "
                         f"reads formats {' and '.join(map(str, READS))}")
    return summary


def headline_values(summary):
    """{name: value} of a summary's headline figures, of either format (2: an interval's
    estimate, or the calibrated costs' median)."""
    if summary["format"] == 2:
        return {name: figure.get("estimate", figure.get("median"))
                for name, figure in summary["headline"].items()}
    return {figure["name"]: figure["value"] for figure in summary["headline"]}


def compare(a, b, name_a="A", name_b="B"):
    """The verdicts that changed from summary a to b, and the headline figures' ratios B ÷ A."""
    claims_a = {c["key"]: c for c in a["claims"]}
    verdicts = [[key, side, claims_a[key][side]["verdict"], claim[side]["verdict"]]
                for claim in b["claims"] if (key := claim["key"]) in claims_a
                for side in ("real", "models")]
    changed = [row for row in verdicts if row[2] != row[3]]
    rows = []
    values_a = headline_values(a)
    for name, value in headline_values(b).items():
        other = values_a.get(name)
        if other is None or value is None:
            continue
        ratio = value / other if other else None
        moved = ratio is not None and abs(ratio - 1) > MOVED
        rows.append([name, f"{other:g}", f"{value:g}",
                     "–" if ratio is None else f"×{ratio:.2f}" + (" **moved**" if moved else "")])
    lines = [f"A: {name_a} ({a['run'].get('started')}, size {a['run'].get('size')})",
             f"B: {name_b} ({b['run'].get('started')}, size {b['run'].get('size')})", "",
             f"Verdicts: {len(changed)} changed, {len(verdicts) - len(changed)} the same."]
    if changed:
        lines += ["", table(["claim", "side", "A", "B"], changed)]
    lines += ["", f"Headline figures (moved: more than ±{MOVED * 100:.0f} %):", "",
              table(["figure", "A", "B", "B ÷ A"], rows) if rows else "none in common"]
    return "\n".join(lines) + "\n", changed
