"""summary.json, the results a program reads (its keys: docs/results.md), and the comparison of
two runs from their summary.json: which verdicts changed, and each headline figure's ratio."""

import json
import math
import os
import platform

from modelbench.report.tables import table

FORMAT = 2
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


def side_json(side):
    return {"verdict": side.verdict, "evidence": side.evidence, "cause": side.cause,
            "statistic": interval_json(side.statistic), "runs": list(side.bases)}


def machine():
    memory = 0
    try:
        with open("/proc/meminfo") as f:
            memory = int(f.readline().split()[1]) // 1024 // 1024
    except (OSError, ValueError, IndexError):
        pass
    return {"cores": os.cpu_count(), "kernel": platform.release(), "memory_gib": memory,
            "machine": platform.machine()}


def write(directory, settings, claims, experiments, results, failures):
    summary = {
        "format": FORMAT,
        "run": {key: settings.get(key) for key in ("started", "size", "command", "run_s", "runs",
                                                    "more_runs", "remeasured", "seed", "minutes")},
        "machine": machine(),
        "versions": settings.get("versions", {}),
        "settings": {key: value for key, value in settings.items() if key != "versions"},
        "claims": [{"key": c.key, "claim": c.claim, "criterion": c.criterion,
                    "real": side_json(c.real), "models": side_json(c.model)} for c in claims],
        "headline": {name: figure for e in experiments
                     for name, figure in e.headline(results).items()},
        "failures": failures,
    }
    with open(os.path.join(directory, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, ensure_ascii=False)
    return summary


def load(directory):
    path = os.path.join(directory, "summary.json")
    with open(path) as f:
        summary = json.load(f)
    if summary.get("format") != FORMAT:
        raise ValueError(f"{path}: format {summary.get('format')}, this harness reads {FORMAT}")
    return summary


def compare(a, b, name_a="A", name_b="B"):
    """The verdicts that changed from summary a to b, and the headline figures' ratios B ÷ A."""
    claims_a = {c["key"]: c for c in a["claims"]}
    verdicts = [[key, side, claims_a[key][side]["verdict"], claim[side]["verdict"]]
                for claim in b["claims"] if (key := claim["key"]) in claims_a
                for side in ("real", "models")]
    changed = [row for row in verdicts if row[2] != row[3]]
    rows = []
    for name, figure in b["headline"].items():
        other = a["headline"].get(name)
        if not other or other.get("estimate") is None or figure.get("estimate") is None:
            continue
        ratio = figure["estimate"] / other["estimate"] if other["estimate"] else None
        moved = ratio is not None and abs(ratio - 1) > MOVED
        rows.append([name, f"{other['estimate']:g}", f"{figure['estimate']:g}",
                     "–" if ratio is None else f"×{ratio:.2f}" + (" **moved**" if moved else "")])
    lines = [f"A: {name_a} ({a['run'].get('started')}, size {a['run'].get('size')})",
             f"B: {name_b} ({b['run'].get('started')}, size {b['run'].get('size')})", "",
             f"Verdicts: {len(changed)} changed, {len(verdicts) - len(changed)} the same."]
    if changed:
        lines += ["", table(["claim", "side", "A", "B"], changed)]
    lines += ["", f"Headline figures (moved: more than ±{MOVED * 100:.0f} %):", "",
              table(["figure", "A", "B", "B ÷ A"], rows) if rows else "none in common"]
    return "\n".join(lines) + "\n", changed
