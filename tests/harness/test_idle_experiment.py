"""E8 and its load tools on crafted data: an answer read whole, how opening stops and says so, the
memory per connection, the open files needed, the claims both ways, the plan per size and the
report, plot and headline figures."""

import socket
import threading
import time

import pytest
from crafted import blocks, results

from modelbench import checks
from modelbench.engine.engine import Engine, Held, estimate_s
from modelbench.engine.loads import ALL, idle
from modelbench.engine.plan import Group, Part
from modelbench.experiments import e8
from modelbench.experiments.base import Context
from modelbench.report.verdicts import NOT_MEASURED, NOT_REPRODUCED, REPRODUCED


def test_an_answer_is_held_once_its_body_is_whole():
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\n"
    assert idle.answered(head[:20]) is None
    assert idle.answered(head + b"Hello") is None
    assert idle.answered(head + b"Hello world\n") == "held"
    assert idle.answered(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n") == \
        "answered 503"


def snapshot(rss, pss, processes=1, threads=1, fds=10):
    return {"processes": processes, "threads": threads, "fds": fds, "rss_kib": rss,
            "pss_kib": pss}


def test_memory_per_connection_is_pss_when_readable_else_rss():
    before, during = snapshot(10_000, 8_000), snapshot(30_000, 18_000)
    assert idle.per_connection(100, before, during) == {
        "memory_measure": "pss", "kib_per_connection": 100.0, "rss_kib_per_connection": 200.0}
    unreadable = snapshot(30_000, None)
    assert idle.per_connection(100, before, unreadable)["kib_per_connection"] == 200.0
    assert idle.per_connection(100, before, unreadable)["memory_measure"] == "rss"
    assert "kib_per_connection" not in idle.per_connection(0, before, during)
    # Apache at 100 (7 s of spawning workers): 92 of the 100 answered still open, none waiting.
    assert idle.per_connection(92, before, during, 100)["kib_per_connection"] == 108.7
    assert "kib_per_connection" not in idle.per_connection(39, before, during, 527, 256)
    assert "kib_per_connection" not in idle.per_connection(80, before, during, 100)


class Opened:
    """A Holder's outcome as held_figures reads it: 300 answered (150 of them closed since, at
    the keep-alive timeout), 256 waiting."""
    answered, waiting = [None] * 300, [None] * 256
    failures, stopped, open_s = {"reset": 2}, "10 s of opening", 10.004


def test_a_stop_short_says_what_stopped_it_and_the_count_reached():
    before, during = snapshot(10_000, 8_000, 6, 6, 20), snapshot(40_000, 20_000, 151, 151, 600)
    figures = idle.held_figures(Opened, 1000, 150, before, during, during, 140, (2200, None))
    assert figures["held"] == 150 and figures["held_answered"] == 300
    assert figures["held_waiting"] == 256 and figures["held_failed"] == 2
    assert figures["held_processes"] == 151 and figures["open_after_probe"] == 140
    assert figures["held_open_s"] == 10.0
    # Workers served 300, 150 closed since, 256 waiting: the growth is not the 150's alone.
    assert "kib_per_connection" not in figures and figures["memory_measure"] == "pss"
    text = idle.stop_text(figures, Opened.stopped, Opened.failures)
    assert text.startswith("150 of 1,000 held: 10 s of opening") and "2 reset" in text
    assert text.endswith("open-file limits: harness 2200, server ?")
    whole = dict(figures, held=1000)
    assert idle.stop_text(whole, "", {}) == ""


def test_refused_connections_are_counted_and_opening_goes_on():
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    holder = idle.Holder(("127.0.0.1", port))  # nothing listens there now
    try:
        holder.open(3, open_s=5)
        assert holder.answered == [] and holder.waiting == [] and 0 < holder.open_s < 5
    finally:
        holder.close()
    assert holder.failures == {"refused": 3} and holder.stopped == ""


def test_answered_connections_are_held_and_those_closed_since_are_not_counted():
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nHello\n"
    with socket.socket() as listener:  # answers two GETs, then closes the second connection
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)

        def answer_two():
            accepted = [listener.accept()[0] for _ in range(2)]
            for connection in accepted:
                connection.recv(1024)
                connection.sendall(answer)
            accepted[1].close()
            time.sleep(0.5)
            accepted[0].close()
        thread = threading.Thread(target=answer_two)
        thread.start()
        holder = idle.Holder(listener.getsockname())
        try:
            holder.open(2, open_s=5)
            time.sleep(0.2)
            assert len(holder.answered) == 2 and holder.still_open() == 1
        finally:
            holder.close()
            thread.join()
    assert holder.stopped == "" and not holder.failures


