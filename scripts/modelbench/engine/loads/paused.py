"""openloop-paused: openloop's load while every process of the server is stopped (SIGSTOP) for
PAUSE_S in the middle of the run and then let go (SIGCONT): a stall that a closed loop all but
hides from its percentiles (coordinated omission) and an open loop's corrected latency shows."""

import os
import signal
import threading
import time

from modelbench.engine import processes
from modelbench.engine.loads.base import StepFailed
from modelbench.engine.loads.openloop import Openloop

PAUSE_S = 1.0


class Paused(Openloop):
    name = "openloop-paused"
    local_only = "it stops the server's processes"

    def text(self, load):
        return f"{super().text(load)}, the server stopped for {PAUSE_S:g} s in its middle"

    def heading(self, record):
        return (f"{super().heading(record)}, every process of the server stopped for "
                f"{record.get('paused_s', PAUSE_S):g} s in the middle of the run")

    def run(self, attempt):
        pause = Pause(attempt.target.pid, max(0.0, (attempt.load.seconds - PAUSE_S) / 2))
        try:
            super().run(attempt)
        finally:
            pause.end()
        if pause.stopped_at is None:
            raise StepFailed("the run ended before the server was stopped")
        attempt.record.update(paused_at_s=round(pause.stopped_at, 3),
                              paused_s=round(pause.stopped_s, 3))


class Pause:
    """Stops every process of a tree after delay_s for PAUSE_S, from a thread; end() lets it go
    at once, whatever happened (a server is never left stopped)."""

    def __init__(self, pid, delay_s):
        self.pid = pid
        self.stopped_at = None  # seconds from the start
        self.stopped_s = 0.0
        self._started = time.monotonic()
        self._members = []
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(delay_s,), daemon=True)
        self._thread.start()

    def _run(self, delay_s):
        if self._ended.wait(delay_s):
            return
        self._members = processes.members(self.pid)
        self._signal(signal.SIGSTOP)
        stopped = time.monotonic()
        self.stopped_at = stopped - self._started
        self._ended.wait(PAUSE_S)
        self._signal(signal.SIGCONT)
        self.stopped_s = time.monotonic() - stopped

    def _signal(self, number):
        for process in self._members:
            try:
                os.kill(process.pid, number)
            except ProcessLookupError:
                continue

    def end(self):
        self._ended.set()
        self._thread.join()
