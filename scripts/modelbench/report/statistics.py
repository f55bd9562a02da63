"""The statistics a verdict rests on, each an Interval that says its level, n (of `unit`) and
method: of a figure or a ratio taken within each block (`of_blocks`: Student's t of the
logarithms, from SIGN_TEST_MIN blocks on the sign test's exact interval of the median), of a rate
of events (`rate`: Clopper-Pearson), of a demonstration whose mechanism fixes its outcome
(`every`: the lowest and highest over its runs, no level), and whether it moved with its blocks'
speed probe (`Speed`). Why these: docs/experiments.md, "How the claims are judged"."""

import math
import statistics
from dataclasses import dataclass
from functools import partial
from typing import Optional

from scipy import stats

LEVEL = 0.95
# The sign test reaches LEVEL with n >= 6, but until n = 9 only as the lowest and the highest
# value, which is what one spoiled block moves; from 9 on it leaves one value out at each end.
SIGN_TEST_MIN = 9
# A statistic moves with the host's speed when Kendall's tau between it and the speed probe of
# its blocks has a p-value under this, over at least SPEED_MIN blocks.
SPEED_P = 0.05
SPEED_MIN = 5

MEDIAN, MEAN_OF_LOGS, MEAN, RATE, EVERY = ("median (sign test)", "geometric mean (t)",
                                           "mean (t)", "rate (Clopper-Pearson)", "every run")


@dataclass(frozen=True)
class Speed:
    """How a statistic taken per block moved with the host's speed probe (ms, higher is slower):
    Kendall's tau, its p-value, the statistic's median in the faster and the slower half."""

    tau: float
    p: float
    faster: float
    slower: float

    @property
    def moves(self):
        return self.p < SPEED_P


# Why a block is left out of a comparison (report.results.host_changed).
QUOTA_SPLIT = "a CPU quota held back one of their runs and not the other"


@dataclass(frozen=True)
class Interval:
    """An estimate, its interval at `level` (0: a demonstration claims none) from n values of
    `unit`, and a rate's events. low -inf and high inf: too few values for an interval."""

    estimate: float
    low: float
    high: float
    level: float
    n: int
    method: str
    unit: str = "blocks"
    events: Optional[int] = None
    speed: Optional[Speed] = None
    left_out: int = 0  # blocks whose runs met different hosts (results.HOST_CHANGED)

    @property
    def bounded(self):
        return math.isfinite(self.low) and math.isfinite(self.high)

    def text(self, digits=2, prefix="", suffix=""):
        """'×1.41 [×1.26–×1.52; 95 %, 6 blocks]', '12 of 30,000 requests: 0.040 % [0.021–0.070 %;
        95 %]', '×1.41 [1 block: no interval]'."""
        def one(value):
            return f"{prefix}{value:,.{digits}f}{suffix}"

        if self.method == RATE:
            estimate, low, high = percents(self.estimate, self.low, self.high)
            return (f"{self.events:,} of {self.n:,} {self.unit}: {estimate} % [{low}–{high} %; "
                    f"{level_text(self.level)}]")
        if self.method == EVERY:
            return (f"{one(self.estimate)} in every run [{one(self.low)}–{one(self.high)}, "
                    f"{self.n} {self.unit}]")
        if self.n == 0:
            return f"no block to judge on: all {self.left_out} left out, {QUOTA_SPLIT}"
        left = f"; {self.left_out} more left out: {QUOTA_SPLIT}" if self.left_out else ""
        unit = self.unit.removesuffix("s") if self.n == 1 else self.unit
        if not self.bounded:
            return f"{one(self.estimate)} [{self.n} {unit}: no interval{left}]"
        return (f"{one(self.estimate)} [{one(self.low)}–{one(self.high)}; "
                f"{level_text(self.level)}, {self.n} {unit}{left}]")


def level_text(level):
    """0.9609 -> '96 %'."""
    return f"{100 * level:.0f} %"


