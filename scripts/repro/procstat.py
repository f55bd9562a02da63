"""CPU, threads, descriptors and memory of the processes under test, read from /proc.

CPU comes from utime+stime in /proc/PID/stat (clock ticks), so a run's figure is exact to a
tick whatever the sampling rate; threads are sampled (peak of the sum over the process tree);
peak RSS is VmHWM, the kernel's own high-water mark. A "tree" is a process and its children:
the async server in cluster mode is a supervising parent with one worker per core.
"""

import os
import time

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def _stat_fields(pid):
    """Fields of /proc/PID/stat after the command name, or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces or parentheses.
    return text[text.rindex(")") + 2:].split()


def _cpu_ticks(fields):
    return int(fields[11]) + int(fields[12])  # utime, stime


def _threads(fields):
    return int(fields[17])


def _parent(fields):
    return int(fields[1])


def status_number(pid, key):
    """A number of /proc/PID/status (VmRSS: KiB resident now, VmHWM: its peak; Threads), or
    None when the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def snapshot(pid):
    """What one process holds now: threads (the kernel's counter in /proc/PID/status), open
    descriptors, RSS and peak RSS (KiB); None when the process is gone (or a zombie, which
    has no memory left to report)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    if "VmRSS" not in status:
        return None
    return {"threads": int(status["Threads"]), "fds": fds,
            "rss_kib": int(status["VmRSS"].split()[0]),
            "peak_rss_kib": int(status["VmHWM"].split()[0])}


def tree_rss_kib(pid, with_children=False):
    """Resident memory of a process (and its children) right now, in KiB."""
    members = [pid] + (_children(pid) if with_children else [])
    return sum(status_number(member, "VmRSS") or 0 for member in members)


def _children(pid):
    """Direct children of pid (the kernel here has no /proc/PID/task/TID/children)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(entry)
            if fields is not None and _parent(fields) == pid:
                found.append(int(entry))
    return found


class ProcessTree:
    """Accumulates CPU ticks, peak threads and peak RSS of a process and (optionally) its children.

    Processes that appear during the run count from zero, and so does the root when
    from_start (a process started for the run); processes that die keep the figures last seen.
    """

    def __init__(self, pid, with_children=False, from_start=False):
        self.pid = pid
        self.with_children = with_children
        self._start_ticks = {}
        self._last_ticks = {}
        self._peak_rss = {}
        self.peak_threads = 0
        self.sample(first=not from_start)

    def _members(self):
        members = [self.pid]
        if self.with_children:
            members += _children(self.pid)
        return members

    def sample(self, first=False):
        threads = 0
        for pid in self._members():
            fields = _stat_fields(pid)
            if fields is None:
                continue
            ticks = _cpu_ticks(fields)
            self._start_ticks.setdefault(pid, ticks if first else 0)
            self._last_ticks[pid] = ticks
            threads += _threads(fields)
            rss = status_number(pid, "VmHWM")
            if rss is not None:
                self._peak_rss[pid] = rss
        self.peak_threads = max(self.peak_threads, threads)

    @property
    def cpu_seconds(self):
        ticks = sum(self._last_ticks[p] - self._start_ticks[p] for p in self._last_ticks)
        return ticks / TICKS_PER_SECOND

    @property
    def peak_rss_kib(self):
        return sum(self._peak_rss.values())


def machine_busy_ticks():
    """(busy, total) jiffies of all CPUs since boot, from the first line of /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # guest time is already inside user/nice
    return total - idle, total


class RunSampler:
    """Samples the server tree, mariadbd and the whole machine until stop() is called."""

    def __init__(self, server_pid=None, server_tree=False, db_pid=None, server_from_start=False):
        self.started = time.monotonic()
        self.server = (ProcessTree(server_pid, server_tree, server_from_start)
                       if server_pid else None)
        self.db = ProcessTree(db_pid) if db_pid else None
        self._machine_start = machine_busy_ticks()
        self._machine_end = self._machine_start
        self.elapsed = 0.0

    def sample(self):
        for tree in (self.server, self.db):
            if tree is not None:
                tree.sample()
        self._machine_end = machine_busy_ticks()
        self.elapsed = time.monotonic() - self.started

    def figures(self, client_cpu_seconds=None):
        """CPU as % of one core and % of the machine, peak threads and RSS of the server."""
        wall = max(self.elapsed, 1e-9)
        out = {"wall_s": round(self.elapsed, 3), "cores": CORES}

        def cpu(prefix, seconds):
            out[f"{prefix}_cpu_s"] = round(seconds, 3)
            out[f"{prefix}_cpu_pct_core"] = round(100.0 * seconds / wall, 1)
            out[f"{prefix}_cpu_pct_machine"] = round(100.0 * seconds / wall / CORES, 1)

        if self.server is not None:
            cpu("server", self.server.cpu_seconds)
            out["server_peak_threads"] = self.server.peak_threads
            out["server_peak_rss_mib"] = round(self.server.peak_rss_kib / 1024.0, 1)
        if self.db is not None:
            cpu("db", self.db.cpu_seconds)
        if client_cpu_seconds is not None:
            cpu("client", client_cpu_seconds)
        busy = self._machine_end[0] - self._machine_start[0]
        total = self._machine_end[1] - self._machine_start[1]
        out["machine_busy_pct"] = round(100.0 * busy / total, 1) if total > 0 else 0.0
        return out
