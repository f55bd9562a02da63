"""The statistics a verdict rests on: the sign test's interval of the median, Student's t of the
logarithms for fewer blocks, Clopper-Pearson for rates, and the host's speed beside them."""

import math

import pytest
from scipy import stats

from modelbench.report import statistics
from modelbench.report.statistics import Interval, of_blocks, rate, sign_test_rank


def test_the_sign_test_rank_is_the_widest_that_still_covers_the_level():
    # Fewer than six values: even the lowest to the highest covers the median with less than
    # 95 % (five: 1 - 2/32 = 93.75 %).
    assert [sign_test_rank(n) for n in (1, 2, 5)] == [0, 0, 0]
    assert [sign_test_rank(n) for n in (6, 8, 9, 12, 20)] == [1, 1, 2, 3, 6]
    assert sign_test_rank(5, level=0.9) == 1


def test_nine_blocks_and_more_give_the_median_and_its_order_statistics():
    values = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 5.0]  # a block spoiled by a jump
    interval = of_blocks(values)
    assert (interval.estimate, interval.low, interval.high) == (1.4, 1.1, 1.7)
    assert interval.method == statistics.MEDIAN and interval.n == 9
    assert interval.level == pytest.approx(1 - 2 * 10 / 512)


def test_fewer_blocks_give_the_geometric_mean_and_students_t_of_the_logs():
    values = [1.2, 1.3, 1.25, 1.35]
    interval = of_blocks(values)
    logs = [math.log(v) for v in values]
    mean = sum(logs) / 4
    half = stats.t.ppf(0.975, 3) * stats.tstd(logs) / 2
    assert interval.estimate == pytest.approx(math.exp(mean))
    assert interval.low == pytest.approx(math.exp(mean - half))
    assert interval.high == pytest.approx(math.exp(mean + half))
    assert interval.method == statistics.MEAN_OF_LOGS and interval.level == 0.95
    # Symmetric on a log scale: the same data written the other way round gives the reciprocal.
    flipped = of_blocks([1 / v for v in values])
    assert flipped.low == pytest.approx(1 / interval.high)
    # A value that is not positive: the values' own arithmetic.
    assert of_blocks([0, 2, 1]).method == statistics.MEAN


def test_one_block_has_no_interval():
    interval = of_blocks([1.5, None])
    assert interval.n == 1 and not interval.bounded
    assert interval.text(2, prefix="×") == "×1.50 [1 block: no interval]"
    assert of_blocks([None]) is None


def test_a_rate_has_the_clopper_pearson_interval():
    none = rate(0, 3000)
    assert none.estimate == 0 and none.low == 0
    assert none.high == pytest.approx(1 - 0.025 ** (1 / 3000), rel=1e-6)
    some = rate(8, 15000)
    assert some.low < 8 / 15000 < some.high and some.unit == "requests"
    assert some.text() == "8 of 15,000 requests: 0.053 % [0.023–0.105 %; 95 %]"
    assert rate(0, 0) is None


def test_a_demonstration_is_every_run_and_claims_no_level():
    shown = statistics.every([5.0, 7.0, 6.0])
    assert (shown.low, shown.high, shown.level) == (5.0, 7.0, 0.0)


def test_a_statistic_that_follows_the_host_speed_says_so():
    probes = [5.0, 9.0, 5.5, 8.5, 6.0, 9.5, 5.2, 8.8]
    moving = of_blocks([1.0 + p / 10 for p in probes], probes=probes)
    assert moving.speed.moves and moving.speed.tau > 0.9
    assert moving.speed.slower > moving.speed.faster
    steady = of_blocks([1.30, 1.31, 1.29, 1.30, 1.32, 1.28, 1.30, 1.31], probes=probes)
    assert not steady.speed.moves
    assert of_blocks([1.0, 1.1], probes=[5.0, 9.0]).speed is None  # too few blocks


def test_text_gives_the_level_and_n():
    interval = Interval(1.41, 1.26, 1.52, 0.95, 6, statistics.MEAN_OF_LOGS)
    assert interval.text(2, prefix="×") == "×1.41 [×1.26–×1.52; 95 %, 6 blocks]"


def test_an_interval_too_wide_for_a_float_is_unbounded():
    interval = of_blocks([1e-300, 1e300])
    assert not interval.bounded and interval.high == math.inf
