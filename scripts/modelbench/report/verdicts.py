"""The verdicts: a statistic's interval (report.statistics) against a claim's criterion, a bound
(`at_least`, `at_most`) or a range (`within`, `about`), judged for the real systems and the models
with no margin beyond the interval (docs/experiments.md, "How the claims are judged"). Each side
names the runs (bases) its statistics read, which get more blocks while it is inconclusive."""

import math
from dataclasses import dataclass
from typing import Callable

REPRODUCED, NOT_REPRODUCED = "reproduced", "not reproduced"
INCONCLUSIVE, NOT_MEASURED = "inconclusive", "not measured"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_MEASURED)


def ratio(a, b):
    """a ÷ b; None when a is missing or b is missing or 0."""
    return a / b if a is not None and b else None


def at_least(interval, bound):
    return within(interval, bound, math.inf)


def at_most(interval, bound):
    return within(interval, -math.inf, bound)


def within(interval, low, high):
    if interval is None:
        return NOT_MEASURED
    if low <= interval.low and interval.high <= high:
        return REPRODUCED
    return NOT_REPRODUCED if interval.high < low or interval.low > high else INCONCLUSIVE


def about(interval, centre, margin):
    """Within ×centre/margin–×centre·margin: 'about' centre, symmetric on a log scale."""
    return within(interval, centre / margin, centre * margin)


def all_of(*verdicts):
    """The verdict of a criterion of several parts: the first of those below any part has."""
    return next((verdict for verdict in (NOT_REPRODUCED, NOT_MEASURED, INCONCLUSIVE)
                 if verdict in verdicts), REPRODUCED)


@dataclass
class Side:
    """One side's judgement of a claim: the cause is for 'not reproduced', the statistic (an
    Interval) what the verdict mostly rests on, bases the runs its statistics read."""

    evidence: str
    verdict: str
    cause: str = ""
    statistic: object = None
    bases: tuple = ()

    @property
    def speed_note(self):
        """What the evidence adds when the statistic moved with the host's speed ('' if not)."""
        speed = getattr(self.statistic, "speed", None)
        if speed is None or not speed.moves:
            return ""
        return (f"it moved with the host's speed (Kendall's tau {speed.tau:+.2f} against the "
                f"speed probe, p = {speed.p:.3f}: {speed.faster:,.2f} in the faster half of the "
                f"blocks, {speed.slower:,.2f} in the slower)")


@dataclass
class Claim:
    """A claim of the posts, judged for the real systems and the models (key: summary.json's)."""

    key: str
    claim: str
    criterion: str
    real: Side
    model: Side


def interval_text(interval, digits=2, prefix="", suffix=""):
    return "–" if interval is None else interval.text(digits, prefix, suffix)


def judged(evidence, verdict, cause: Callable, statistic=None, bases=()):
    """A Side; cause() is asked for only when the verdict is not reproduced."""
    return Side(evidence, verdict, cause() if verdict == NOT_REPRODUCED else "", statistic,
                tuple(bases))


def needs(*bases):
    return Side(f"needs {', '.join(bases)}", NOT_MEASURED, bases=tuple(bases))


def ratio_side(results, numerator, denominator, key, judge, describe, cause):
    """A side judged on numerator's figure over denominator's, block by block (describe(interval):
    the evidence, judge(interval): the verdict, cause(): as judged's)."""
    interval = results.ratio([numerator, denominator], key)
    if interval is None:
        return needs(numerator, denominator)
    return judged(describe(interval), judge(interval), cause, interval, (numerator, denominator))
