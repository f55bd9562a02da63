"""The verdict rules: a range over the rounds against a criterion, and claims judged from
crafted medians and ranges."""

from crafted import results, rounds

from modelbench.experiments import calibration, e1b, e2, e3
from modelbench.report.runtable import load_rows
from modelbench.report.verdicts import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED,
                                        Spread, all_of, at_least, at_most, within)


def test_spread_of_rounds():
    spread = Spread.of([3.0, None, 1.0, 2.0])
    assert (spread.median, spread.low, spread.high, spread.count) == (2.0, 1.0, 3.0, 3)
    assert Spread.of([None]) is None
    assert spread.text(1, prefix="×") == "×2.0 [×1.0–×3.0, 3 runs]"
    assert Spread.of([1.5]).text(1) == "1.5 [1 run]"


def test_a_range_on_one_side_or_straddling():
    assert at_least(Spread.of([1.2, 1.3]), 1.1) == REPRODUCED
    assert at_least(Spread.of([0.9, 1.0]), 1.1) == NOT_REPRODUCED
    assert at_least(Spread.of([1.0, 1.2]), 1.1) == INCONCLUSIVE
    assert at_most(Spread.of([0, 0]), 0) == REPRODUCED
    assert at_most(Spread.of([1, 3]), 0) == NOT_REPRODUCED
    assert within(Spread.of([0.9, 1.1]), 0.8, 1.25) == REPRODUCED
    assert within(Spread.of([1.3, 1.4]), 0.8, 1.25) == NOT_REPRODUCED
    assert within(Spread.of([1.2, 1.3]), 0.8, 1.25) == INCONCLUSIVE
    assert at_least(None, 1) == NOT_MEASURED


def test_a_ratio_is_known_to_ten_percent_at_best():
    assert Spread.of([1.0, 1.0], noise=0.1).judged() == (0.9, 1.1)
    assert Spread.of([0.8, 1.0, 1.2], noise=0.1).judged() == (0.8, 1.2)
    assert Spread.of([1.0, 1.0]).judged() == (1.0, 1.0)  # a count, not a ratio
    # Two rounds of ×1.15 agree, but not by more than ±10 % clear of ×1.1: inconclusive.
    near = faster([1150, 1150], [1000, 1000], [1500, 1500], [1000, 1000])["E1b PHP faster"]
    assert (near.real.verdict, near.real.statistic.low) == (INCONCLUSIVE, 1.15)
    assert near.model.verdict == REPRODUCED
    assert faster([1000], [1000], [1000], [2000])["E1b PHP faster"].model.verdict == \
        NOT_REPRODUCED
    # Every ratio verdict gets the noise, those built outside ratio_side too: a cluster's
    # ×1.3 in both rounds is under ×1.25 at -10 %.
    cluster = results(*rounds("e1b-node-c20", "node", rate(1000), rate(1000)),
                      *rounds("e1b-node-cluster-c20", "node-cluster", rate(1300), rate(1300)))
    gain = e1b.cluster_claim(cluster).real
    assert (gain.verdict, gain.statistic.median) == (INCONCLUSIVE, 1.3)


def test_parts_of_a_criterion():
    assert all_of(REPRODUCED, REPRODUCED) == REPRODUCED
    assert all_of(REPRODUCED, INCONCLUSIVE) == INCONCLUSIVE
    assert all_of(INCONCLUSIVE, NOT_REPRODUCED) == NOT_REPRODUCED
    assert all_of(REPRODUCED, NOT_MEASURED) == NOT_MEASURED


def rate(value):
    return {"requests_per_s": value, "server_cpu_s": 1.0, "db_cpu_s": 0.5, "complete": 1000,
            "machine_busy_pct": 90, "server_cpu_pct_core": 100, "db_cpu_pct_core": 50,
            "client_cpu_pct_core": 30}


def faster(php_rates, node_rates, blocking_rates, async_rates):
    r = results(*rounds("e1b-php-c20", "php", *map(rate, php_rates)),
                *rounds("e1b-node-c20", "node", *map(rate, node_rates)),
                *rounds("e1b-blocking-c20", "blocking", *map(rate, blocking_rates)),
                *rounds("e1b-async-c20", "async", *map(rate, async_rates)))
    return {c.key: c for c in e1b.faster_claims(r)}


def test_php_faster_judged_per_round():
    claims = faster([1300, 1200, 1250], [700, 1000, 1300], [1500, 1500, 1500],
                    [3000, 3100, 2900])
    # The real side's ratio per round: 1.86, 1.2, 0.96: on both sides of ×1.1.
    assert claims["E1b PHP faster"].real.verdict == INCONCLUSIVE
    assert claims["E1b PHP faster"].real.statistic.count == 3
    # The models' side: about ×0.5 every round, so not reproduced, with a measured cause.
    side = claims["E1b PHP faster"].model
    assert side.verdict == NOT_REPRODUCED
    assert "server 1.00 ms, mariadbd 0.50 ms of CPU per request" in side.cause
    assert claims["E1b PHP far faster"].real.verdict == NOT_REPRODUCED


