"""The load tools (engine.loads): their parsers, on outputs the real tools printed here (data/),
their command lines, and what the engine asks of them."""

import os
import types

import pytest
from conftest import data

from modelbench.engine import loads
from modelbench.engine.loads import ab, openloop, siege, slowhttptest, standalone, wrk
from modelbench.engine.loads.base import Attempt, Generator
from modelbench.engine.plan import Load


def test_ab_report_and_percentiles():
    figures = ab.parse(data("ab-php-c20.txt"), data("ab-php-c20.csv"))
    assert figures["complete"] > 0
    assert figures["failed"] == 0 and figures["non2xx"] == 0
    assert figures["requests_per_s"] > 0 and figures["mean_ms"] > 0
    assert figures["document_bytes"] == 32581
    assert figures["p50_ms"] <= figures["p90_ms"] <= figures["p99_ms"] <= figures["max_ms"]


def test_ab_length_failures_and_their_breakdown():
    figures = ab.parse(data("ab-factorial.txt"), data("ab-factorial.csv"))
    assert figures["failed"] > 0
    assert figures["failed_length"] == figures["failed"]
    assert figures["failed_other"] == 0


def test_ab_with_l_accepts_varying_lengths():
    figures = ab.parse(data("ab-factorial-l.txt"), data("ab-factorial-l.csv"))
    assert figures["failed"] == 0 and figures["failed_length"] == 0
    assert "document_bytes" not in figures  # "Variable"


def test_ab_under_100_requests_takes_the_report_table():
    # ab 2.3 indexes past its array for the 99th percentile below 100 requests: the -e file is
    # not ascending there, and the report's own table (whole milliseconds) is used.
    csv = data("ab-small.csv")
    assert float(csv.splitlines()[100].split(",")[1]) < float(csv.splitlines()[99].split(",")[1])
    figures = ab.parse(data("ab-small.txt"), csv)
    assert figures["p99_ms"] == 2.0 and figures["max_ms"] == 2.0


def test_ab_without_its_summary_is_an_error():
    with pytest.raises(loads.ParseError):
        ab.parse("ab: could not connect\n", "")


def test_siege_summary_and_percentiles_from_its_lines():
    figures = siege.parse(data("siege-node.txt"), data("siege-node.err"), 3.0)
    assert figures["complete"] == 239
    assert figures["requests_per_s"] == 89.85
    assert figures["failed"] == 0 and figures["availability_pct"] == 100.0
    assert figures["mean_ms"] == pytest.approx(1000 * 66.40 / 89.85, abs=0.01)
    assert figures["p50_ms"] <= figures["p90_ms"] <= figures["p99_ms"]


def test_siege_that_hung_gets_its_summary_from_its_lines():
    # siege 4.0.7 can hang after "Lifting the server siege..." and print no summary (the
    # recorded stderr is a real one cut after that line); the figures come from its lines.
    lines = data("siege-hung.txt")
    transactions = sum(1 for line in lines.splitlines() if line.startswith("HTTP/"))
    figures = siege.parse(lines, data("siege-hung.err"), 2.5)
    # Its lines: 237 here, where siege's own summary of the same run said 239 hits.
    assert figures["complete"] == transactions == 237
    assert figures["requests_per_s"] == pytest.approx(237 / 2.5, abs=0.01)
    assert figures["max_ms"] == pytest.approx(1870, abs=1)


def test_siege_whose_time_ran_out_before_its_users_started_says_so():
    """Its "system resources exhausted" came after "Lifting the server siege": the timer, not a
    limit (a -c 500 run of 3 s on a host held to one CPU, 2026-12-07)."""
    load = Load("siege", "/json", 500, seconds=3)
    late = os.path.join(os.path.dirname(__file__), "data", "siege-users-late.err")
    cause = load.kind.exit_cause(1, late, load)
    assert cause.startswith("siege's 3 s were over before it had started its 500 users")
    # Any other failure: the status and the last lines, without siege's colours.
    assert Generator.exit_cause(load.kind, 1, late, load) == (
        "siege exited with 1: upgrade your libraries or tune your system in order | to exceed "
        "500 users. | [fatal] system resources exhausted")


def test_siege_that_never_ended_is_an_error():
    with pytest.raises(loads.ParseError):
        siege.parse(data("siege-hung.txt"), "** SIEGE 4.0.7\n", 1.0)


def test_wrk_summary_line():
    figures = wrk.parse(data("wrk-hello.txt"))
    assert figures["complete"] == 52794
    assert figures["requests_per_s"] == pytest.approx(52794 / 1.014293, rel=1e-4)
    assert figures["failed"] == 0 and figures["non2xx"] == 0
    assert figures["p50_ms"] == 0.321 and figures["p99_ms"] == 6.269


def test_wrk_without_the_summary_script_is_an_error():
    with pytest.raises(loads.ParseError):
        wrk.parse("Running 1s test @ http://127.0.0.1:1/\n")


def test_standalone_reports():
    figures = standalone.parse(data("standalone-async.txt"))
    assert figures == {"iterations": 200, "real_s": 0.076, "user_s": 0.016, "sys_s": 0.009,
                       "iterations_per_s": 2629.1}
    assert standalone.iterations_run(data("standalone-php.txt")) == 200


