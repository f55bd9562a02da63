"""Figures of repeated runs: the median and the range of a figure over the repetitions, and a
verdict against a criterion that a range can straddle. bench.sh reports medians; reproduce.sh
also judges the posts' claims from the ranges.

A criterion is a threshold (`at_least`, `at_most`) or an interval (`within`). A range entirely on
the criterion's side gives REPRODUCED, entirely off it NOT_REPRODUCED, and a range that straddles
a bound INCONCLUSIVE: the repetitions disagree, so one run's verdict would be noise.
"""

import statistics
from dataclasses import dataclass

REPRODUCED, NOT_REPRODUCED = "reproduced", "not reproduced"
INCONCLUSIVE, NOT_MEASURED = "inconclusive", "not measured"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_MEASURED)


def median(values):
    """The median of the values that are not None; None when there are none."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


@dataclass(frozen=True)
class Spread:
    """A figure over repetitions: its median, lowest and highest value, and how many there were
    (values that are None, runs that failed, are left out)."""

    median: float
    low: float
    high: float
    count: int

    @classmethod
    def of(cls, values):
        """The Spread of the values that are not None; None when there are none."""
        values = [v for v in values if v is not None]
        if not values:
            return None
        return cls(statistics.median(values), min(values), max(values), len(values))

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
    if spread.low >= threshold:
        return REPRODUCED
    return NOT_REPRODUCED if spread.high < threshold else INCONCLUSIVE


def at_most(spread, threshold):
    if spread is None:
        return NOT_MEASURED
    if spread.high <= threshold:
        return REPRODUCED
    return NOT_REPRODUCED if spread.low > threshold else INCONCLUSIVE


def within(spread, low, high):
    if spread is None:
        return NOT_MEASURED
    if low <= spread.low and spread.high <= high:
        return REPRODUCED
    return NOT_REPRODUCED if spread.high < low or spread.low > high else INCONCLUSIVE


def all_of(*verdicts):
    """The verdict of a claim whose criterion has several parts: not reproduced when any part
    clearly fails, else not measured or inconclusive when any part is, else reproduced."""
    for verdict in (NOT_REPRODUCED, NOT_MEASURED, INCONCLUSIVE):
        if verdict in verdicts:
            return verdict
    return REPRODUCED
