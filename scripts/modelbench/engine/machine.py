"""The machine the runs share with whatever else runs: how busy and how fast it is, a gate that
waits for a quiet machine, the kernel's listen-queue counters and TIME_WAIT sockets."""

import os
import platform
import time
from dataclasses import dataclass
from typing import Callable

import psutil


def description():
    """What this machine is, for a run's settings: a report made again later, or elsewhere,
    says the machine the runs had, not the one it is made on."""
    try:
        with open("/proc/cpuinfo", errors="replace") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name") and ":" in line), "?")
    except OSError:
        cpu = "?"
    return {"cores": os.cpu_count(), "cpu": cpu, "system": platform.system(),
            "kernel": platform.release(), "memory_gib": psutil.virtual_memory().total >> 30,
            "machine": platform.machine()}


def busy_ticks():
    """(busy, total) CPU seconds of all cores since boot; guest time is inside user and nice."""
    times = psutil.cpu_times()
    total = (times.user + times.nice + times.system + times.idle + times.iowait + times.irq +
             times.softirq + times.steal)
    return total - times.idle - times.iowait, total


# Fixed CPU work timed before and after every run, as a virtual machine's speed moves within
# seconds (docs/experiments.md, "What moves between runs"); a change over SPEED_CHANGE is noted.
PROBE_LOOPS = 200_000
PROBE_REPEATS = 3
SPEED_CHANGE = 1.2


def speed_probe_ms():
    """The fixed loop's CPU ms, the best of PROBE_REPEATS: higher is slower."""
    best = float("inf")
    for _ in range(PROBE_REPEATS):
        started = time.process_time()
        total = 0
        for i in range(PROBE_LOOPS):
            total += i * i
        best = min(best, time.process_time() - started)
    return round(1000 * best, 2)


def quota_periods():
    """(CFS periods, throttled) of our CPU cgroup, which a quota's runs share (a container's,
    tests/drifting_host.py); None when unreadable."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = [line.rstrip("\n").split(":", 2) for line in f]
        # cgroup v1's cpu controller, else v2's unified hierarchy
        paths = [f"/cpu{path}" for _, controllers, path in lines if "cpu" in controllers.split(",")]
        paths += [path for _, controllers, path in lines if controllers == ""]
        with open(f"/sys/fs/cgroup{paths[0]}/cpu.stat".replace("//", "/")) as f:
            fields = dict(line.split() for line in f if len(line.split()) == 2)
        return int(fields["nr_periods"]), int(fields["nr_throttled"])
    except (OSError, KeyError, ValueError, IndexError):
        return None


def throttled_pct(before, after):
    """% of a run's CFS periods throttled: 0 without a quota; None when unreadable."""
    if before is None or after is None:
        return None
    periods = after[0] - before[0]
    return round(100.0 * (after[1] - before[1]) / periods, 1) if periods > 0 else 0.0


def speed_changed(figures):
    before, after = figures.get("probe_before_ms"), figures.get("probe_after_ms")
    return bool(before and after) and max(before, after) > SPEED_CHANGE * min(before, after)


