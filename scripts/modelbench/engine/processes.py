"""CPU, threads, descriptors and memory of process trees, with psutil (docs/cost-measurement.md):
CPU in kernel ticks, exact whatever the sampling rate; peak RSS from each process's VmHWM."""

import threading
import time

import psutil

CORES = psutil.cpu_count() or 1


def peak_rss_kib(pid):
    """VmHWM of /proc/PID/status (None: gone); psutil has only the RSS of the moment, and a
    sampled peak misses what grew and shrank between samples."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), None)
    except OSError:
        return None


def members(pid):
    """The process and its descendants: psutil.Processes, which keep their identity ([]: gone)."""
    try:
        root = psutil.Process(pid)
        return [root] + root.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def snapshot(pid):
    """{processes, threads, fds, rss_kib, peak_rss_kib} of a process tree now (threads: the
    kernel's counter, a snapshot unlike a walk of /proc/PID/task); None when the root is gone or
    a zombie."""
    if not alive(pid):
        return None
    totals = {"processes": 0, "threads": 0, "fds": 0, "rss_kib": 0, "peak_rss_kib": 0}
    for process in members(pid):
        try:
            with process.oneshot():
                totals["processes"] += 1
                totals["threads"] += process.num_threads()
                totals["fds"] += process.num_fds()
                totals["rss_kib"] += process.memory_info().rss // 1024
        except psutil.NoSuchProcess:
            continue
        totals["peak_rss_kib"] += peak_rss_kib(process.pid) or 0
    return totals


def pss_kib(pid):
    """The proportional set size of a process tree (/proc/PID/smaps_rollup's Pss): shared pages
    split between the processes that map them, so that a forked worker counts only what it adds;
    None when a member's is unreadable (another user's process, an old kernel)."""
    total = 0
    for process in members(pid):
        try:
            with open(f"/proc/{process.pid}/smaps_rollup") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration, ValueError):
            return None
    return total


def threads(pid):
    """One process's thread count, or None when it is gone."""
    try:
        return psutil.Process(pid).num_threads()
    except psutil.NoSuchProcess:
        return None


class ProcessTree:
    """CPU seconds and peaks of a process tree. New processes count from zero (the root too when
    from_start); ended ones keep their last figures. Finding descendants reads every process's
    stat file, so only every RESCAN_S: a child found late counts from zero, one gone is missed."""

    RESCAN_S = 1.0

    def __init__(self, pid, from_start=False):
        self.root = psutil.Process(pid)
        self._members, self._scanned_at = [], None
        self._start_cpu, self._last_cpu, self._peak_rss = {}, {}, {}
        self.peak_threads = self.peak_processes = 0
        self.sample(first=not from_start)

    def sample(self, first=False):
        now = time.monotonic()
        if self._scanned_at is None or now - self._scanned_at >= self.RESCAN_S:
            self._members = members(self.root.pid)
            self._scanned_at = now
        threads_now = processes_now = 0
        for process in self._members:
            try:
                with process.oneshot():
                    times = process.cpu_times()
                    threads_now += process.num_threads()
            except psutil.NoSuchProcess:
                continue
            processes_now += 1
            cpu = times.user + times.system
            self._start_cpu.setdefault(process.pid, cpu if first else 0.0)
            self._last_cpu[process.pid] = cpu
            peak = peak_rss_kib(process.pid)
            if peak is not None:
                self._peak_rss[process.pid] = peak
        self.peak_threads = max(self.peak_threads, threads_now)
        self.peak_processes = max(self.peak_processes, processes_now)

    def finish(self):
        """Nothing to add: the last sample() came after the tool's exit."""

    def figures(self):
        return {"server_cpu_source": "/proc"}

    @property
    def cpu_seconds(self):
        return sum(self._last_cpu[p] - self._start_cpu[p] for p in self._last_cpu)

    @property
    def peak_rss_kib(self):
        return sum(self._peak_rss.values())


class PeakSampler:
    """Peaks of read()'s figures (None: none this time), every interval_s until stop()."""

    def __init__(self, read, interval_s=0.05):
        self._read = read
        self.interval_s = interval_s
        self.peak = {}
        self.samples = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._done.is_set():
            figures = self._read()
            if figures is not None:
                self.samples += 1
                for key, value in figures.items():
                    self.peak[key] = max(self.peak.get(key, value), value)
            self._done.wait(self.interval_s)

    def stop(self):
        self._done.set()
        self._thread.join()
        return self.peak


def alive(pid):
    """True while pid runs; a zombie (nobody reaped it yet) counts as ended."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_gone(pid, poll_s=0.01):
    while alive(pid):
        time.sleep(poll_s)


def end_survivors(members, wait_s):
    """Kills those of members still there after wait_s: 'PID (NAME)' of each."""
    _, alive_members = psutil.wait_procs(members, timeout=wait_s)
    killed = []
    for process in alive_members:
        try:
            name = process.name()
            process.kill()
            killed.append(f"{process.pid} ({name})")
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(alive_members, timeout=wait_s)
    return killed


def tree(pid):
    """(pid, name) of each live process of a tree now."""
    found = []
    for process in members(pid):
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                found.append((process.pid, process.name()))
        except psutil.NoSuchProcess:
            continue
    return found
