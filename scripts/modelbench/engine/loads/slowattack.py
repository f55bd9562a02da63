"""slow-headers and slow-read: slowhttptest (engine.loads.slowhttptest, the stress verb's) as a
run's load: `c` slow clients opened at once and kept slow for `seconds`, and beside them a probe
of ours, a normal GET /hello on a new connection every PROBE_INTERVAL_S that counts as
unanswered without a 2xx within PROBE_TIMEOUT_S (E11). slowhttptest's own probe only connects:
a connection the kernel completes into a server's listen queue counts as available there, though
no worker will take it; its count stays in the figures as tool_unavailable_s."""

import math
import threading

from modelbench.engine.loads import slowhttptest
from modelbench.engine.loads.base import Generator
from modelbench.engine.measure import read

MODES = {"slow-headers": "slow headers", "slow-read": "slow read"}
PROBE_PATH = "/hello"
PROBE_INTERVAL_S = 1.0
PROBE_TIMEOUT_S = 3.0


class Probe:
    """GET PROBE_PATH every PROBE_INTERVAL_S, each on a thread of its own (one waiting for its
    answer does not delay the next); stop() gives [(status or None, seconds)] in send order."""

    def __init__(self, target):
        self.target, self.replies, self.threads = target, {}, []
        self.stopped = threading.Event()
        self.sender = threading.Thread(target=self._send, daemon=True)

    def start(self):
        self.sender.start()

    def _send(self):
        while not self.stopped.is_set():
            number = len(self.threads)
            thread = threading.Thread(target=self._ask, args=(number,), daemon=True)
            self.threads.append(thread)
            thread.start()
            self.stopped.wait(PROBE_INTERVAL_S)

    def _ask(self, number):
        reply = self.target.get(PROBE_PATH, timeout=PROBE_TIMEOUT_S)
        self.replies[number] = (reply.status, reply.seconds)

    def stop(self):
        self.stopped.set()
        self.sender.join()
        for thread in self.threads:
            thread.join(PROBE_TIMEOUT_S + 1)
        return [self.replies.get(n, (None, PROBE_TIMEOUT_S)) for n in range(len(self.threads))]


def probe_figures(replies):
    """The probes sent, those without a 2xx within PROBE_TIMEOUT_S, and the seconds and share of
    the attack they stand for."""
    unanswered = sum(1 for status, seconds in replies
                     if status is None or not 200 <= status < 300 or seconds > PROBE_TIMEOUT_S)
    answered = sorted(seconds for status, seconds in replies
                      if status is not None and 200 <= status < 300)
    return {"probes": len(replies), "probes_unanswered": unanswered,
            "unavailable_s": round(unanswered * PROBE_INTERVAL_S, 1),
            "unavailable_share": round(unanswered / len(replies), 3) if replies else None,
            "probe_max_ms": round(1000 * answered[-1], 1) if answered else None}


class SlowAttack(Generator):
    warmed = False  # a warm-up's load would be ordinary clients, not slow ones
    local_only = "the slow connections a run leaves would be the next one's: a server per run"
    progress = False  # its status goes to stdout
    overhead_s = 1.0

    def __init__(self, name):
        self.name = name
        self.mode = MODES[name]

    def connections(self, load):
        return load.c

    def text(self, load):
        return f"slowhttptest, {self.mode}: {load.c} clients for {load.seconds:g} s, {load.path}"

    def heading(self, record):
        return (f"slowhttptest {self.mode}, {record.get('concurrency')} clients for "
                f"{record.get('seconds', 0):g} s, its probe every second")

    def command(self, attempt, url):
        return slowhttptest.command(self.mode, url, attempt.load.c,
                                    math.ceil(attempt.load.seconds), attempt.raw("slowhttptest"))

    def figures(self, attempt, stdout, stderr, sampled):
        figures = slowhttptest.parse(read(attempt.raw("slowhttptest") + ".csv"), read(stdout))
        figures["tool_unavailable_s"] = figures.pop("unavailable_s")
        return figures

    def run(self, attempt):
        probe = Probe(attempt.target)
        probe.start()
        try:
            super().run(attempt)
        finally:
            replies = probe.stop()
        attempt.record["figures"].update(probe_figures(replies))

    def summary(self, figures):
        return (f"unanswered {figures['probes_unanswered']} of {figures['probes']} probes, at most "
                f"{figures['peak_connected']} connected, ended: {figures['exit_status']}; CPU "
                f"server {figures.get('server_cpu_pct_core', 0):.0f} % of a core")