@dataclass
class QuietGate:
    """Waits for a quiet machine before runs and an idle one before each, and measures a run again
    when other work took over POLLUTED_PCT of it. Not for the machine's speed: a change is noted
    (why: docs/experiments.md, "What moves between runs")."""

    IDLE_PCT = 10
    QUIET_S = 5
    POLLUTED_PCT = 20
    IDLE_SAMPLE_S = 0.1

    log: Callable = print
    idle_wait_s: float = 60.0
    max_attempts: int = 3

    def wait_for_quiet(self, max_wait_s):
        """Waits, at most max_wait_s, until the machine was under IDLE_PCT busy for QUIET_S:
        (busy % then, the wait). Not the load average (docs/experiments.md, "A quiet machine")."""
        return self._wait(1.0, self.QUIET_S, max_wait_s, 15,
                          "== waiting for a quiet machine: other processes keep {busy:.0f} % of it "
                          "busy (at most {left:.0f} s more)",
                          "== other processes still keep {busy:.0f} % of the machine busy after "
                          "{waited:.0f} s: measuring anyway; their share of each run shows "
                          "(other_cpu_pct)")

    def wait_for_idle(self):
        """Waits, at most idle_wait_s, until the machine is under IDLE_PCT busy."""
        if self.idle_wait_s > 0:
            self._wait(self.IDLE_SAMPLE_S, 0, self.idle_wait_s, 10,
                       "    waiting: other processes keep {busy:.0f} % of the machine busy",
                       "    other processes still keep {busy:.0f} % of the machine busy: "
                       "measuring anyway")

    def _wait(self, sample_s, quiet_s, max_s, note_every_s, waiting, gave_up):
        """Busy % every sample_s until under IDLE_PCT for quiet_s, or max_s passed (logs gave_up,
        of busy and waited); while busy, logs waiting (of busy and left) every note_every_s."""
        started = time.monotonic()
        quiet_since, next_note = started, 0.0
        while True:
            busy = psutil.cpu_percent(sample_s)
            now = time.monotonic()
            waited = now - started
            if busy >= self.IDLE_PCT:
                quiet_since = now
            elif now - quiet_since >= quiet_s:
                return busy, waited
            if waited >= max_s:
                self.log(gave_up.format(busy=busy, waited=waited))
                return busy, waited
            if busy >= self.IDLE_PCT and waited >= next_note:
                self.log(waiting.format(busy=busy, left=max_s - waited))
                next_note = waited + note_every_s

    def measure(self, attempt):
        """attempt(number) -> a run's record, again while polluted: (record, attempts)."""
        for attempts in range(1, self.max_attempts + 1):
            self.wait_for_idle()
            record = attempt(attempts)
            other = record["figures"]["other_cpu_pct"] if record["status"] == "ok" else 0
            if other <= self.POLLUTED_PCT or attempts == self.max_attempts:
                return record, attempts
            self.log(f"    other processes took {other} % of the machine "
                     "during the run: measuring it again")


# /proc/net/netstat's TcpExt counters of a full listen queue (docs/experiments.md), for the whole
# network namespace: other work adds to them. ListenDrops includes ListenOverflows.
TCP_COUNTERS = {"ListenOverflows": "listen_overflows", "ListenDrops": "listen_drops",
                "TCPSynRetrans": "syn_retransmits"}


def tcp_counters():
    """{listen_overflows, listen_drops, syn_retransmits} since boot; {} when unreadable."""
    try:
        with open("/proc/net/netstat") as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:") and values.startswith("TcpExt:"):
            row = dict(zip(names.split()[1:], values.split()[1:]))
            return {key: int(row[name]) for name, key in TCP_COUNTERS.items() if name in row}
    return {}


def time_wait_sockets():
    """TCP sockets in TIME_WAIT now (the 'tw' of /proc/net/sockstat; 0 when unreadable)."""
    try:
        with open("/proc/net/sockstat") as f:
            fields = next(line.split() for line in f if line.startswith("TCP:"))
        return int(fields[fields.index("tw") + 1])
    except (OSError, ValueError, IndexError, StopIteration):
        return 0


def sysctl(name):
    """sysctl("net.core.somaxconn") -> '4096'."""
    with open("/proc/sys/" + name.replace(".", "/")) as f:
        return f.read().strip()


def ephemeral_ports():
    low, high = sysctl("net.ipv4.ip_local_port_range").split()
    return range(int(low), int(high) + 1)


# A run's new connections go into TIME_WAIT on the client's side; without port reuse, wait for
# them while they would take more than this share of the ephemeral ports.
PORT_SHARE = 0.8
PORTS_WAIT_S = 65


def wait_for_ports(connections, loopback=True, log=print):
    """Waits while TIME_WAIT sockets and the run's would take most ephemeral ports, unless the
    kernel reuses them (tcp_tw_reuse 1, or 2 on a loopback run)."""
    reuse = int(sysctl("net.ipv4.tcp_tw_reuse"))
    if reuse == 1 or (reuse == 2 and loopback):
        return
    ports = len(ephemeral_ports())
    started = time.monotonic()
    while time_wait_sockets() + connections > PORT_SHARE * ports:
        if time.monotonic() - started > PORTS_WAIT_S:
            log("    TIME_WAIT sockets still take the ports: running anyway")
            return
        log(f"    waiting: {time_wait_sockets()} sockets in TIME_WAIT of {ports} ports")
        time.sleep(5)