def median(values):
    """The median of the values that are not None; None when there are none."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def percents(*shares):
    """Shares in %, the digits the largest needs: (0.0004, 0.001) -> ('0.040', '0.100')."""
    largest = 100 * max(shares)
    digits = 0 if largest >= 10 else 1 if largest >= 1 else 3
    return tuple(f"{100 * share:.{digits}f}" for share in shares)


def sign_test_rank(n, level=LEVEL):
    """The largest k whose [x(k), x(n+1-k)] covers the median with at least `level`, else 0."""
    return max((k for k in range(1, n // 2 + 1)
                if 1 - 2 * stats.binom.cdf(k - 1, n, 0.5) >= level), default=0)


def of_blocks(values, level=LEVEL, unit="blocks", probes=None, left_out=0):
    """The Interval of a figure taken in each block (None values left out), None without values;
    probes: each value's block's speed probe (ms); left_out: blocks the caller left out."""
    pairs = [(v, p) for v, p in zip(values, probes or [None] * len(values)) if v is not None]
    values = [v for v, _ in pairs]
    if not values:  # every block left out: measured, but nothing to judge on
        return Interval(math.nan, -math.inf, math.inf, level, 0, MEAN_OF_LOGS, unit,
                        left_out=left_out) if left_out else None
    n = len(values)
    interval = partial(Interval, unit=unit, speed=moved_with_speed(pairs), left_out=left_out)
    if n >= SIGN_TEST_MIN:
        k = sign_test_rank(n, level)
        ordered = sorted(values)
        return interval(statistics.median(values), ordered[k - 1], ordered[n - k],
                        1 - 2 * stats.binom.cdf(k - 1, n, 0.5), n, MEDIAN)
    logs = all(v > 0 for v in values)
    points = [math.log(v) for v in values] if logs else values
    centre = statistics.mean(points)
    half = (stats.t.ppf(0.5 + level / 2, n - 1) * statistics.stdev(points) / math.sqrt(n)
            if n >= 2 else math.inf)
    if logs:
        return interval(math.exp(centre), exp_or(centre - half, -math.inf),
                        exp_or(centre + half, math.inf), level, n, MEAN_OF_LOGS)
    return interval(centre, centre - half, centre + half, level, n, MEAN)


def exp_or(value, beyond):
    """e to the value, or beyond where that is no finite float (an interval too wide to bound)."""
    try:
        return math.exp(value) if math.isfinite(value) else beyond
    except OverflowError:
        return beyond


def rate(events, trials, level=LEVEL, unit="requests"):
    """The Clopper-Pearson Interval of events in trials; None without trials."""
    if not trials:
        return None
    tail = (1 - level) / 2
    low = 0.0 if events == 0 else float(stats.beta.ppf(tail, events, trials - events + 1))
    high = 1.0 if events == trials else float(stats.beta.ppf(1 - tail, events + 1, trials - events))
    return Interval(events / trials, low, high, level, trials, RATE, unit, events)


def every(values, unit="runs"):
    """A demonstration's median over its runs, the lowest and highest its witnesses, or None."""
    values = [v for v in values if v is not None]
    return Interval(statistics.median(values), min(values), max(values), 0.0, len(values),
                    EVERY, unit) if values else None


def moved_with_speed(pairs):
    """Speed of (value, probe ms) pairs; None under SPEED_MIN probes, or nothing varies."""
    pairs = [(v, p) for v, p in pairs if p is not None]
    if len(pairs) < SPEED_MIN or len({p for _, p in pairs}) < 2 or len({v for v, _ in pairs}) < 2:
        return None
    tau, p = stats.kendalltau([v for v, _ in pairs], [q for _, q in pairs])
    if math.isnan(tau):
        return None
    ordered = [v for v, _ in sorted(pairs, key=lambda pair: pair[1])]
    half = len(ordered) // 2
    return Speed(round(float(tau), 3), float(p), statistics.median(ordered[:half]),
                 statistics.median(ordered[-half:]))
