"""The C++ servers' figures from /status (`resources.server`: a cluster's processes summed), over
HTTP so that CPU per request is measured from any client. Watchers for measure.run:

  StatusWatcher   a remote server: CPU from /status before and after the run; peaks from /status
                  every READ_INTERVAL_S (no high-water mark: a peak between readings is missed)
  CrossChecked    a local server with /status: /proc's figures, checked against /status's CPU"""

import json

from modelbench.engine.measure import MeasureError
from modelbench.engine.processes import PeakSampler

READ_INTERVAL_S = 0.5
READ_TIMEOUT_S = 3.0
FINAL_TRIES = 3
# /proc counts user and system CPU apart in whole 10-ms ticks, /status (getrusage) in µs, at
# slightly different moments: AGREE_TICKS_S per process is a tick for each truncation and one for
# the moment between. With two ticks a smoke siege run failed on /proc 0.29 s, /status 0.2695 s.
AGREE_PCT = 5.0
AGREE_TICKS_S = 0.03

PROC, STATUS = "/proc", "/status"


def read_resources(target):
    """{cpu_s, threads, processes, rss_kib} of /status, or None (a real system has none)."""
    reply = target.get("/status", timeout=READ_TIMEOUT_S)
    if reply.status != 200:
        return None
    try:
        server = json.loads(reply.body)["resources"]["server"]
        return {"cpu_s": float(server["user_s"]) + float(server["system_s"]),
                "threads": int(server["threads"]), "processes": int(server["processes"]),
                "rss_kib": int(server["rss_kib"])}
    except (ValueError, KeyError, TypeError):
        return None


class StatusWatcher:
    """A server's CPU and peaks from its /status over one run. first: a reading to count from;
    peaks: read every READ_INTERVAL_S (each is a request to the server under load)."""

    def __init__(self, target, first=None, peaks=True):
        self._target = target
        self._first = first or read_resources(target)
        if self._first is None:
            raise MeasureError(f"{target.base_url}/status reports no resources.server: only "
                               "the C++ servers report their own CPU")
        self._last = self._first
        self._peaks = PeakSampler(self._read, READ_INTERVAL_S) if peaks else None
        self._peak = dict(self._first)

    def _read(self):
        reading = read_resources(self._target)
        if reading is not None:
            self._last = reading
        return reading

    def sample(self):
        """A background thread reads /status: a server slow to answer never delays sampling."""

    def finish(self):
        for key, value in (self._peaks.stop() if self._peaks else {}).items():
            self._peak[key] = max(self._peak[key], value)
        for _ in range(FINAL_TRIES):
            if self._read() is not None:
                return
        raise MeasureError(f"{self._target.base_url}/status did not answer after the run: the "
                           "server's CPU is unknown")

    @property
    def cpu_seconds(self):
        return self._last["cpu_s"] - self._first["cpu_s"]

    peak_threads = property(lambda self: self._peak["threads"])
    peak_processes = property(lambda self: self._peak["processes"])
    peak_rss_kib = property(lambda self: self._peak["rss_kib"])

    def figures(self):
        return {"server_cpu_source": STATUS}


class CrossChecked:
    """A local server's ProcessTree, checked against its StatusWatcher."""

    def __init__(self, tree, status):
        self.tree = tree
        self.status = status

    def finish(self):
        # /proc sampled again right after /status's last reading: both count the same span even
        # while the server works off what the tool left (siege's killed connections).
        self.tree.finish()
        self.status.finish()
        self.tree.sample()

    def __getattr__(self, name):
        """sample(), cpu_seconds and the peaks are /proc's."""
        return getattr(self.tree, name)

    def figures(self):
        proc, status = self.tree.cpu_seconds, self.status.cpu_seconds
        return {"server_cpu_source": f"{PROC}, checked against {STATUS}",
                "status_cpu_s": round(status, 3),
                "status_cpu_diff_pct": round(100.0 * (status - proc) / proc, 1) + 0.0
                if proc else None,
                "status_cpu_agrees": int(agree(proc, status, self.tree.peak_processes))}


def agree(proc_s, status_s, processes=1):
    """Within AGREE_PCT of /proc's, or AGREE_TICKS_S for each process (short runs)."""
    difference = abs(status_s - proc_s)
    return difference <= AGREE_TICKS_S * max(1, processes) or difference <= AGREE_PCT / 100 * proc_s
