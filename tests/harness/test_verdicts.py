"""The verdict rules: an interval against a criterion, and claims judged from crafted blocks."""

from crafted import blocks, results

from modelbench.experiments import calibration, e1b, e2, e3, e4
from modelbench.report import statistics
from modelbench.report.runtable import load_rows
from modelbench.report.verdicts import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED,
                                        about, all_of, at_least, at_most, within)


def interval(low, high, estimate=None):
    return statistics.Interval(estimate or (low + high) / 2, low, high, 0.95, 4,
                               statistics.MEAN_OF_LOGS)


def test_an_interval_on_one_side_or_straddling():
    assert at_least(interval(1.2, 1.3), 1.1) == REPRODUCED
    assert at_least(interval(0.9, 1.0), 1.1) == NOT_REPRODUCED
    assert at_least(interval(1.0, 1.2), 1.1) == INCONCLUSIVE
    assert at_most(interval(0, 0), 0) == REPRODUCED
    assert at_most(interval(1, 3), 0) == NOT_REPRODUCED
    assert within(interval(0.9, 1.1), 0.8, 1.25) == REPRODUCED
    assert within(interval(1.3, 1.4), 0.8, 1.25) == NOT_REPRODUCED
    assert within(interval(1.2, 1.3), 0.8, 1.25) == INCONCLUSIVE
    assert about(interval(0.81, 1.24), 1.0, 1.25) == REPRODUCED
    assert at_least(None, 1) == NOT_MEASURED
    # Too few blocks for an interval: it straddles every bound.
    assert at_least(statistics.of_blocks([5.0]), 1) == INCONCLUSIVE


def test_no_margin_beyond_the_interval_either_way_a_ratio_is_written():
    # The same blocks judged as "×1.1 or more" and, written the other way, "×1/1.1 or less":
    # no fixed widening, so the same verdict (a linear ±10 % once made them differ).
    ratios = [1.24, 1.20, 1.22, 1.23]
    up, down = statistics.of_blocks(ratios), statistics.of_blocks([1 / r for r in ratios])
    assert at_least(up, 1.1) == at_most(down, 1 / 1.1) == REPRODUCED
    close = [1.12, 1.20, 1.05, 1.25]
    assert at_least(statistics.of_blocks(close), 1.1) == \
        at_most(statistics.of_blocks([1 / r for r in close]), 1 / 1.1) == INCONCLUSIVE


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
    r = results(*blocks("e1b-php-c20", "php", *map(rate, php_rates)),
                *blocks("e1b-node-c20", "node", *map(rate, node_rates)),
                *blocks("e1b-blocking-c20", "blocking", *map(rate, blocking_rates)),
                *blocks("e1b-async-c20", "async", *map(rate, async_rates)))
    return {c.key: c for c in e1b.faster_claims(r)}


def test_php_faster_judged_on_the_ratios_within_each_block():
    claims = faster([1300, 1200, 1250], [700, 1000, 1300], [1500, 1500, 1500],
                    [3000, 3100, 2900])
    # The real side's ratio per block: 1.86, 1.2, 0.96: an interval across ×1.1.
    side = claims["E1b PHP faster"].real
    assert side.verdict == INCONCLUSIVE and side.statistic.n == 3
    assert side.bases == ("e1b-php-c20", "e1b-node-c20")  # what more blocks would go to
    assert "within each block ×" in side.evidence and "95 %, 3 blocks" in side.evidence
    # The models' side: about ×0.5 every block, so not reproduced, with a measured cause.
    side = claims["E1b PHP faster"].model
    assert side.verdict == NOT_REPRODUCED
    assert "server 1.00 ms, mariadbd 0.50 ms of CPU per request" in side.cause
    assert claims["E1b PHP far faster"].real.verdict == INCONCLUSIVE


def calibrated_faster(php_rates, node_rates):
    """'E1b PHP faster (calibrated)' with the calibrated models about ×1.5 apart every block."""
    r = results(*blocks("e1b-php-c20", "php", *map(rate, php_rates)),
                *blocks("e1b-node-c20", "node", *map(rate, node_rates)),
                *blocks("e1b-blocking-cal-c20", "blocking-cal", rate(1500), rate(1490), rate(1510),
                        calibrated=True),
                *blocks("e1b-async-cal-c20", "async-cal", rate(1000), rate(1000), rate(1000),
                        calibrated=True))
    return {c.key: c for c in calibration.claims(r)}["E1b PHP faster (calibrated)"]


