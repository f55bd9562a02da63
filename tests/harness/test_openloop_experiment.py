"""E7 on crafted figures: the offered rate from the capacity measured before, the sustained rate
and its ratio within blocks, the knee, and the engine turning a share into a rate."""

import pytest
from crafted import blocks, record, results

from modelbench.engine.plan import EarlierRunsMissing
from modelbench.engine.plan import Load, Run
from modelbench.experiments import e7
from modelbench.experiments.base import Context
from modelbench.report.verdicts import NOT_REPRODUCED, REPRODUCED


def sweep_run(p99_ms, rate, lost=0):
    return {"p99_ms": p99_ms, "rate_asked": rate, "failed": lost, "non2xx": 0, "not_sent": 0,
            "complete": round(5 * rate) - lost, "requests_per_s": rate, "p50_ms": p99_ms / 4,
            "p99_9_ms": p99_ms * 2, "max_ms": p99_ms * 3}


def sweep(key, capacity, p99s_per_block):
    """Records of key's capacity runs and of its sweep at E7's standard shares, a list of p99s
    (one per share) per block."""
    out = blocks(e7.capacity_base(key), key, *[{"requests_per_s": capacity}] * 2)
    for block, p99s in enumerate(p99s_per_block, 1):
        for share, p99 in zip(e7.STANDARD["shares"], p99s):
            out.append(record(e7.base(key, share), block, key,
                              sweep_run(p99, round(share * capacity, 1)), share=share))
    return out


# The shares: 10, 30, 50, 70, 80, 90, 100, 120 %.
CALM = [5, 5, 6, 8, 12, 30, 150, 900]     # holds to 90 %
STEEP = [5, 6, 20, 120, 300, 600, 900, 2000]  # holds to 50 %


def test_the_rate_is_the_share_of_the_capacity_measured_before():
    capacity = e7.capacity_of("php")
    records = blocks(e7.capacity_base("php"), "php", {"requests_per_s": 900},
                     {"requests_per_s": 1000}, {"requests_per_s": 1300})
    assert capacity(records) == 1000
    failed = dict(record(e7.capacity_base("node"), 1, "node", {}), status="failed")
    with pytest.raises(EarlierRunsMissing):
        e7.capacity_of("node")(records + [failed])
    run = Run("e7-php-s50", "t", "E7", Context("smoke", ["php"]).server("php"),
              Load("openloop", "/html", seconds=5, share=0.5), capacity=capacity)
    rated = run.rated(records)
    assert rated.load.rate == 500 and rated.base == run.base and run.load.rate == 0
    plain = Run("e1b-php-c20", "t", "E1b", run.server, Load("ab", "/html", 20, seconds=1))
    assert plain.rated(records) is plain


def test_sustained_is_the_highest_share_held_with_every_one_below():
    r = results(*sweep("php", 1000, [CALM, CALM, CALM]))
    assert [e7.sustained(r, "php", b) for b in (1, 2, 3)] == [900.0] * 3
    # A share lost above the bound stops it though a higher one holds again.
    wobbly = [5, 5, 150, 8, 8, 8, 8, 8]
    assert e7.sustained(results(*sweep("php", 1000, [wobbly])), "php", 1) == 300.0
    # Requests lost count as not held: one in 5,000 is the limit.
    lossy = sweep("php", 1000, [CALM])
    lossy[2]["figures"]["failed"] = 2  # 10 %: 500 requests, 2 lost
    assert e7.sustained(results(*lossy), "php", 1) == 0.0
    # A share whose answers fell behind its rate is not held, whatever its p99.
    behind = sweep("php", 1000, [CALM])
    behind[5]["figures"]["requests_per_s"] = 0.9 * behind[5]["figures"]["rate_asked"]  # 70 %
    assert e7.sustained(results(*behind), "php", 1) == 500.0
    assert e7.knee(r, "php") == 90 and e7.knee(results(*sweep("node", 1000, [STEEP])),
                                                "node") == 50


def test_the_sustained_claim_compares_within_blocks():
    r = results(*sweep("php", 1000, [CALM] * 3), *sweep("node", 1000, [STEEP] * 3),
                *sweep("blocking", 2000, [STEEP] * 3), *sweep("async", 2000, [CALM] * 3))
    claim = e7.sustained_claim(r)
    assert claim.real.verdict == REPRODUCED  # 900 ÷ 500 in every block
    assert claim.real.statistic.estimate == pytest.approx(1.8)
    assert claim.model.verdict == NOT_REPRODUCED  # 1000 ÷ 1800
    assert "e7-node-s120" in claim.real.bases
    at_80 = e7.at_80_claim(r)
    assert at_80.real.verdict == NOT_REPRODUCED  # php's p99 12 ms, node's 300 ms
    assert at_80.model.verdict == REPRODUCED


def test_the_report_and_plot_read_the_sweep(tmp_path):
    r = results(*sweep("php", 1000, [CALM] * 2), *sweep("node", 1000, [STEEP] * 2),
                directory=str(tmp_path))
    text = e7.section(r)
    assert "| 90 % | 900: 7.5 / 30 / 60 / 90 |" in text
    assert "sustained with p99" in text and "| php | 1,000 [1,000–1,000] | 900 | 90 % |" in text
    plot, = e7.plots(r)
    assert plot.columns[:2] == ["share", "bound"] and len(plot.panels) == 2
    assert plot.rows[0][:3] == [10, 100, 1.25]
    headline = {figure.name: figure.json() for figure in e7.headline(r)}
    assert headline["E7 php sustained with p99 ≤ 100 ms (req/s)"]["value"] == 900
    assert headline["E7 php at 90 % p99 (ms)"]["share"] == 0.9


def test_the_plan_rates_each_server_by_its_own_capacity():
    parts = e7.plan(Context("smoke", ["php", "node", "blocking", "async"]))
    capacity, swept, stalled = parts
    assert {run.load.tool for run in capacity.runs()} == {"ab"}
    assert [load.share for load in swept.points()] == [0.5, e7.AT_80, 1.2]
    assert all(not run.warm and run.capacity is not None for run in swept.runs() + stalled.runs())
    assert stalled.blocks == 1 and {run.load.tool for run in stalled.runs()} == {"openloop-paused"}
    assert stalled.runs()[0].load.keepalive
