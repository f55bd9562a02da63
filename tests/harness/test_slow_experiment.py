"""E11 and its load tools: slowhttptest's recorded report read as a run's figures, its command
per mode; the claim both ways, the plan per size, the report and headline figures, on crafted
runs."""

import os
import time

import pytest
from crafted import blocks, results

from modelbench import systems
from modelbench.engine.httpclient import Reply
from modelbench.engine.loads import ALL, slowattack
from modelbench.engine.plan import Load
from modelbench.experiments import e11
from modelbench.experiments.base import Context
from modelbench.report.verdicts import NOT_MEASURED, NOT_REPRODUCED, REPRODUCED

DATA = os.path.join(os.path.dirname(__file__), "data")


class Attempt:
    load = Load("slow-headers", "/hello", 300, seconds=4)

    @staticmethod
    def raw(suffix):
        return os.path.join(DATA, suffix)


def test_the_tools_run_slowhttptest_in_their_mode_and_read_its_report():
    headers, read = ALL["slow-headers"], ALL["slow-read"]
    command = headers.command(Attempt, "http://127.0.0.1:1/hello")
    assert command[:2] == ["slowhttptest", "-H"] and command[command.index("-c") + 1] == "300"
    assert command[command.index("-l") + 1] == "4" and command[-1] == "http://127.0.0.1:1/hello"
    assert "-X" in read.command(Attempt, "http://127.0.0.1:1/html")
    figures = headers.figures(Attempt, os.path.join(DATA, "slowhttptest.out"), "", {})
    assert "tool_unavailable_s" in figures and "unavailable_s" not in figures  # it only connects
    assert headers.connections(Attempt.load) == 300 and not headers.warmed and headers.local_only


def test_a_probe_is_unanswered_without_a_2xx_in_time():
    replies = [(200, 0.002), (None, 3.0), (200, 3.5), (503, 0.001), (200, 0.01)]
    figures = slowattack.probe_figures(replies)
    assert figures == {"probes": 5, "probes_unanswered": 3, "unavailable_s": 3.0,
                       "unavailable_share": 0.6, "probe_max_ms": 3500.0}
    assert slowattack.probe_figures([])["unavailable_share"] is None
    assert "unanswered 3 of 5 probes" in ALL["slow-read"].summary(
        {**figures, "peak_connected": 300, "exit_status": "Hit test time limit"})


class Silent:
    """A target that never answers: each probe waits out its timeout."""

    asked = 0

    def get(self, path, timeout):
        Silent.asked += 1
        return Reply(seconds=timeout, error="timed out")


def test_the_probe_asks_on_schedule_whatever_the_answers_take(monkeypatch):
    monkeypatch.setattr(slowattack, "PROBE_INTERVAL_S", 0.05)
    monkeypatch.setattr(slowattack, "PROBE_TIMEOUT_S", 0.2)
    probe = slowattack.Probe(Silent())
    probe.start()
    deadline = time.monotonic() + 5
    while len(probe.threads) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    # Four sent within 5 s although each waits 0.2 s: not one after the other's answer.
    replies = probe.stop()
    assert len(replies) >= 4 and all(status is None for status, _ in replies)


def run_figures(unanswered, probes=20):
    return {"probes_unanswered": unanswered, "probes": probes, "peak_connected": 300,
            "unavailable_share": unanswered / probes, "exit_status": "Hit test time limit"}


def system(key, headers, read=None):
    out = blocks(e11.base(key, "slow-headers"), key, *[run_figures(headers + b % 2)
                                                       for b in range(3)])
    if read is not None:
        out += blocks(e11.base(key, "slow-read"), key, *[run_figures(read) for _ in range(3)])
    return out


def test_the_claim_holds_when_the_workers_are_taken_and_fails_the_other_way():
    r = results(*system("php", 19, 19), *system("node", 0, 0), *system("blocking", 0, 0),
                *system("async", 19, 0))
    claim, = e11.claims(r)
    assert claim.real.verdict == REPRODUCED
    assert claim.real.bases == ("e11-php-slow-headers", "e11-node-slow-headers")
    assert claim.model.verdict == NOT_REPRODUCED
    assert "blocking was unavailable for" in claim.model.cause and "async for" in claim.model.cause
    assert e11.taken_claim(results(*system("php", 19))).real.verdict == NOT_MEASURED


def test_the_plan_per_size():
    part, = e11.plan(Context("smoke", ["php", "node", "blocking", "async", "nginx"]))
    assert part.blocks == 1 and part.more == 0
    assert all(group.fresh and not group.runs[0].warm for group in part.groups)
    runs = {run.base: run for run in part.runs()}
    assert "e11-nginx-slow-headers" in runs and "e11-nginx-slow-read" not in runs  # /hello only
    short = runs[f"e11-{e11.SHORT}-slow-headers"]
    assert short.server.own_flags == ("--timeout", "5") and short.server.system.name == "blocking"
    assert runs["e11-php-slow-read"].load.path == "/html"
    assert runs["e11-php-slow-headers"].load == Load("slow-headers", "/hello", 300, seconds=4)
    default, = e11.plan(Context("default", ["async"]))
    assert default.blocks == 3 and len(default.runs()) == 2
    assert default.runs()[0].load.seconds == 10
    standard, = e11.plan(Context("standard", systems.names()))  # every system, beside the short
    assert {run.server.key for run in standard.runs()} == {*systems.names(), e11.SHORT}


def test_the_report_and_headline_read_the_runs():
    r = results(*system("php", 19, 18), *system("async", 0))
    text = e11.section(r)
    assert "| php | 19 of 20 (at most 300 connected) | 18 of 20 (at most 300 connected) |" \
        " Hit test time limit |" in text
    assert "| async | 0 of 20 (at most 300 connected) | – |" in text
    headline = {figure.name: figure.json() for figure in e11.headline(r)}
    taken = headline["E11 php slow-headers: share of the attack unavailable"]
    assert taken["value"] == pytest.approx(0.966, abs=2e-3) and taken["unit"] == "share"
    assert taken["concurrency"] == 300