def test_a_calibrated_side_is_no_surer_than_its_real_side():
    # The real blocks on both sides of ×1.1: the calibrated models' clear ×1.5 is inconclusive.
    claim = calibrated_faster([1300, 900, 1100], [1000, 1000, 1000])
    assert claim.real.verdict == INCONCLUSIVE
    assert claim.model.verdict == INCONCLUSIVE and claim.model.bases == ()
    assert claim.model.statistic.low > 1.4
    assert "reproduced on its own" in claim.model.evidence
    # The real side decided: the calibrated side keeps its own verdict, either way, and names
    # its own runs, not the native models' it stood in for.
    decided = calibrated_faster([1300, 1250, 1280], [1000, 1000, 1000])
    assert decided.model.verdict == REPRODUCED
    assert decided.model.bases == ("e1b-blocking-cal-c20", "e1b-async-cal-c20")
    assert calibrated_faster([500, 510, 490], [1000, 1000, 1000]).model.verdict == REPRODUCED


def test_a_missing_run_is_not_measured():
    r = results(*blocks("e1b-php-c20", "php", rate(1000)))
    claim = {c.key: c for c in e1b.faster_claims(r)}["E1b PHP faster"]
    assert claim.real.verdict == NOT_MEASURED
    assert claim.real.evidence == "needs e1b-php-c20, e1b-node-c20"


def hello(failed=0, non2xx=0, longest=30.0, overflows=0, complete=15000):
    return {"failed": failed, "non2xx": non2xx, "max_ms": longest, "listen_overflows": overflows,
            "syn_retransmits": overflows, "failed_length": 0, "failed_other": failed,
            "requests_per_s": 5000, "complete": complete}


def test_three_second_requests_need_an_overflow_with_the_posts_backlog():
    records = []
    for server in ("php", "node", "blocking", "async"):
        records += blocks(f"e2-{server}", server, hello(longest=120.0), hello(longest=95.0),
                          somaxconn=4096)
        longest = 3100.0 if server in ("php", "node") else 40.0
        records += blocks(f"e2-{server}-backlog128", server,
                          hello(longest=longest, overflows=5), hello(longest=longest + 60,
                                                                    overflows=3),
                          somaxconn=4096)
    claims = {c.key: c for c in e2.claims(results(*records))}
    assert claims["E2 no failures"].real.verdict == REPRODUCED
    assert "0 of 60,000 requests" in claims["E2 no failures"].real.evidence
    assert claims["E2 3-s requests"].real.verdict == NOT_REPRODUCED
    assert "never overflowed" in claims["E2 3-s requests"].real.cause
    backlog = claims["E2 3-s requests, backlog 128"]
    assert backlog.real.verdict == REPRODUCED and backlog.real.statistic.n == 4
    assert backlog.model.verdict == NOT_REPRODUCED
    assert "the listen queue overflowed" in backlog.model.cause


def test_failures_are_a_rate_over_all_the_sides_requests():
    # Eight non-2xx answers in one run of four: one in 7,500, under the bound of one in 5,000
    # only if the interval says so; it does not.
    records = []
    for server in ("php", "node"):
        records += blocks(f"e2-{server}", server, hello(non2xx=8 if server == "php" else 0),
                          hello())
    side = {c.key: c for c in e2.claims(results(*records))}["E2 no failures"].real
    assert side.verdict == INCONCLUSIVE and "8 of 60,000 requests" in side.evidence


def test_the_fpm_socket_claim_is_a_share_of_answers_as_the_post_says():
    def fpm(non2xx, complete=20000):
        return dict(hello(non2xx=non2xx, complete=complete))
    records = (blocks("e2n-fpm-unix-c200", "fpm-unix", fpm(8), fpm(0)) +
               blocks("e2n-fpm-unix-c100", "fpm-unix", fpm(0), fpm(0)) +
               blocks("e2n-fpm-unix-511-c200", "fpm-unix-511", fpm(0), fpm(0)))
    claims = {c.key: c for c in e2.nginx_claims(results(*records))}
    # Eight answers in 40,000: far from "more than half".
    assert claims["E2n FPM unix socket"].real.verdict == NOT_REPRODUCED
    records[0]["figures"]["non2xx"] = records[1]["figures"]["non2xx"] = 12000
    claims = {c.key: c for c in e2.nginx_claims(results(*records))}
    assert claims["E2n FPM unix socket"].real.verdict == REPRODUCED
    # No answer failed at -c 100 in 10,000: not enough to bound the rate under one in 5,000.
    del records[3]
    records[2]["figures"]["complete"] = 10000
    claims = {c.key: c for c in e2.nginx_claims(results(*records))}
    assert claims["E2n FPM unix socket"].real.verdict == INCONCLUSIVE


