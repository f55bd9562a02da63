"""The servers under load: a Target (a name and a base URL) and the ServerProcess the harness
started for it, whose figures come from /proc (checked against its /status when it has one); a
remote Target (scripts/serve.sh elsewhere) has its figures from /status only (serverstatus)."""

import concurrent.futures
import contextlib
import json
import re
import signal
import subprocess
import threading

from modelbench.engine import httpclient, processes, serverstatus
from modelbench.engine.measure import tail

READY_LINE = re.compile(r"listening on http://([^/\s]+)/")
READY_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 20.0
# How long a stopped server's processes may take to follow it before they are killed.
LEFTOVER_WAIT_S = 5.0
# A wildcard listening address is nothing to connect to; the loopback reaches it.
WILDCARD_HOSTS = ("0.0.0.0", "[::]")


class TargetError(Exception):
    pass


class ServerProcess:
    """A server started from a command: stdout copied to PREFIX.server.out (and ours with echo)
    while the ready line is looked for, stderr to PREFIX.server.log (no prefix: our terminal)."""

    def __init__(self, command, log_prefix=None, echo=False, ready_timeout_s=READY_TIMEOUT_S):
        self.command = list(command)
        self.stdout_path = f"{log_prefix}.server.out" if log_prefix else None
        self.stderr_path = f"{log_prefix}.server.log" if log_prefix else None
        self.echo = echo
        self.address = None
        self.left_behind = []
        self._ready = threading.Event()
        with open(self.stderr_path, "wb") if self.stderr_path else contextlib.nullcontext() as err:
            try:
                self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=err,
                                                stdin=subprocess.DEVNULL, text=True,
                                                errors="replace")
            except OSError as error:
                raise TargetError(f"cannot start {self.command[0]}: {error}") from error
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()
        try:
            ready = self._ready.wait(ready_timeout_s)
        except BaseException:
            # Interrupted before it listened: it is ours to stop all the same.
            self.stop()
            raise
        if not ready or self.address is None:
            code = self.stop(signal.SIGKILL, timeout_s=1)
            what = (f"did not get ready within {ready_timeout_s:.0f} s"
                    if code in (None, -signal.SIGKILL)
                    else f"exited with status {code} before it listened")
            last = self.stderr_tail(3)
            raise TargetError(f"{' '.join(self.command)} {what}" + (f": {last}" if last else ""))

    def _read_stdout(self):
        log = open(self.stdout_path, "w") if self.stdout_path else None
        try:
            for line in self.process.stdout:
                if log is not None:
                    log.write(line)
                    log.flush()
                if self.echo:
                    print(line, end="", flush=True)
                match = READY_LINE.search(line) if self.address is None else None
                if match:
                    self.address = match.group(1)
                    self._ready.set()
        finally:
            if log is not None:
                log.close()
            self._ready.set()  # stdout closed: the server ended, or will not say more

    @property
    def pid(self):
        return self.process.pid

    def running(self):
        return self.process.poll() is None

    def stderr_tail(self, lines=5):
        return tail(self.stderr_path, lines) if self.stderr_path else ""

    def wait(self):
        """Waits for the server to end: its exit status (128 + N for signal N)."""
        code = self.process.wait()
        self._reader.join(5)
        return 128 - code if code < 0 else code

    def stop(self, sig=signal.SIGTERM, timeout_s=STOP_TIMEOUT_S):
        """Sends sig: the exit status (None: killed after timeout_s); leftovers in left_behind."""
        members = processes.members(self.pid)[1:]
        killed = False
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                killed = True
        self.left_behind += processes.end_survivors(members, LEFTOVER_WAIT_S)
        self._reader.join(5)
        return None if killed else self.process.returncode


class Target:
    """Where the load goes; process None: remote, not ours to start or stop. whole_status: its
    /status reports the whole tree (not behind a proxy). helper_pids: the setup's processes (E6's
    delaying proxy), whose CPU is the run's. client: where its load tools run (engine.netns.Link,
    E10's; None: here). As a context manager, stops a local server."""

    def __init__(self, name, address, process, whole_status=True, helper_pids=(), client=None):
        self.name = name
        self.client = client
        self.whole_status = whole_status
        self.helper_pids = tuple(helper_pids)
        host, _, port = address.rpartition(":")
        self.host = "127.0.0.1" if host in WILDCARD_HOSTS else host
        self.port = int(port)
        self.base_url = f"http://{self.host}:{port}"
        self.process = process

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.local and self.process.running():
            self.process.stop()

    @property
    def local(self):
        return self.process is not None

    def url(self, path):
        return self.base_url + path

    def get(self, path, timeout=10.0):
        return httpclient.get(self.host.strip("[]"), self.port, path, timeout)

    def get_all(self, path, count, timeout=30.0):
        """count GETs of path at once, a connection and thread each: the replies in order."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=count) as pool:
            return list(pool.map(lambda _: self.get(path, timeout), range(count)))

    def get_and_hold(self, path):
        return httpclient.get_and_hold(self.host.strip("[]"), self.port, path)

    def status_documents(self, asks=40):
        """The /status of every worker (cluster mode: SO_REUSEPORT spreads new connections, so
        ask until each worker has answered); [] when it does not answer."""
        documents = {}
        for _ in range(asks):
            reply = self.get("/status", timeout=5)
            try:
                document = json.loads(reply.body) if reply.status == 200 else None
            except ValueError:
                document = None
            if document is None:
                break
            documents[document.get("pid")] = document
            if len(documents) >= document.get("async", {}).get("workers", 1):
                break
        return list(documents.values())

    @property
    def pid(self):
        return self.process.pid

    def running(self):
        return self.process.running()

    def watch(self):
        """The server's watcher for measure.run (serverstatus)."""
        if not self.local:
            return serverstatus.StatusWatcher(self)
        tree = processes.ProcessTree(self.pid)
        first = serverstatus.read_resources(self) if self.whole_status else None
        return tree if first is None else serverstatus.CrossChecked(
            tree, serverstatus.StatusWatcher(self, first, peaks=False))

    def snapshot(self):
        """processes.snapshot of the server; TargetError when it is gone."""
        figures = processes.snapshot(self.pid)
        if figures is None:
            raise TargetError(f"the server (pid {self.pid}) is gone: {self.process.stderr_tail()}")
        return figures

    def stop(self, timeout_s=STOP_TIMEOUT_S):
        return self.process.stop(timeout_s=timeout_s)


def start(name, command, log_prefix=None, echo=False, ready_timeout_s=READY_TIMEOUT_S,
          whole_status=True, helper_pids=(), client=None):
    """Starts a server from its command line and waits for its ready line: a Target."""
    process = ServerProcess(command, log_prefix, echo, ready_timeout_s)
    return Target(name, process.address, process, whole_status, helper_pids, client)
