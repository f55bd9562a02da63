"""A server under stress: started on a free port of 127.0.0.1, watched through /proc, asked over
plain HTTP, and stopped with SIGTERM at the end (its exit status is part of the verdict)."""

import http.client
import re
import signal
import subprocess
import threading
import time

import procstat

READY_LINE = re.compile(r"listening on http://[^/]+:(\d+)/")


class TargetError(Exception):
    pass


class Reply:
    """One HTTP exchange: status (None when the connection failed), body, headers, seconds."""

    def __init__(self, status=None, body=b"", headers=None, seconds=0.0, error=""):
        self.status = status
        self.body = body
        self.headers = headers or {}
        self.seconds = seconds
        self.error = error


class Target:
    def __init__(self, binary, model, args, log_prefix):
        self.model = model
        self.command = [binary, "--listen", "127.0.0.1:0", *args]
        self.stdout_path = log_prefix + ".stdout"
        self.stderr_path = log_prefix + ".stderr"
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL)
        self.port = self._wait_until_listening(15)

    def _wait_until_listening(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.process.poll() is None:
            with open(self.stdout_path, errors="replace") as f:
                match = READY_LINE.search(f.read())
            if match:
                return int(match.group(1))
            time.sleep(0.05)
        self.process.kill()
        self.process.wait()
        raise TargetError(f"{' '.join(self.command)} did not start: {self.stderr_tail()}")

    @property
    def pid(self):
        return self.process.pid

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def running(self):
        return self.process.poll() is None

    def stderr_tail(self, lines=5):
        with open(self.stderr_path, errors="replace") as f:
            return " | ".join(f.read().splitlines()[-lines:])

    def snapshot(self):
        """threads, fds, rss_kib, peak_rss_kib now; TargetError when the server is gone."""
        figures = procstat.snapshot(self.pid)
        if figures is None:
            raise TargetError(f"the server (pid {self.pid}) is gone: {self.stderr_tail()}")
        return figures

    def get(self, path, timeout=10.0):
        """GET path on a new connection (Connection: close)."""
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("GET", path, headers={"Connection": "close"})
            response = connection.getresponse()
            body = response.read()
            return Reply(response.status, body, {k.lower(): v for k, v in response.getheaders()},
                         time.monotonic() - started)
        except (OSError, http.client.HTTPException) as error:
            return Reply(seconds=time.monotonic() - started,
                         error=str(error) or type(error).__name__)
        finally:
            connection.close()

    def settle(self, before, timeout_s=15.0):
        """Waits until descriptors and threads are back to the counts of before (or fewer), at
        most timeout_s; returns (snapshot, seconds it took or None when they never came back)."""
        started = time.monotonic()
        while True:
            now = self.snapshot()
            if now["fds"] <= before["fds"] and now["threads"] <= before["threads"]:
                return now, time.monotonic() - started
            if time.monotonic() - started > timeout_s:
                return now, None
            time.sleep(0.1)

    def stop(self, timeout_s=40.0):
        """SIGTERM, then the exit status; None when it had to be killed after timeout_s."""
        if self.process.poll() is not None:
            return self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


class PeakSampler:
    """Samples a process's threads and descriptors in the background; peaks on stop()."""

    def __init__(self, pid, interval_s=0.05):
        self.pid = pid
        self.interval_s = interval_s
        self.peak = {"threads": 0, "fds": 0}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._done.is_set():
            figures = procstat.snapshot(self.pid)
            if figures is not None:
                for key in self.peak:
                    self.peak[key] = max(self.peak[key], figures[key])
            self._done.wait(self.interval_s)

    def stop(self):
        self._done.set()
        self._thread.join()
        return self.peak


def get_all(target, path, count, timeout=30.0):
    """count GETs of path at once, each on its own connection; the replies in order."""
    replies = [None] * count

    def one(i):
        replies[i] = target.get(path, timeout)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return replies

