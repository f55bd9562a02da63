"""E9 and its load tool on crafted data: the heavy request's n chosen from its times, the event
loop's delay read from /status, the heavy generator's report, the claim both ways, the plan per
size and the report, plot and headline figures."""

import os

import pytest
from crafted import blocks, results

from modelbench.engine.httpclient import Reply
from modelbench.engine.loads import ALL, mixed
from modelbench.engine.measure import read
from modelbench.experiments import e9
from modelbench.experiments.base import Context
from modelbench.report.verdicts import NOT_MEASURED, NOT_REPRODUCED, REPRODUCED

DATA = os.path.join(os.path.dirname(__file__), "data")


class Factorials:
    """A server whose /factorial?n= takes (n / 1000)² × unit_ms, as the C++ one about does."""

    def __init__(self, unit_ms, status=200):
        self.unit_ms, self.status, self.asked = unit_ms, status, []

    def get(self, path, timeout):
        n = int(path.rpartition("=")[2])
        self.asked.append(n)
        return Reply(self.status, seconds=(n / 1000) ** 2 * self.unit_ms / 1000)


def test_the_heavy_n_is_chosen_for_its_time_and_capped():
    assert mixed.next_n(2000, 12.5, 50) == 4000
    assert mixed.next_n(2000, 0.0, 50) == mixed.MAX_N  # a time under the clock's: the cap
    server = Factorials(unit_ms=0.4)  # 50 ms at n = 11,180, as blocking-server here
    n, alone = mixed.choose_n(server, 50)
    assert n == pytest.approx(11180, abs=2) and alone == pytest.approx(50, rel=0.01)
    assert server.asked[:1] == [mixed.FIRST_N] and server.asked[-3:] == [n] * mixed.HEAVY_TRIES
    slow = Factorials(unit_ms=1000)  # PHP-like: 50 ms well under n = 1,000
    assert mixed.choose_n(slow, 50)[0] == 224
    with pytest.raises(mixed.StepFailed, match="answered 400"):
        mixed.choose_n(Factorials(1, status=400), 50)


def test_the_loop_delay_is_read_where_each_server_puts_it_the_worst_worker():
    asynchronous = {"pid": 1, "async": {"event_loop_delay": {"samples": 100, "p99_ms": 48.81,
                                                             "max_ms": 60.4}}}
    node = {"pid": 2, "event_loop_delay": {"samples": 50, "p99_ms": 3.0, "max_ms": 70.0}}
    assert mixed.loop_delay([asynchronous, node]) == {
        "loop_delay_samples": 150, "loop_delay_p99_ms": 48.81, "loop_delay_max_ms": 70.0}
    # The blocking model and Node.js 4 (no perf_hooks) report none; real systems have no /status.
    assert mixed.loop_delay([{"pid": 3, "threads": 5}, {"event_loop_delay": {"samples": 0}}]) == {}
    assert mixed.loop_delay([]) == {}


def test_the_heavy_generators_report_goes_under_heavy_names():
    figures = mixed.heavy_figures(read(os.path.join(DATA, "openloop-hello.json")), 4321, 49.87)
    assert figures["heavy_n"] == 4321 and figures["heavy_alone_ms"] == 49.87
    assert figures["heavy_rate_asked"] == 200.0 and figures["heavy_complete"] == 200
    assert figures["heavy_failed"] == 0 and "heavy_p99_ms" in figures
    assert set(figures) == {"heavy_n", "heavy_alone_ms", "heavy_rate_asked", "heavy_complete",
                            "heavy_failed", "heavy_non2xx", "heavy_not_sent", "heavy_p50_ms",
                            "heavy_p99_ms"}


def test_the_tool_says_what_it_sends_and_opens():
    tool = ALL["heavy-openloop"]
    load = e9.plan(Context("default", ["async"]))[0].runs()[-1].load
    assert load.heavy == 0.05 and load.rate == e9.RATE and load.seconds == 20
    assert tool.connections(load) == round(100 * 1.05 * 20)
    assert load.text().endswith("/hello, 5 % heavy (/factorial of 50 ms)")
    assert tool.local_only
    assert "p99 40 ms" in tool.summary({
        "requests_per_s": 100, "rate_asked": 100, "p99_ms": 30, "uncorrected_p99_ms": 29,
        "failed": 0, "not_sent": 0, "heavy_n": 5000, "heavy_alone_ms": 50, "heavy_p99_ms": 40})