def test_connections_nobody_answers_stop_opening_as_the_servers_cap():
    with socket.socket() as listener:  # accepts into its backlog, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        holder = idle.Holder(listener.getsockname())
        try:
            holder.open(5, open_s=5, no_progress_s=0.3)
            assert len(holder.waiting) == 5 and holder.still_open() == 0
        finally:
            holder.close()
    assert "the server's cap" in holder.stopped


def test_the_open_files_needed_cover_both_ends_of_the_held_connections():
    assert checks.open_files_needed(200) == 800  # siege's users and the server's side
    assert checks.open_files_needed(10, held=10_000) == 10_400  # an end in each process


def test_the_tools_say_what_they_hold_and_probe():
    load = e8.plan(Context("smoke", ["php"]))[0].runs()[-1].load
    assert load.tool == "idle-ab" and load.held == 200
    assert ALL["idle-ab"].text(load) == "200 idle connections held, probe: ab -c 10 -n 200 /html"
    assert ALL["idle-ab"].connections(load) == 200 + 200  # ab's new connections too
    assert ALL["idle-openloop"].local_only


def run_figures(held, asked, kib, p99, threads=None):
    return {"held": held, "held_asked": asked, "open_after_probe": held, "memory_measure": "pss",
            "kib_per_connection": kib, "held_processes": 1, "held_threads": threads or 1,
            "held_fds": held + 20, "p50_ms": p99 / 3, "p99_ms": p99, "requests_per_s": 500}


def system(key, per_count, block_count=3):
    """Records of key's /hello runs at each count: per_count {asked: (held, KiB, p99 ms)}."""
    out = []
    for asked, (held, kib, p99) in per_count.items():
        stopped = {"stopped": f"{held} of {asked} held: the server's cap"} if held < asked else {}
        out += blocks(e8.base(key, asked), key,
                      *[run_figures(held, asked, kib * (1 + b / 100), p99 * (1 + b / 100))
                        for b in range(block_count)], **stopped)
    return out


# A process per connection and its probe's wait past the workers; an event loop.
PREFORK = {100: (100, 900, 5), 1000: (150, 880, 3000)}
LOOP = {100: (100, 3, 4), 1000: (1000, 2.5, 5)}


def test_the_claims_hold_for_a_worker_per_connection_against_a_loop():
    r = results(*system("php", PREFORK), *system("node", LOOP), *system("blocking", LOOP),
                *system("async", PREFORK))
    memory = e8.memory_claim(r)
    assert memory.real.verdict == REPRODUCED
    assert "with 150 held" in memory.real.evidence and "e8-node-n1000-hello" in memory.real.bases
    assert memory.model.verdict == NOT_REPRODUCED  # crafted the other way round
    waits = e8.probe_claim(r)
    assert waits.real.verdict == REPRODUCED and waits.real.statistic.estimate == pytest.approx(600)
    assert waits.model.verdict == NOT_REPRODUCED


def test_the_claims_need_counts_on_both_sides_of_the_workers():
    r = results(*system("php", {100: PREFORK[100]}), *system("node", {100: LOOP[100]}))
    assert e8.probe_claim(r).real.verdict == NOT_MEASURED
    assert e8.memory_claim(r).model.verdict == NOT_MEASURED


def test_the_plan_per_size():
    ctx = Context("smoke", ["php", "node", "blocking", "async", "nginx"])
    part, = e8.plan(ctx)
    assert part.blocks == 1 and part.more == 0
    assert all(len(group.runs) == 1 and not group.runs[0].warm for group in part.groups)
    helds = sorted({run.load.held for run in part.runs()})
    assert helds == [10, 200]
    nginx = [run for run in part.runs() if run.server.key == "nginx"]
    assert {run.load.tool for run in nginx} == {"idle-openloop"}  # it serves /hello only
    assert nginx[0].server.own_flags == ("--worker-connections", str(e8.NGINX_CONNECTIONS))
    flags = {run.server.key: run.server.own_flags for run in part.runs()}
    assert flags["async"] == ("--keepalive-timeout", str(e8.ASYNC_KEEPALIVE_S))
    assert flags["php"] == flags["blocking"] == ()  # their 5 s, the posts' point
    standard, = e8.plan(Context("standard", ["async"]))
    assert sorted({run.load.held for run in standard.runs()}) == [100, 1000, 5000, 10000]
    assert standard.blocks == 3 and len(standard.runs()) == 8
    assert e8.plan(Context("default", ["node4", "fpm"])) == []  # the posts' four and nginx


