"""The warm-up before a server's first measured run at a point, and the lead-in before each later
one: unmeasured load at the run's concurrency until the server has settled. The rules and the
measurements behind them: docs/experiments.md, "How every run is made".

One-second slices of ab (at most MAX_C clients) until one neither forked nor disagreed with the
slice before (settled), for at most MAX_S; a lead-in's slices are LEAD_S worth of requests, at most
LEAD_MAX_S (led_in). A slice over which the server forked is followed by unbroken load until it
stopped forking (grow), for at most a MAX_S of its own."""

import math
import re
import subprocess
import time
from dataclasses import asdict, dataclass, field

from modelbench.engine import processes

SLICE_S = 1
MAX_S = 15
MAX_C = 200
# Lead-ins: a server (Node.js) cools while the others of its block run.
LEAD_S = 0.5
LEAD_MAX_S = 5
# A server still warming gets cheaper (a fresh Node.js by 10-28 % a slice over its first four or
# five), so only a fall in CPU per request says it is not steady; a rise is noise, or queueing.
STEADY = 0.10
WARMING = 0.10
SETTLED_S = 0.05
SETTLE_MAX_S = 3.0
# While a server forks (prefork: 1, 2, 4 ... 32 children a second while fewer than MinSpareServers
# are idle, from 1 again after a pause), the load goes on until no process was added for GROWN_S.
GROWN_S = 1.25
GROW_POLL_S = 0.25
# grow's requests hold their worker on the database's SLEEP so that new children start on idle
# cores: prefork counts a child still starting as idle. Every system that forks serves /html.
GROW_DELAY_MS = 200
HELD = f"/html?delay_ms={GROW_DELAY_MS}"
# The held requests left in flight and queued still take their workers for up to two delays.
DRAIN_S = 2 * GROW_DELAY_MS / 1000
RATE = re.compile(r"^Requests per second:\s+([\d.]+)", re.MULTILINE)
COMPLETE = re.compile(r"^Complete requests:\s+(\d+)", re.MULTILINE)


@dataclass
class Slice:
    requests_per_s: float
    processes: int
    cpu_ms_per_request: float = None  # the server's, over the slice (None: remote, or unknown)


def measured_slice(figures):
    """A measured run's figures as a Slice: the reference of the next lead-in at its point."""
    complete, cpu = figures.get("complete"), figures.get("server_cpu_s")
    return Slice(figures["requests_per_s"], figures.get("server_peak_processes") or 0,
                 1000 * cpu / complete if cpu is not None and complete else None)


@dataclass
class WarmUp:
    """What a warm-up did (it ends steady, or at its time limit)."""

    concurrency: int
    processes_before: int
    slices: list = field(default_factory=list)
    steady: bool = False
    growing_s: float = 0.0  # of unbroken load while the server forked (grow)
    processes_after: int = 0
    slice_seconds: float = 0.0  # of slices, as they were meant to last
    lead_in: bool = False  # before a run at a point the server was measured at before

    @property
    def seconds(self):
        return round(self.slice_seconds + self.growing_s, 1)

    @property
    def rate(self):
        """The last slice's requests/s (None before any)."""
        return self.slices[-1].requests_per_s if self.slices else None

    @property
    def answered(self):
        """Whether any slice was answered: a server that stalls now and then (node4-native at
        -c 200) may end its warm-up on a second of nothing, and is measured all the same."""
        return any(s.requests_per_s for s in self.slices)

    def as_record(self):
        return {**asdict(self), "seconds": self.seconds}

    def describe(self, local):
        """One line for the progress log (local: the server's processes and CPU are known)."""
        last = self.slices[-1]
        return (f"{self.seconds:g} s"
                + (f" ({self.growing_s:.1f} while it forked)" if self.growing_s else "")
                + f", {' → '.join(f'{s.requests_per_s:.0f}' for s in self.slices)} req/s"
                + (f", {last.cpu_ms_per_request:.3f} ms CPU/req" if last.cpu_ms_per_request else "")
                + (f", processes {self.processes_before} → {last.processes}" if local else "")
                + ("" if self.steady else " (not steady)"))


def process_count(target):
    """Processes of a local server's tree now (0 for a remote one: unknown here)."""
    return len(processes.tree(target.pid)) if target.local else 0


def ab_for(target, path, concurrency, keepalive, seconds, requests=None):
    """ab for whole seconds, or for a number of requests (within seconds)."""
    return ["ab", "-r", "-q", "-c", str(concurrency), "-t", f"{math.ceil(seconds):g}", "-n",
            str(requests or 10000000), *(["-k"] if keepalive else []), target.url(path)]


def cpu_meter(target):
    """The CPU of a local server's process tree, to be sampled (None for a remote server)."""
    return processes.ProcessTree(target.pid) if target.local else None


