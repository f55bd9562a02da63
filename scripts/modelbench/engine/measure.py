"""A command run while the server, mariadbd and the machine are sampled: one run's figures."""

import contextlib
import os
import re
import select
import subprocess
import time

import psutil

from modelbench.engine import machine, processes
from modelbench.engine.processes import CORES

SAMPLE_INTERVAL_S = 0.1
PROGRESS_INTERVAL_S = 10.0
# siege 4.0.7 on Debian 12's glibc sometimes deadlocks after announcing the end of its run
# (JoeDog/siege#4): it then ignores SIGINT and SIGTERM and never prints its summary.
HANG_GRACE_S = 2.0
COLOURS = re.compile(r"\x1b\[[0-9;]*m")  # siege's "[fatal]" comes in red


class MeasureError(Exception):
    pass


def tail(path, lines=3):
    """The last lines of a file on one line, ' | ' between them, without terminal colours (''
    when unreadable)."""
    try:
        last = COLOURS.sub("", read(path)).splitlines()[-lines:]
    except OSError:
        return ""
    return " | ".join(line.strip() for line in last if line.strip())


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def tree_of(pid):
    """The ProcessTree of pid (mariadbd's, a helper's), or None without such a process."""
    try:
        return processes.ProcessTree(pid) if pid else None
    except psutil.NoSuchProcess:
        return None


class RunSampler:
    """Samples the server, mariadbd, the helpers (E6's delaying proxy) and the whole machine."""

    def __init__(self, server=None, db=None, helpers=()):
        self.started = time.monotonic()
        self.server = server
        self.db = db
        self.helpers = list(helpers)
        self._machine_start = self._machine_end = machine.busy_ticks()
        self.elapsed = 0.0

    def sample(self):
        for tree in (self.server, self.db, *self.helpers):
            if tree is not None:
                tree.sample()
        self._machine_end = machine.busy_ticks()
        self.elapsed = time.monotonic() - self.started

    def finish(self):
        if self.server is not None:
            self.server.finish()

    def figures(self, own_cpu_s, own_is_server):
        """own_cpu_s: the command's exact rusage, the tool's, or the server's when own_is_server
        (beating samples that miss its last ticks)."""
        wall = max(self.elapsed, 1e-9)
        out = {"wall_s": round(self.elapsed, 3), "cores": CORES}
        ours = []  # the CPU seconds of the server, mariadbd, the helpers and the tool

        def cpu(prefix, seconds):
            ours.append(seconds)
            out[f"{prefix}_cpu_s"] = round(seconds, 3)
            out[f"{prefix}_cpu_pct_core"] = round(100.0 * seconds / wall, 1)
            out[f"{prefix}_cpu_pct_machine"] = round(100.0 * seconds / wall / CORES, 1)

        if self.server is not None:
            cpu("server", own_cpu_s if own_is_server else self.server.cpu_seconds)
            out.update(server_peak_threads=self.server.peak_threads,
                       server_peak_processes=self.server.peak_processes,
                       server_peak_rss_mib=round(self.server.peak_rss_kib / 1024.0, 1),
                       **self.server.figures())
        if self.db is not None:
            cpu("db", self.db.cpu_seconds)
        if self.helpers:
            cpu("helper", sum(tree.cpu_seconds for tree in self.helpers))
        if not own_is_server:
            cpu("client", own_cpu_s)
        busy, total = (end - start for end, start in zip(self._machine_end, self._machine_start))
        out["machine_busy_pct"] = round(100.0 * busy / total, 1) if total > 0 else 0.0
        # What other processes took meanwhile, in % of the machine: it pollutes the figures.
        others = max(0.0, busy / max(total, 1e-9) * wall * CORES - sum(ours))
        out["other_cpu_pct"] = round(100.0 * others / wall / CORES, 1)
        return out


def run(command, stdout_path, stderr_path, server=None, db_pid=None, helper_pids=(),
        child_is_server=False, end_marker=None, timeout_s=900.0, log=print, progress=True):
    """Runs command while sampling: (exit code, figures). server: Target.watch()'s watcher; with
    child_is_server the command is the server (its rusage server_cpu_*, not client_cpu_*, and
    timed as `time`: real_s, user_s, sys_s). helper_pids: helper_cpu_*, not other work.
    end_marker: the tool's stderr once its load is over; sampling stops there, and a tool alive
    HANG_GRACE_S later is killed (code None). Past timeout_s: killed, MeasureError. progress:
    the command reports its progress on stderr (its last line goes into the progress lines)."""
    probe_before = machine.speed_probe_ms()
    counters_before = machine.tcp_counters()
    quota_before = machine.quota_periods()
    started = time.monotonic()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    # Readable once the process has ended: the waits between samples end at its exit, so its
    # real time is exact to the wake-up rather than to the sampling interval.
    exited = os.pidfd_open(process.pid)
    sampler = RunSampler(
        processes.ProcessTree(process.pid, from_start=True) if child_is_server else server,
        tree_of(db_pid), [tree for tree in map(tree_of, helper_pids) if tree is not None])
    next_progress = PROGRESS_INTERVAL_S
    deadline = time.monotonic() + timeout_s
    ended_at = None
    try:
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            real_s = time.monotonic() - started
            if ended_at is None:
                sampler.sample()
            if pid != 0:
                break
            if ended_at is None and end_marker and end_marker in read(stderr_path):
                ended_at = time.monotonic()
            if ended_at is not None and time.monotonic() - ended_at > HANG_GRACE_S:
                process.kill()
                _, _, usage = os.wait4(process.pid, 0)
                status = None
                break
            if time.monotonic() > deadline:
                raise MeasureError(f"{command[0]} did not finish within {timeout_s:.0f} s; "
                                   "killed it")
            if sampler.elapsed >= next_progress:
                log(f"    ... {sampler.elapsed:.0f} s {tail(stderr_path, 1) if progress else ''}")
                next_progress += PROGRESS_INTERVAL_S
            select.select([exited], [], [], SAMPLE_INTERVAL_S)
    except BaseException:
        process.kill()
        os.wait4(process.pid, 0)
        # Ends a watcher's own sampling too; its figures no longer matter.
        with contextlib.suppress(MeasureError):
            sampler.finish()
        raise
    finally:
        os.close(exited)
    sampler.finish()
    code = None if status is None else os.waitstatus_to_exitcode(status)
    counters_after = machine.tcp_counters()
    counters = {key: counters_after[key] - before for key, before in counters_before.items()
                if key in counters_after}
    throttled = machine.throttled_pct(quota_before, machine.quota_periods())
    speed = {"probe_before_ms": probe_before, "probe_after_ms": machine.speed_probe_ms(),
             **({} if throttled is None else {"throttled_pct": throttled})}
    timed = {"real_s": round(real_s, 3), "user_s": round(usage.ru_utime, 3),
             "sys_s": round(usage.ru_stime, 3)} if child_is_server else {}
    sampled = sampler.figures(usage.ru_utime + usage.ru_stime, child_is_server)
    return code, {**sampled, **timed, **counters, **speed}
