"""The calibration (docs/experiments.md says what is taken and chosen, and its targets): the CPU
cost that makes each model spend, per /html request, what the real system it stands for spends on
this machine. It plans no runs: E1b chooses the cost from the records of its blocks before the
calibrated models join (e1b.choose), and E1b and E1a run them."""

import contextlib
from dataclasses import replace

from modelbench.engine.plan import EarlierRunsMissing
from modelbench.experiments import e1a, e1b
from modelbench.experiments.base import (CLUSTERS, SIDES, cpu_per_request, machine_split, nothing,
                                         real_system_of)
from modelbench.report.results import per_request_ms
from modelbench.report.summary import Figure
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED,
                                        Side, interval_text, within)

KEY = "calibration"
TITLE = "Calibration: the models given the real systems' CPU per request"
IN_DEFAULT = True
MATCH_LOW, MATCH_HIGH = 0.8, 1.25
TARGET_WORDS = {REPRODUCED: "holds", NOT_REPRODUCED: "**does not hold**"}


def choices(results):
    """{model: e1b.choose} of each calibrated model, in the order they first ran."""
    records = list(results.runs.values())
    out = {}
    for model in dict.fromkeys(r["system"] for r in records if r.get("calibrated")):
        with contextlib.suppress(EarlierRunsMissing):
            out[model] = e1b.choose(records, model)
    return out


def marks(results):
    """(label, cost in µs): where each real system sits on E5's axis."""
    return [(f"{choice['real']} = {model} calibrated", choice["cost_us"])
            for model, choice in choices(results).items()]


def calibrated_results(results):
    """The results with each calibrated model's runs in place of its native model's, so that the
    E1 claims judge them by the same criteria; and {base in them: the calibrated run's own}."""
    def key_for(run):
        if run.get("calibrated"):
            return run["server"].removesuffix("-cal")
        # A native model (one without a calibrated variant has no stand-in) is left out.
        system = real_system_of(run)[0]
        return None if system and not system.real else run.get("server")
    return results.stand_ins(key_for)


def calibrated(results):
    return any(run.get("calibrated") for run in results.runs.values())


def claims(results):
    """The E1 claims judged for the calibrated models (their real side is the native run's)."""
    if not calibrated(results):
        return []
    swapped, own = calibrated_results(results)

    def rebased(side):
        if side.verdict == NOT_MEASURED:
            return Side("no calibrated variant of a model it compares in this run (the default "
                        "calibrates no cluster: --standard does)", NOT_MEASURED)
        return replace(side, bases=tuple(own.get(b, b) for b in side.bases))
    return [no_surer(replace(claim, key=f"{claim.key} (calibrated)", real=rebased(claim.real),
                             model=rebased(claim.model)))
            for claim in e1a.claims(swapped) + e1b.claims(swapped)
            if "mysql-native" not in claim.key]  # of the real systems only


def no_surer(claim):
    """A calibrated side is no surer than its real side, whose runs gave its cost (measured:
    docs/experiments.md, "Calibrated verdicts")."""
    if claim.real.verdict != INCONCLUSIVE or \
            claim.model.verdict not in (REPRODUCED, NOT_REPRODUCED):
        return claim
    # More blocks of its own would not decide it: its real side's may (they are that claim's).
    return replace(claim, model=replace(claim.model, verdict=INCONCLUSIVE, cause="", bases=(),
                                        evidence=f"{claim.model.evidence}; {claim.model.verdict} "
                                        "on its own, as its real side"))


def target_list(results):
    """[(target, measured, verdict, cause, bases)] of every calibrated model and concurrency."""
    rows = []
    for model, real in [*zip(SIDES["model"], SIDES["real"]),
                        (CLUSTERS["model"][1], CLUSTERS["real"][1])]:
        if not any(results.has(e1b.base(f"{model}-cal", c)) for c in e1b.CONCURRENCIES):
            continue
        for what, key, digits in (("requests/s", "requests_per_s", 1),
                                  ("server CPU per request (ms)", per_request_ms("server"), 3)):
            for c in e1b.CONCURRENCIES:
                mb, rb = e1b.base(f"{model}-cal", c), e1b.base(real, c)
                interval = results.ratio([mb, rb], key)
                verdict = within(interval, MATCH_LOW, MATCH_HIGH)
                cause = "" if verdict not in (NOT_REPRODUCED, INCONCLUSIVE) else (
                    f"{model} calibrated: {cpu_per_request(results, mb)}, "
                    f"{machine_split(results, mb)}; {real}: {cpu_per_request(results, rb)}, "
                    f"{machine_split(results, rb)}")
                rows.append((f"{model} calibrated within ±25 % of {real}: {what}, -c {c}",
                             f"{fmt(results.figure(mb, key), digits)} vs "
                             f"{fmt(results.figure(rb, key), digits)}: "
                             f"{interval_text(interval, prefix='×')}", verdict, cause, (mb, rb)))
    return rows


def undecided(results):
    """The targets whose interval straddles a bound, ranked after the claims for more blocks."""
    return [(name, bases, 1) for name, _, verdict, _, bases in target_list(results)
            if verdict == INCONCLUSIVE]


def section(results):
    chosen = choices(results)
    if not chosen and not calibrated(results):
        return ""
    rows = [[f"{model} ↔ {choice['real']}"] +
            [fmt(choice["lacks_ms"].get(str(c)), 3) for c in e1b.CONCURRENCIES] +
            [f"`--cpu-per-request-us {choice['cost_us']}`"] for model, choice in chosen.items()]
    return "\n".join([
        f"## {TITLE}", "",
        "A model's cost at a concurrency is what it lacks there: the real system's server CPU "
        "per /html request in E1b's blocks before the calibrated models joined less the native "
        "model's (warm servers, medians). One cost per model, the median of the three, burnt as "
        "CPU on the thread that serves each page (`--cpu-per-request-us`, a point on E5's axis); "
        "the async cluster takes async's. The calibrated models then joined E1b's blocks from "
        f"block {e1b.JOINS}, and E1a's (their columns *calibrated*).",
        "",
        table(["model ↔ real system"] + [f"lacks at -c {c} (ms)" for c in e1b.CONCURRENCIES]
              + ["chosen cost"], rows), "",
        "Each calibrated model against its real system, block by block, the ratio's 95 % interval "
        "against ×0.8–×1.25 (**inconclusive**: the interval straddles a bound); a miss names "
        "what was measured on both sides:", "",
        table(["target", "measured", "verdict", "measured cause"],
              [[name, measured, TARGET_WORDS.get(verdict, verdict), cause]
               for name, measured, verdict, cause, _ in target_list(results)]), "",
    ])


def headline(results):
    return [Figure(f"calibration {model} cost (µs)", KEY, model, "cost_us", choice["cost_us"],
                   against=choice["real"]) for model, choice in choices(results).items()]


plan = plots = pair_rows = nothing