def one_slice(target, path, concurrency, keepalive, meter, requests=None):
    """ab for SLICE_S (or `requests`, within 5 × SLICE_S): (requests/s, server CPU ms/request)."""
    if meter:
        meter.sample()
        before = meter.cpu_seconds
    seconds = SLICE_S if requests is None else 5 * SLICE_S
    result = subprocess.run(ab_for(target, path, concurrency, keepalive, seconds, requests),
                            capture_output=True, text=True, timeout=seconds + 60)
    rate, complete = RATE.search(result.stdout), COMPLETE.search(result.stdout)
    if not (rate and complete and int(complete.group(1))):
        return 0.0, None
    if not meter:
        return float(rate.group(1)), None
    meter.sample()
    return float(rate.group(1)), 1000 * (meter.cpu_seconds - before) / int(complete.group(1))


def not_dearer(now, before):
    """now's CPU per request not above before's by more than WARMING (or either unknown)."""
    return (now.cpu_ms_per_request is None or before.cpu_ms_per_request is None or
            now.cpu_ms_per_request <= (1 + WARMING) * before.cpu_ms_per_request)


def led_in(now, before, reference):
    """A lead-in slice as warm as the run before at this point: CPU per request not dearer, or no
    longer falling (the host got slower). Not the rate: a cooled Node.js answers at its old one,
    at a higher cost, and the host's speed moves it."""
    return not_dearer(now, reference) or (before is not None and not_cheaper(now, before))


def not_cheaper(now, before):
    """now's CPU per request not below before's by more than WARMING (or either unknown)."""
    return (now.cpu_ms_per_request is None or before.cpu_ms_per_request is None or
            now.cpu_ms_per_request >= (1 - WARMING) * before.cpu_ms_per_request)


def settled(now, before):
    """Requests/s within STEADY of the slice before, CPU per request not cheaper (Node.js at -c 20
    went 1,279 to 1,406 req/s while its CPU per request fell 0.84 to 0.71 ms)."""
    return (before is not None and bool(before.requests_per_s) and
            abs(now.requests_per_s / before.requests_per_s - 1) <= STEADY and
            not_cheaper(now, before))


def grew(now, peak):
    """Over the peak by more than 1 in 50: at its cap a server replaces a child now and then, both
    counted (Apache at 150 children: 152 processes, then 153 and a growth phase to the end)."""
    return now > peak + peak // 50


def grow(target, concurrency, keepalive, seconds):
    """Held requests until no growth over GROWN_S, seconds at most: (processes, seconds)."""
    started = grown_at = time.monotonic()
    # ab's -t is whole seconds; the load is stopped here at `seconds` in any case.
    load = subprocess.Popen(ab_for(target, HELD, concurrency, keepalive, seconds),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    now = peak = process_count(target)
    try:
        while (load.poll() is None and time.monotonic() - grown_at < GROWN_S and
               time.monotonic() - started < seconds):
            time.sleep(GROW_POLL_S)
            now = process_count(target)
            if grew(now, peak):
                peak, grown_at = now, time.monotonic()
    finally:
        load.kill()
        load.wait()
    time.sleep(DRAIN_S)
    return now, time.monotonic() - started


def warm_up(target, path, concurrency, keepalive=False, reference=None, max_s=MAX_S):
    """The WarmUp for `concurrency` clients on path; a lead-in given reference (a Slice)."""
    c = min(concurrency, MAX_C)
    warm = WarmUp(c, process_count(target), lead_in=reference is not None)
    peak = warm.processes_after = warm.processes_before
    meter = cpu_meter(target)
    requests = None if reference is None else max(2 * c, int(reference.requests_per_s * LEAD_S))
    previous = None  # the slice before, on a server of the same size
    while warm.slice_seconds < max_s:
        rate, cpu_ms = one_slice(target, path, c, keepalive, meter, requests)
        now = process_count(target)
        warm.slices.append(Slice(rate, now, cpu_ms))
        warm.slice_seconds += SLICE_S if requests is None else LEAD_S
        warm.processes_after = now
        # With as many processes as clients, forks are spare workers, not ramp-up.
        forked, peak = grew(now, peak) and peak < c, max(peak, now)
        if forked and warm.growing_s < max_s:
            grown, took = grow(target, c, keepalive, max_s - warm.growing_s)
            warm.growing_s += took
            warm.processes_after, peak, previous = grown, max(peak, grown), None
            continue
        if not forked and rate and (settled(warm.slices[-1], previous) if reference is None
                                    else led_in(warm.slices[-1], previous, reference)):
            warm.steady = True
            break
        previous = warm.slices[-1]
    return warm


def settle(target):
    """Waits until a local server spent no CPU over SETTLED_S: the last slice's work is done."""
    if not target.local:
        return
    tree = processes.ProcessTree(target.pid)
    deadline = time.monotonic() + SETTLE_MAX_S
    last = tree.cpu_seconds
    while time.monotonic() < deadline:
        time.sleep(SETTLED_S)
        tree.sample()
        if tree.cpu_seconds == last:
            return
        last = tree.cpu_seconds
