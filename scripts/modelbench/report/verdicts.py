"""Figures of repeated runs and the verdicts drawn from them: the median and the range of a
figure over the rounds, a verdict against a criterion that a range can straddle, and a claim
judged twice, for the real systems and for the models.

A criterion is a threshold (`at_least`, `at_most`) or an interval (`within`). A range entirely on
the criterion's side gives REPRODUCED, entirely off it NOT_REPRODUCED, and a range that straddles
a bound INCONCLUSIVE: the rounds disagree, so one run's verdict would be noise. A ratio is
judged on its range widened to at least ±RATIO_NOISE around its median, however closely its
rounds agree. A claim's verdict of NOT_REPRODUCED comes with its measured cause.
"""

import statistics
from dataclasses import dataclass
from typing import Callable

REPRODUCED, NOT_REPRODUCED = "reproduced", "not reproduced"
INCONCLUSIVE, NOT_MEASURED = "inconclusive", "not measured"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_MEASURED)
# Rounds minutes apart agree closer than runs hours apart, and one round has no range at all:
# a ratio is known to about ±10 % (docs/experiments.md, "What moves between runs").
RATIO_NOISE = 0.10


def median(values):
    """The median of the values that are not None; None when there are none."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    """a ÷ b; None when a is missing or b is missing or 0."""
    return a / b if a is not None and b else None


@dataclass(frozen=True)
class Spread:
    """A figure over repetitions: its median, lowest and highest value, and how many there were
    (values that are None, runs that failed, are left out)."""

    median: float
    low: float
    high: float
    count: int
    noise: float = 0.0  # a verdict rests on at least ±noise around the median (a ratio's)

    @classmethod
    def of(cls, values, noise=0.0):
        """The Spread of the values that are not None; None when there are none."""
        values = [v for v in values if v is not None]
        if not values:
            return None
        return cls(statistics.median(values), min(values), max(values), len(values), noise)

    def judged(self):
        """(low, high) as a verdict sees them: the range, widened to at least ±noise."""
        return (min(self.low, self.median * (1 - self.noise)),
                max(self.high, self.median * (1 + self.noise)))

    def text(self, digits=2, prefix="", suffix=""):
        """'×1.41 [×1.26–×1.52, 3 runs]', or '×1.41 [1 run]'."""
        def one(value):
            return f"{prefix}{value:,.{digits}f}{suffix}"

        if self.count == 1:
            return f"{one(self.median)} [1 run]"
        return f"{one(self.median)} [{one(self.low)}–{one(self.high)}, {self.count} runs]"


def at_least(spread, threshold):
    if spread is None:
        return NOT_MEASURED
    low, high = spread.judged()
    if low >= threshold:
        return REPRODUCED
    return NOT_REPRODUCED if high < threshold else INCONCLUSIVE


def at_most(spread, threshold):
    if spread is None:
        return NOT_MEASURED
    low, high = spread.judged()
    if high <= threshold:
        return REPRODUCED
    return NOT_REPRODUCED if low > threshold else INCONCLUSIVE


def within(spread, low, high):
    if spread is None:
        return NOT_MEASURED
    lowest, highest = spread.judged()
    if low <= lowest and highest <= high:
        return REPRODUCED
    return NOT_REPRODUCED if highest < low or lowest > high else INCONCLUSIVE


def all_of(*verdicts):
    """The verdict of a claim whose criterion has several parts: not reproduced when any part
    clearly fails, else not measured or inconclusive when any part is, else reproduced."""
    for verdict in (NOT_REPRODUCED, NOT_MEASURED, INCONCLUSIVE):
        if verdict in verdicts:
            return verdict
    return REPRODUCED


@dataclass
class Side:
    """One side's judgement of a claim: what was measured, the verdict, for a verdict of 'not
    reproduced' the measured cause, and the statistic the verdict mostly rests on (a Spread)."""

    evidence: str
    verdict: str
    cause: str = ""
    statistic: object = None


@dataclass
class Claim:
    """A claim of the posts: its key (summary.json, --compare), what it says, the criterion, and
    its judgement for the real systems and for the models."""

    key: str
    claim: str
    criterion: str
    real: Side
    model: Side


def spread_text(spread, digits=2, prefix="", suffix=""):
    return "–" if spread is None else spread.text(digits, prefix, suffix)


def judged(evidence, verdict, cause: Callable, statistic=None):
    """A Side; cause() is asked for only when the verdict is not reproduced."""
    return Side(evidence, verdict, cause() if verdict == NOT_REPRODUCED else "", statistic)


def needs(*bases):
    return Side(f"needs {', '.join(bases)}", NOT_MEASURED)


def ratio_side(results, numerator, denominator, key, judge, describe, cause):
    """A side judged on numerator's figure over denominator's, round by round: judge(spread)
    the verdict, describe(spread) the evidence, cause() the cause of a 'not reproduced'."""
    ratio = results.ratio([numerator, denominator], key)
    if ratio is None:
        return needs(numerator, denominator)
    return judged(describe(ratio), judge(ratio), cause, ratio)