def test_the_report_plot_and_headline_read_the_runs(tmp_path):
    r = results(*system("php", PREFORK), *system("async", LOOP), directory=str(tmp_path))
    assert "nginx grew" not in e8.section(r)
    with_nginx = results(*system("nginx", {10000: (10000, 0.25, 2)}, block_count=1))
    assert "nginx grew by 2.4 MiB with 10,000 connections held" in e8.section(with_nginx)
    text = e8.section(r)
    assert "| php | 100 (100) | 150 of 1,000 (150) |" in text
    assert ("- php, 1,000: 150 of 1000 held: the server's cap (block 1; blocks 2 (150 held), "
            "3 (150 held) stopped short too)") in text
    assert text.count("- php, 1,000:") == 1  # a line per system and count, not per block
    assert "PSS of every process" in text
    plot, = e8.plots(r)
    assert plot.columns[:7] == ["held", "php_kib", "php_kib_low", "php_kib_high", "php_p99",
                                "php_p99_low", "php_p99_high"]
    assert plot.rows[0][0] == 100 and plot.rows[0][1] == pytest.approx(909)
    assert plot.rows[0][2] < 909 < plot.rows[0][3]  # its interval, drawn as a band
    assert all(line.band and line.low for panel in plot.panels for line in panel.lines)
    headline = {figure.name: figure.json() for figure in e8.headline(r)}
    held = headline["E8 php with 1,000 asked: connections held"]
    assert held["value"] == 150 and held["concurrency"] == 1000 and held["unit"] == "connections"
    assert headline["E8 async with 1,000 asked: KiB per connection"]["unit"] == "KiB"


class Counting(Engine):
    """An engine whose servers and runs are only counted."""

    def __post_init__(self):
        self.held, self.references, self.events = {}, {}, []

    def _start(self, group, number):
        held = Held(target=object())
        self.events.append("start")
        held.stack.callback(lambda: self.events.append("stop"))
        return held

    def _run(self, run, number, held, restart=None):
        self.events.append(run.base)
        return {"base": run.base}


def test_a_fresh_group_starts_its_server_for_each_run_and_stops_it_after():
    part, = e8.plan(Context("smoke", ["async"]))
    engine = Counting(".", None, None, log=lambda line: None)
    engine.run([part])
    runs = [run.base for run in part.runs()]
    assert sorted(e for e in engine.events if e.startswith("e8-")) == sorted(runs)
    assert engine.events == [event for base in engine.events[1::3]
                             for event in ("start", base, "stop")]
    shared = Part([Group(part.runs())])  # the same runs on one server, as other experiments
    engine = Counting(".", None, None, log=lambda line: None)
    engine.run([shared])
    assert engine.events[0] == "start" and engine.events[-1] == "stop"
    assert engine.events.count("start") == 1


class Polluted:
    """A quiet gate whose first attempt of every run was polluted: each run is measured twice."""

    def measure(self, attempt):
        attempt(1)
        return attempt(2), 2


class Remeasuring(Counting):
    """Counting's servers, the engine's own _run, attempts only counted (with their server)."""

    _run = Engine._run

    def _start(self, group, number):
        held = super()._start(group, number)
        held.target = f"server {self.events.count('start')}"
        return held

    def _attempt(self, run, number, attempt, target, flags):
        self.events.append(f"{run.base} attempt {attempt} on {target}")
        return {"base": run.base, "status": "ok"}


def test_a_fresh_run_measured_again_is_measured_on_a_server_started_again():
    part, = e8.plan(Context("smoke", ["async"]))
    engine = Remeasuring(".", None, None, gate=Polluted(), log=lambda line: None)
    engine.run([Part(part.groups[:1], blocks=1)])
    base = part.groups[0].runs[0].base
    assert engine.events == ["start", f"{base} attempt 1 on server 1", "stop", "start",
                             f"{base} attempt 2 on server 2", "stop"]


def test_a_run_on_a_server_with_workers_is_estimated_to_wait_out_the_opening():
    """Above WORKERS held, the blocking side's opening lasts its OPEN_S; Apache also forks."""
    runs = {g.runs[0].base: g.runs[0] for g in e8.plan(Context("standard", e8.SYSTEMS))[0].groups}

    def estimate(key, held):
        return estimate_s(runs[e8.base(key, held)])
    assert estimate("blocking", 1000) >= idle.OPEN_S > estimate("blocking", 100)
    assert estimate("php", 1000) >= idle.OPEN_S + e8.APACHE_WAIT_S
    assert max(estimate(key, 10000) for key in ("node", "async", "nginx")) < idle.OPEN_S
