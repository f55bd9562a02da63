#!/usr/bin/python3
"""The real peers against the C++ servers' bytes.

Starts the blocking and async servers of a build as the reference, then each real peer through
the project's own commands (servers/php/apache-server, servers/node/node-server, and
node-server --cluster) on a free port, and checks that /html, /json, /hello and /factorial?n=25
answer the reference's status, Content-Type, Content-Length and body, byte for byte; that the
node peer's /tasks answers at once while its log reads task one, task three, then task two; that
each peer's process tree is the server it says (Apache's prefork children, a node worker per
core); and that SIGTERM stops the whole tree with exit status 0.

usage: peers_test.py SOURCE_DIR BLOCKING_SERVER ASYNC_SERVER
Needs the private MariaDB (scripts/db.sh start) and what scripts/deps.sh installs. Prints a line
per check and "N passed, N failed"; exit status 1 when a check failed.
"""

import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time

PAGES = ["/html", "/json", "/hello", "/factorial?n=25"]
TASK_DELAY_MS = 1000
READY_TIMEOUT_S = 30
STOP_TIMEOUT_S = 40
TASK_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) tasks #(\d+): (task \w+)$")


class Server:
    """A server started by its command: its stdout and stderr lines, collected as they come."""

    def __init__(self, name, command):
        self.name = name
        self.lines = {"stdout": [], "stderr": []}
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.readers = [threading.Thread(target=self._read, args=(stream, key), daemon=True)
                        for stream, key in ((self.process.stdout, "stdout"),
                                            (self.process.stderr, "stderr"))]
        for reader in self.readers:
            reader.start()
        self.url = self._wait_ready()

    def _read(self, stream, key):
        for raw in stream:
            self.lines[key].append(raw.decode("utf-8", "replace").rstrip("\n"))

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            for line in self.lines["stdout"]:
                match = re.match(r"^listening on http://([^/]+)/$", line)
                if match:
                    return match.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not print its ready line; stderr:\n" +
                           "\n".join(self.lines["stderr"][-20:]))

    def request(self, path, method="GET"):
        """(status, headers as a dict with lower-case names, body bytes) on a new connection."""
        host, port = self.url.rsplit(":", 1)
        connection = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=30)
        try:
            connection.request(method, path)
            response = connection.getresponse()
            body = response.read()
            headers = {name.lower(): value for name, value in response.getheaders()}
            return response.status, headers, body
        finally:
            connection.close()

    def tree(self):
        """The pids of the process and all its descendants that are alive (not zombies)."""
        children = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry))
        pids, queue = [], [self.process.pid]
        while queue:
            pid = queue.pop()
            pids.append(pid)
            queue.extend(children.get(pid, []))
        return [pid for pid in pids if alive(pid)]

    def stop(self):
        """SIGTERM; the exit status, or None when it did not stop in time (then it is killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            status = None
        for reader in self.readers:
            reader.join(5)
        return status


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def command_name(pid):
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"ok    {what}")
        else:
            self.failed += 1
            print(f"FAIL  {what}" + (f": {detail}" if detail else ""))
        return ok


def first_difference(expected, actual):
    for index, (a, b) in enumerate(zip(expected, actual)):
        if a != b:
            return (f"first difference at byte {index}: expected {expected[index:index + 40]!r}, "
                    f"got {actual[index:index + 40]!r}")
    return f"lengths differ: expected {len(expected)} bytes, got {len(actual)}"


def reference_pages(checks, blocking, asynchronous):
    """The C++ servers' answers; both must agree, or there is no reference."""
    pages = {}
    for path in PAGES:
        answers = [server.request(path) for server in (blocking, asynchronous)]
        (status, headers, body), (_, _, async_body) = answers
        checks.check(status == 200 and body == async_body,
                     f"reference {path}: the blocking and async servers agree",
                     f"status {status}; " + first_difference(body, async_body))
        pages[path] = (status, headers, body)
    return pages


def compare_pages(checks, peer, reference):
    for path, (status, headers, body) in reference.items():
        got_status, got_headers, got_body = peer.request(path)
        what = f"{peer.name} {path}"
        checks.check(got_status == status, f"{what}: status {status}", f"got {got_status}")
        checks.check(got_headers.get("content-type") == headers.get("content-type"),
                     f"{what}: Content-Type {headers.get('content-type')}",
                     f"got {got_headers.get('content-type')}")
        checks.check(got_headers.get("content-length") == headers.get("content-length"),
                     f"{what}: Content-Length {headers.get('content-length')}",
                     f"got {got_headers.get('content-length')} (transfer-encoding "
                     f"{got_headers.get('transfer-encoding')})")
        checks.check(got_body == body, f"{what}: the same {len(body)} bytes",
                     first_difference(body, got_body))


