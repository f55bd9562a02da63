"""The calibration's choice, E5's crossover and E6's bound, on crafted figures."""

import math

import pytest
from crafted import blocks, record, results

from modelbench.engine.plan import EarlierRunsMissing
from modelbench.experiments import calibration, e1b, e5, e6
from modelbench.experiments.base import Context


def cpu(ms_per_request, requests=1000):
    return {"server_cpu_s": ms_per_request * requests / 1000, "complete": requests,
            "requests_per_s": 1000.0}


def test_the_cost_is_the_median_of_what_the_model_lacks_before_it_runs():
    records = []
    for c, php_ms, blocking_ms in ((1, 0.70, 0.50), (20, 0.76, 0.40), (200, 0.94, 0.45)):
        records += blocks(f"e1b-php-c{c}", "php", cpu(php_ms), cpu(php_ms + 0.02))
        records += blocks(f"e1b-blocking-c{c}", "blocking", cpu(blocking_ms))
    choice = e1b.choose(records, "blocking")
    assert choice["lacks_ms"] == {"1": 0.21, "20": 0.37, "200": 0.5} and choice["cost_us"] == 370
    # The engine's flags for the calibrated server: of the records it made so far.
    flags = e1b.run_flags(Context("smoke", []).server("blocking", calibrated=True))
    assert flags(records) == ("--cpu-per-request-us", "370")
    # A run of php after the calibrated model's first no longer moves its cost (E1a's calibrated
    # loops, after E1b, get E1b's); before it, it does.
    php_later = record("e1b-php-c20", 3, "php", cpu(3.0))
    ran = records + [record("e1b-blocking-cal-c1", 3, "blocking", cpu(0.8), calibrated=True),
                     php_later]
    assert flags(ran) == flags(records) and flags(records + [php_later])[1] == "380"
    assert calibration.choices(results(*ran)) == {"blocking": choice}


def test_no_cost_without_the_runs_to_take_it_from():
    with pytest.raises(EarlierRunsMissing):
        e1b.run_flags(Context("smoke", []).server("async", calibrated=True))([])
    calibrated = record("e1b-async-cal-c1", 3, "async", cpu(0.8), calibrated=True)
    assert calibration.choices(results(calibrated)) == {}


def test_the_crossover_interpolates_the_logarithm_of_the_ratio():
    costs = [0, 250, 500, 1000]
    # Where log(ratio) crosses 0 between 250 µs (×0.5) and 500 µs (×2): halfway.
    assert e5.crossing(costs, [0.25, 0.5, 2.0, 3.0]) == pytest.approx(375)
    assert e5.crossing(costs, [1.1, 1.2, 1.3, 1.4]) == 0  # ahead from the first cost
    assert e5.crossing(costs, [0.2, 0.3, 0.4, 0.5]) is None  # not within the sweep
    assert math.isclose(e5.crossing([0, 100], [0.5, 1.0]), 100)


def test_crossovers_from_the_runs_block_by_block():
    records = []
    for u, blocking, single in ((0, 1000, 4000), (500, 1000, 1500), (1000, 900, 600)):
        records += blocks(f"e5-blocking-c20-u{u}", "blocking", {"requests_per_s": blocking})
        records += blocks(f"e5-async-c20-u{u}", "async", {"requests_per_s": single})
        records += blocks(f"e5-async-cluster-c20-u{u}", "async-cluster",
                          {"requests_per_s": 2 * single})
    found = e5.crossovers(results(*records))
    overtake = found[("overtake", 20)]
    assert 0.5 < overtake < 1.0
    assert found[("cluster", 20)] is None


def test_the_round_trips_bound_the_rate():
    model = e6.MODELS[0]  # blocking per request: 5 round trips
    slots = model.slots(200, [{"blocking": {"max_workers": 150}}])
    assert slots == 150
    assert e6.bound(slots, model, 2, 20000) == pytest.approx(1000 * 150 / 10)
    assert e6.bound(slots, model, 2, 500) == 500  # never above what 0 ms measured
    async_model = e6.MODELS[2]
    assert async_model.slots(20, [{"async": {"pool": {"size": 10}}}] * 2) == 10


def test_latency_per_round_trip_is_a_least_squares_slope():
    model = e6.MODELS[2]
    records = []
    for d, mean in ((0, 10.0), (1, 13.0), (2, 16.0)):
        records += blocks(e6.base_id(model, 20, d), "async", {"mean_ms": mean})
    assert e6.latency_per_rtt(results(*records), model, 20, [0, 1, 2]) == pytest.approx(3.0)
