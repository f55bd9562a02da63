"""The warm-up before a measured run: load at the run's concurrency, not measured, until the server
has settled.

Measured on a 2-core machine (docs/experiments.md, "Warm and steady"): a freshly started Apache
prefork (StartServers 5) grows its children 1, 2, 4 … 32 a second and under `ab -c 200` reached its
150 only after 13 one-second slices, its requests/s falling from 1,500 to 1,100 meanwhile; Node.js's
JIT took 4 to 6 slices to go from 770 to 1,400 requests/s at -c 20; the C++ models were within 5 %
from the first slice. So the rule: one-second slices of ab at the run's concurrency (at most MAX_C:
a siege crowd sleeps between requests and never has more in flight) until the server's process count
did not grow over the last two slices and the last slice's requests/s is within STEADY of the slice
before it — or of the same run's rate in an earlier round, on a server that is already warm — and
at most MAX_S seconds."""

import re
import subprocess
import time
from dataclasses import asdict, dataclass, field

from modelbench.engine import processes

SLICE_S = 1
MAX_S = 15
MAX_C = 200
STEADY = 0.10
# After the last slice, whose requests ab left in flight when its time was up: the server has
# settled when it spent no CPU over SETTLED_S, at most SETTLE_MAX_S later.
SETTLED_S = 0.05
SETTLE_MAX_S = 3.0
RATE = re.compile(r"^Requests per second:\s+([\d.]+)", re.MULTILINE)


@dataclass
class Slice:
    requests_per_s: float
    processes: int


@dataclass
class WarmUp:
    """What a warm-up did (it ends steady, or at its time limit)."""

    concurrency: int
    processes_before: int
    slices: list = field(default_factory=list)
    steady: bool = False

    @property
    def seconds(self):
        return len(self.slices) * SLICE_S

    @property
    def rate(self):
        """The last slice's requests/s (None before any)."""
        return self.slices[-1].requests_per_s if self.slices else None

    def as_record(self):
        return {**asdict(self), "seconds": self.seconds,
                "processes_after": self.slices[-1].processes if self.slices else None}


def process_count(target):
    """Processes of a local server's tree now (0 for a remote one: unknown here)."""
    return len(processes.tree(target.pid)) if target.local else 0


def one_slice(target, path, concurrency, keepalive):
    """ab for SLICE_S at the concurrency: its requests/s (0.0 when it answered nothing)."""
    command = ["ab", "-r", "-q", "-c", str(concurrency), "-t", str(SLICE_S), "-n", "10000000"]
    command += ["-k"] if keepalive else []
    result = subprocess.run(command + [target.url(path)], capture_output=True, text=True,
                            timeout=SLICE_S + 60)
    match = RATE.search(result.stdout)
    return float(match.group(1)) if match else 0.0


def agrees(rate, reference):
    return reference and abs(rate / reference - 1) <= STEADY


def warm_up(target, path, concurrency, keepalive=False, earlier_rate=None, max_s=MAX_S):
    """Warms the server up for a run of `concurrency` clients on path; earlier_rate: the same
    run's measured requests/s in an earlier round, if any. Returns the WarmUp."""
    c = min(concurrency, MAX_C)
    warm = WarmUp(c, process_count(target))
    while warm.seconds < max_s:
        rate, now = one_slice(target, path, c, keepalive), process_count(target)
        previous = warm.rate
        warm.slices.append(Slice(rate, now))
        if rate and not still_growing(warm) and (agrees(rate, previous) or
                                                 agrees(rate, earlier_rate)):
            warm.steady = True
            break
    return warm


def still_growing(warm):
    """Whether the processes grew over either of the last two slices: prefork's parent forks 1,
    2, 4 ... children a second while too few are idle, and in a second when enough are, as they
    are between two slices, forks none and starts again from 1. Measured: Apache at 37 processes
    after its -c 20 run went 38, 40, 44, 52, 52 in a -c 200 warm-up that stopped there, 87 in the
    run."""
    counts = [warm.processes_before] + [s.processes for s in warm.slices]
    return any(b > a for a, b in zip(counts[-3:], counts[-2:]))


def settle(target):
    """Waits until a local server spends no CPU over SETTLED_S: the work the warm-up left in
    flight is done, and is not counted in the measured run."""
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