def task_lines(server):
    """[(milliseconds of the day, demo, task)] of the server's stderr, in order."""
    lines = []
    for line in list(server.lines["stderr"]):
        match = TASK_LINE.match(line)
        if match:
            h, m, s, ms, demo, task = match.groups()
            lines.append(((int(h) * 3600 + int(m) * 60 + int(s)) * 1000 + int(ms), int(demo), task))
    return lines


def check_tasks(checks, peer, reference_body):
    path = f"/tasks?delay_ms={TASK_DELAY_MS}"
    before = len(task_lines(peer))
    start = time.monotonic()
    status, _, body = peer.request(path)
    elapsed_ms = (time.monotonic() - start) * 1000
    checks.check(status == 200 and body == reference_body,
                 f"{peer.name} {path}: the async server's body", first_difference(reference_body, body))
    checks.check(elapsed_ms < TASK_DELAY_MS / 2,
                 f"{peer.name} {path}: answered at once, before task two",
                 f"the response took {elapsed_ms:.0f} ms")
    deadline = time.monotonic() + TASK_DELAY_MS / 1000 + 5
    while len(task_lines(peer)) < before + 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = task_lines(peer)[before:]
    order = [task for _, _, task in lines]
    checks.check(order == ["task one", "task three", "task two"] and len({d for _, d, _ in lines}) == 1,
                 f"{peer.name} {path}: the log reads task one, task three, task two",
                 f"got {lines}")
    if len(lines) == 3:
        waited = (lines[2][0] - lines[0][0]) % 86_400_000
        checks.check(TASK_DELAY_MS - 5 <= waited <= TASK_DELAY_MS + 1000,
                     f"{peer.name} {path}: task two {TASK_DELAY_MS} ms after task one",
                     f"{waited} ms")


def check_tree(checks, peer, binary, at_least, exactly=None):
    """The server's process tree holds the processes it should: at_least (or exactly) that many
    processes named binary."""
    count = sum(1 for pid in peer.tree() if command_name(pid) == binary)
    expected = f"exactly {exactly}" if exactly is not None else f"at least {at_least}"
    checks.check(count >= at_least and (exactly is None or count == exactly),
                 f"{peer.name}: its process tree holds {expected} {binary} processes", f"{count}")


def check_stop(checks, peer):
    pids = peer.tree()
    status = peer.stop()
    checks.check(status == 0, f"{peer.name}: SIGTERM stops it with exit status 0", f"status {status}")
    time.sleep(0.2)
    left = [f"{pid} ({command_name(pid)})" for pid in pids if alive(pid)]
    checks.check(not left, f"{peer.name}: no process of its tree is left ({len(pids)} were)",
                 ", ".join(left))


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    source, blocking_binary, async_binary = sys.argv[1:]
    listen = ["--listen", "127.0.0.1:0"]
    workers = len(os.sched_getaffinity(0))
    checks = Checks()
    servers = []
    try:
        blocking = Server("blocking", [blocking_binary, *listen])
        servers.append(blocking)
        asynchronous = Server("async", [async_binary, *listen])
        servers.append(asynchronous)
        reference = reference_pages(checks, blocking, asynchronous)
        tasks_body = asynchronous.request(f"/tasks?delay_ms={TASK_DELAY_MS}")[2]

        peers = [
            ("php", [os.path.join(source, "servers/php/apache-server"), *listen]),
            ("node", [os.path.join(source, "servers/node/node-server"), *listen]),
            ("node --cluster", [os.path.join(source, "servers/node/node-server"), "--cluster", *listen]),
        ]
        for name, command in peers:
            try:
                peer = Server(name, command)
            except RuntimeError as error:
                checks.check(False, f"{name}: starts and prints its ready line", str(error))
                continue
            servers.append(peer)
            checks.check(True, f"{name}: starts and prints its ready line ({peer.url})")
            compare_pages(checks, peer, reference)
            if name == "php":
                # prefork: the parent and StartServers (5) children, each running PHP in-process.
                check_tree(checks, peer, "apache2", at_least=6)
            else:
                check_tasks(checks, peer, tasks_body)
                if name == "node --cluster":
                    check_tree(checks, peer, "node", at_least=workers + 1, exactly=workers + 1)
                else:
                    check_tree(checks, peer, "node", at_least=1, exactly=1)
            servers.remove(peer)
            check_stop(checks, peer)
    finally:
        for server in servers:
            server.stop()
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