def test_length_failures_are_most_answers_without_l_and_none_with_it():
    records = []
    for server in ("php", "apache-fpm", "node", "blocking", "async"):
        records += blocks(f"e3-{server}", server, {"failed_length": 970, "failed": 970,
                                                   "complete": 1000})
        records += blocks(f"e3-{server}-l", server,
                          {"failed_length": 0, "failed": 40 if server == "async" else 0,
                           "complete": 1000})
    claim = e3.claims(results(*records))[0]
    assert claim.real.verdict == REPRODUCED
    assert claim.model.verdict == NOT_REPRODUCED and "40 of 1,000" in claim.model.cause


def test_the_deferred_task_holds_in_every_run():
    def demo(response_ms, after):
        return {"delay_ms": 2000, "response_ms": response_ms, "task_two_after_response": after}
    r = results(*blocks("e4-tasks-php", "php", demo(2004, 0)),
                *blocks("e4-tasks-node", "node", demo(3, 1), demo(2100, 1)),
                *blocks("e4-tasks-blocking", "blocking", demo(2002, 0)),
                *blocks("e4-tasks-async", "async", demo(2, 1)))
    claim = e4.deferred_claim(r)
    assert claim.model.verdict == REPRODUCED
    assert claim.real.verdict == INCONCLUSIVE  # one of node's two runs answered late


def test_a_load_table_gives_the_intervals_over_the_blocks():
    machine = {f"{who}_cpu_pct_machine": 40 for who in ("server", "db", "client")}
    slow, fast = (dict(rate(r), client_cpu_s=cpu, **machine) for r, cpu in ((1000, 0.15),
                                                                            (1500, 0.1)))
    r = results(*blocks("e1b-async-c20", "async", slow, fast))
    rows = {row[0]: row[1:] for row in load_rows(r, ["e1b-async-c20"])}
    low, high = (v.strip("]") for v in rows["requests/s [95 % interval]"][0].split("[")[1]
                 .split("–"))
    assert rows["requests/s [95 % interval]"][0].startswith("1,224.7 [")
    assert float(low.replace(",", "")) < 1000 and float(high.replace(",", "")) > 1500
    assert rows["blocks"] == ["2"]


def test_a_block_whose_runs_met_a_quota_and_no_quota_is_left_out():
    # A CPU quota came on between php's run and node's in block 3: ×0.5, not the host's ratio.
    def at(value, throttled):
        return dict(rate(value), throttled_pct=throttled)
    r = results(*blocks("e1b-php-c20", "php", at(1300, 0), at(1310, 0), at(1290, 0),
                        at(1305, 90)),
                *blocks("e1b-node-c20", "node", at(1000, 0), at(1000, 2), at(2600, 88),
                        at(1000, 91)))
    side = {c.key: c for c in e1b.faster_claims(r)}["E1b PHP faster"].real
    assert side.statistic.n == 3 and side.statistic.left_out == 1
    assert side.verdict == REPRODUCED
    assert "1 more left out: a CPU quota held back one of their runs" in side.evidence


def test_a_comparison_whose_every_block_was_left_out_is_inconclusive_and_says_why():
    def at(value, throttled):
        return dict(rate(value), throttled_pct=throttled)
    r = results(*blocks("e1b-php-c20", "php", at(1300, 0), at(600, 95)),
                *blocks("e1b-node-c20", "node", at(500, 97), at(1000, 0)))
    side = {c.key: c for c in e1b.faster_claims(r)}["E1b PHP faster"].real
    assert side.verdict == INCONCLUSIVE and side.statistic.n == 0
    assert "no block to judge on: all 2 left out" in side.evidence