def test_slowhttptest_csv_and_its_end():
    figures = slowhttptest.parse(data("slowhttptest.csv"), data("slowhttptest.out"))
    assert figures == {"seconds": 4, "peak_connected": 20, "unavailable_s": 0,
                       "exit_status": "Hit test time limit"}


def command(load, rate=None):
    """The tool's command line for load, given the server's rate before, and its record."""
    recorder = types.SimpleNamespace(raw=lambda run_id, suffix: f"{run_id}.{suffix}",
                                     checkout=types.SimpleNamespace(script=lambda name: name,
                                                                    binary=lambda name: name))
    attempt = Attempt(recorder, {"id": "x", "raw": []}, load, rate=rate)
    return load.kind.command(attempt, "http://h:1" + load.path), attempt.record


def test_a_load_names_its_tool_which_gives_its_command():
    with pytest.raises(ValueError):
        Load("httperf", "/hello")
    timed = Load("ab", "/html", 20, seconds=3, keepalive=True)
    assert timed.kind is loads.ALL["ab"] and timed.text() == "ab -k -c 20 -t 3 /html"
    # A timed ab run: the count the server's rate before makes, at least MIN_REQUESTS, under a
    # time limit far beyond; without a rate, its own; cut (a time and a cap), its own. -t before
    # -n: ab's -t resets the count to 50000 whatever came before it.
    line, record = command(timed, 1000.0)
    assert line == ["ab", "-r", "-k", "-c", "20", "-t", "14", "-n", "3000", "-e",
                    "x.ab-percentiles.csv", "http://h:1/html"]
    assert record == {"id": "x", "raw": ["x.ab-percentiles.csv"], "requests": 3000, "cut": False}
    assert command(timed, 10.0)[1]["requests"] == ab.MIN_REQUESTS
    assert command(timed)[0][5:9] == ["-t", "3", "-n", "0"]
    cut = Load("ab", "/html", 20, n=5, seconds=3, variable_length=True)
    assert command(cut, 1000.0)[0][3:8] == ["20", "-t", "3", "-n", "5"]
    assert command(cut)[0][-2:] == ["-l", "http://h:1/html"] and command(cut)[1]["cut"]
    assert command(Load("wrk", "/", 1, seconds=2))[0][:3] == ["wrk", "-t", "1"]
    # New connections: one per request without keep-alive, one per client with it (wrk's always).
    assert Load("ab", "/hello", 20, n=500).connections == 500
    assert Load("ab", "/hello", 20, n=500, keepalive=True).connections == 20
    assert Load("wrk", "/hello", 20, seconds=2).connections == 20
    assert Load("standalone", n=100).connections == 0
    assert Load("standalone", n=100).kind.local_only and not timed.kind.local_only
    assert Load("siege", "/json", 5, seconds=2).kind.estimate_s(Load("siege", seconds=2)) == 3.0


def test_openloop_report():
    # A real report: openloop --rate 200 --duration 1 --connections 4 against the async
    # server's /hello.
    figures = openloop.parse(data("openloop-hello.json"))
    assert figures["complete"] == 200 and figures["failed"] == figures["non2xx"] == 0
    assert figures["not_sent"] == 0 and figures["rate_asked"] == 200
    assert figures["requests_per_s"] == 200.0 and figures["duration_s"] == 1.0
    assert figures["p50_ms"] <= figures["p90_ms"] <= figures["p99_ms"] <= figures["p99_9_ms"] \
        <= figures["max_ms"]
    assert figures["uncorrected_p50_ms"] <= figures["uncorrected_p99_ms"] \
        <= figures["uncorrected_max_ms"]
    # Latency from the intended send time includes the wait before the send.
    assert figures["p99_ms"] >= figures["uncorrected_p99_ms"]
    assert figures["mean_ms"] >= figures["uncorrected_mean_ms"]
    assert figures["generator_cpu_s"] > 0
    assert loads.ALL["openloop"].summary(figures).startswith("200.0 of 200 req/s, p99 91.1 ms")


def test_openloop_without_its_report_is_an_error():
    with pytest.raises(loads.ParseError):
        openloop.parse("openloop: cannot resolve 'x'\n")
    with pytest.raises(loads.ParseError):
        openloop.parse('{"tool": "openloop"}')


def test_openloop_command_and_connections():
    pool = Load("openloop", "/hello", 8, seconds=2, keepalive=True, rate=500)
    line, record = command(pool)
    assert line == ["openloop", "--rate", "500", "--duration", "2", "--connections", "8",
                    "--timeout", "30", "http://h:1/hello"]
    assert record["rate"] == 500 and record["keepalive"]
    assert pool.text() == "openloop -k -c 8 --rate 500 -d 2s /hello" and pool.connections == 8
    fresh = Load("openloop", "/hello", seconds=2, rate=500)
    assert command(fresh)[0][5:7] == ["--connections", "0"] and fresh.connections == 1000
    assert fresh.kind.estimate_s(fresh) == 2 + fresh.kind.overhead_s