def calibrated_faster(php_rates, node_rates):
    """'E1b PHP faster (calibrated)' with the calibrated models about ×1.5 apart every round."""
    r = results(*rounds("e1b-php-c20", "php", *map(rate, php_rates)),
                *rounds("e1b-node-c20", "node", *map(rate, node_rates)),
                *rounds("e1b-blocking-cal-c20", "blocking-cal", rate(1500), rate(1500),
                        calibrated=True),
                *rounds("e1b-async-cal-c20", "async-cal", rate(1000), rate(1000),
                        calibrated=True))
    return {c.key: c for c in calibration.claims(r)}["E1b PHP faster (calibrated)"]


def test_a_calibrated_side_is_no_surer_than_its_real_side():
    # The real rounds on both sides of ×1.1: the calibrated models' clear ×1.5 is inconclusive.
    claim = calibrated_faster([1300, 900], [1000, 1000])
    assert claim.real.verdict == INCONCLUSIVE
    assert claim.model.verdict == INCONCLUSIVE
    assert claim.model.statistic.low == 1.5
    assert "reproduced on its own" in claim.model.evidence
    # The real side decided: the calibrated side keeps its own verdict, either way.
    assert calibrated_faster([1300, 1250], [1000, 1000]).model.verdict == REPRODUCED
    assert calibrated_faster([500, 500], [1000, 1000]).model.verdict == REPRODUCED


def test_a_missing_run_is_not_measured():
    r = results(*rounds("e1b-php-c20", "php", rate(1000)))
    claim = {c.key: c for c in e1b.faster_claims(r)}["E1b PHP faster"]
    assert claim.real.verdict == NOT_MEASURED
    assert claim.real.evidence == "needs e1b-php-c20, e1b-node-c20"


def hello(failed=0, non2xx=0, longest=30.0, overflows=0):
    return {"failed": failed, "non2xx": non2xx, "max_ms": longest, "listen_overflows": overflows,
            "syn_retransmits": overflows, "failed_length": 0, "failed_other": failed,
            "requests_per_s": 5000}


def test_three_second_requests_need_an_overflow_with_the_posts_backlog():
    records = []
    for server in ("php", "node", "blocking", "async"):
        records += rounds(f"e2-{server}", server, hello(), hello(), somaxconn=4096)
        longest = 3100.0 if server in ("php", "node") else 40.0
        records += rounds(f"e2-{server}-backlog128", server, hello(longest=longest, overflows=5),
                          hello(longest=longest, overflows=3), somaxconn=4096)
    claims = {c.key: c for c in e2.claims(results(*records))}
    assert claims["E2 no failures"].real.verdict == REPRODUCED
    assert claims["E2 3-s requests"].real.verdict == NOT_REPRODUCED
    assert "never overflowed" in claims["E2 3-s requests"].real.cause
    assert claims["E2 3-s requests, backlog 128"].real.verdict == REPRODUCED
    assert claims["E2 3-s requests, backlog 128"].model.verdict == NOT_REPRODUCED
    assert "the listen queue overflowed" in claims["E2 3-s requests, backlog 128"].model.cause


def test_length_failures_without_l_and_none_with_it():
    records = []
    for server in ("php", "apache-fpm", "node", "blocking", "async"):
        records += rounds(f"e3-{server}", server, {"failed_length": 970, "failed": 970,
                                                  "complete": 1000})
        records += rounds(f"e3-{server}-l", server,
                          {"failed_length": 0, "failed": 1 if server == "async" else 0,
                           "complete": 1000})
    claim = e3.claims(results(*records))[0]
    assert claim.real.verdict == REPRODUCED
    assert claim.model.verdict == NOT_REPRODUCED


def test_a_load_table_gives_the_load_tools_cost_over_the_rounds():
    machine = {f"{who}_cpu_pct_machine": 40 for who in ("server", "db", "client")}
    slow, fast = (dict(rate(r), client_cpu_s=cpu, **machine) for r, cpu in ((1000, 0.15),
                                                                            (1500, 0.1)))
    r = results(*rounds("e1b-async-c20", "async", slow, fast))
    rows = {row[0]: row[1:] for row in load_rows(r, ["e1b-async-c20"])}
    assert rows["requests/s, range over the rounds"] == ["1,000.0–1,500.0"]
    assert rows["CPU load tool per request (ms), range over the rounds"] == ["0.100–0.150"]