def run_figures(p99, alone):
    return {"p50_ms": p99 / 4, "p99_ms": p99, "heavy_alone_ms": alone, "heavy_n": 5000,
            "heavy_p99_ms": alone * 1.2, "p99_per_heavy": p99 / alone,
            "server_cpu_pct_core": 25, "requests_per_s": 100}


def system(key, p99_per_share, alone=50, block_count=3):
    """key's runs: p99_per_share {share: light p99 ms}, a little more each block."""
    out = []
    for share, p99 in p99_per_share.items():
        out += blocks(e9.base(key, share), key,
                      *[run_figures(p99 * (1 + b / 50), alone) for b in range(block_count)])
    return out


LOOP = {0.0: 0.7, 0.01: 35, 0.05: 48}
THREADS = {0.0: 0.8, 0.01: 1.0, 0.05: 2.5}


def test_the_claim_holds_for_a_loop_against_threads_and_fails_the_other_way():
    r = results(*system("php", THREADS), *system("node", LOOP), *system("blocking", LOOP),
                *system("async", THREADS))
    claim, = e9.claims(r)
    assert claim.real.verdict == REPRODUCED
    assert claim.real.statistic.estimate == pytest.approx(48 * 1.02 / 50, rel=1e-3)
    assert "e9-node-h5" in claim.real.bases and "e9-php-h5" in claim.real.bases
    assert "×3.1 its p99 without heavy requests" in claim.real.evidence  # php's growth
    assert claim.model.verdict == NOT_REPRODUCED  # crafted the other way round
    assert "async's light p99 was" in claim.model.cause and "blocking's was" in claim.model.cause


def test_the_claim_needs_the_largest_share_on_both_systems():
    r = results(*system("php", THREADS), *system("node", {0.0: 0.7}))
    assert e9.waits_claim(r).real.verdict == NOT_MEASURED
    assert e9.waits_claim(r).model.verdict == NOT_MEASURED


def test_the_plan_per_size():
    part, = e9.plan(Context("smoke", ["php", "node", "blocking", "async", "nginx", "node4"]))
    assert part.blocks == 1 and part.more == 0
    assert all(group.fresh and len(group.runs) == 1 for group in part.groups)
    assert sorted({run.server.key for run in part.runs()}) == ["async", "blocking", "node", "php"]
    assert sorted({run.load.heavy for run in part.runs()}) == [0.0, 0.05]
    default, = e9.plan(Context("default", ["php"]))
    assert default.blocks == 3 and [r.base for r in default.runs()] == [
        "e9-php-h0", "e9-php-h1", "e9-php-h5"]
    assert e9.plan(Context("default", ["nginx"])) == []  # it serves /hello only


def test_the_report_plot_and_headline_read_the_runs():
    r = results(*system("php", THREADS), *system("async", LOOP))
    text = e9.section(r)
    assert "| 5 % | 0.6 ms / 2.5 ms | 12.2 ms / 49.0 ms |" in text
    assert "| 5 % | n=5,000: 50 ms alone, p99 60 ms |" in text
    assert "| 0 % | – / – | – / – |" in text  # no loop delay recorded
    plot, = e9.plots(r)
    assert plot.columns[:5] == ["share", "heavy", "php_p99", "php_p99_low", "php_p99_high"]
    assert plot.rows[0][1] == e9.HEAVY_MS  # the line a waiting light request nears
    assert [row[0] for row in plot.rows] == [0, 1, 5]
    headline = {figure.name: figure.json() for figure in e9.headline(r)}
    light = headline["E9 async with 5 % heavy: light p99 (ms)"]
    assert light["value"] == pytest.approx(49.0) and light["share"] == 0.05
    assert light["unit"] == "ms"
    assert headline["E9 php with 1 % heavy: heavy request alone (ms)"]["unit"] == "ms"
