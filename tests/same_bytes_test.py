#!/usr/bin/python3
"""The real systems against the C++ servers' bytes.

Starts the blocking and async servers of a build as the reference, then each real system
through the project's own launchers (tests/real_systems.py lists them: Apache+PHP, Node.js and
its cluster, Node.js 4 (E1's) with mysql and with mysql-native and its cluster, Express, nginx +
PHP-FPM on TCP and on a unix socket, Apache + PHP-FPM, nginx in front of Node.js, Express and
both C++ servers, nginx answering /hello itself) on a free port,
and checks that each endpoint it has (/html, /json, /hello, /factorial?n=25) answers the
reference's status, Content-Type, Content-Length and body, byte for byte; that /tasks answers
the body of the model it stands for: an async system at once while its log reads task one, task
three, then task two (the async server's demo), a blocking one after task two, its log reading
task one, task two, task three (the blocking server's); that each system's process tree is the
server it says (Apache's children, a node worker per core, nginx's master and worker, FPM's
children); and that SIGTERM stops the whole tree with exit status 0.

usage: same_bytes_test.py SOURCE_DIR BLOCKING_SERVER ASYNC_SERVER   (scripts/ on PYTHONPATH, as CTest
runs it: the servers are started by the harness package, modelbench)
Needs the private MariaDB (scripts/db.sh start) and what scripts/deps.sh installs. Prints a line
per check and "N passed, N failed"; exit status 1 when a check failed.
"""

import os
import sys
import tempfile
import time

from modelbench.engine import processes
from modelbench.engine.server import start as start_server
from real_systems import Checks, arguments, systems, task_lines

PAGES = ["/html", "/json", "/hello", "/factorial?n=25"]
TASK_DELAY_MS = 1000
READY_TIMEOUT_S = 30
STOP_TIMEOUT_S = 40


def start(name, command, work):
    """A server started by its command, its stdout and stderr in work/NAME.server.*."""
    return start_server(name, command, os.path.join(work, name.replace(" ", "")),
                         ready_timeout_s=READY_TIMEOUT_S)


def request(server, path):
    """(status, headers as a dict with lower-case names, body bytes) on a new connection."""
    reply = server.get(path, timeout=30)
    return reply.status, reply.headers, reply.body


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
        answers = [request(server, path) for server in (blocking, asynchronous)]
        (status, headers, body), (_, _, async_body) = answers
        checks.check(status == 200 and body == async_body,
                     f"reference {path}: the blocking and async servers agree",
                     f"status {status}; " + first_difference(body, async_body))
        pages[path] = (status, headers, body)
    return pages


def compare_pages(checks, server, reference, endpoints):
    for path, (status, headers, body) in reference.items():
        if path.split("?")[0] not in endpoints:
            continue
        got_status, got_headers, got_body = request(server, path)
        what = f"{server.name} {path}"
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


def check_tasks(checks, server, reference_body, waits_for_task_two):
    """/tasks answers the reference's body; a system that waits for task two answers after the delay
    and logs task one, two, three; one that does not answers at once and logs one, three, two."""
    path = f"/tasks?delay_ms={TASK_DELAY_MS}"
    before = len(task_lines(server.process.stderr_path))
    start = time.monotonic()
    status, _, body = request(server, path)
    elapsed_ms = (time.monotonic() - start) * 1000
    checks.check(status == 200 and body == reference_body,
                 f"{server.name} {path}: the {'blocking' if waits_for_task_two else 'async'} "
                 "server's body", first_difference(reference_body, body))
    if waits_for_task_two:
        checks.check(elapsed_ms >= TASK_DELAY_MS, f"{server.name} {path}: answered after task two",
                     f"the response took {elapsed_ms:.0f} ms")
        expected = ["task one", "task two", "task three"]
    else:
        checks.check(elapsed_ms < TASK_DELAY_MS / 2,
                     f"{server.name} {path}: answered at once, before task two",
                     f"the response took {elapsed_ms:.0f} ms")
        expected = ["task one", "task three", "task two"]
    deadline = time.monotonic() + TASK_DELAY_MS / 1000 + 5
    while len(task_lines(server.process.stderr_path)) < before + 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = task_lines(server.process.stderr_path)[before:]
    order = [task for _, _, task in lines]
    checks.check(order == expected and len({d for _, d, _ in lines}) == 1,
                 f"{server.name} {path}: the log reads {', '.join(expected)}", f"got {lines}")
    if len(lines) == 3:
        two = next((ms for ms, _, task in lines if task == "task two"), lines[0][0])
        waited = (two - lines[0][0]) % 86_400_000
        checks.check(TASK_DELAY_MS - 5 <= waited <= TASK_DELAY_MS + 1000,
                     f"{server.name} {path}: task two {TASK_DELAY_MS} ms after task one",
                     f"{waited} ms")


def check_tree(checks, server, binary, at_least, exactly=None):
    """The server's process tree holds the processes it should: at_least (or exactly) that many
    processes named binary."""
    count = sum(1 for _, name in processes.tree(server.pid) if name == binary)
    expected = f"exactly {exactly}" if exactly is not None else f"at least {at_least}"
    checks.check(count >= at_least and (exactly is None or count == exactly),
                 f"{server.name}: its process tree holds {expected} {binary} processes", f"{count}")


def check_stop(checks, server):
    members = processes.tree(server.pid)
    status = server.stop(STOP_TIMEOUT_S)
    checks.check(status == 0, f"{server.name}: SIGTERM stops it with exit status 0",
                 f"status {status}")
    time.sleep(0.2)
    left = [f"{pid} ({name})" for pid, name in members if processes.tree(pid)]
    left += server.process.left_behind
    checks.check(not left, f"{server.name}: no process of its tree is left ({len(members)} were)",
                 ", ".join(left))


def main():
    source, blocking_binary, async_binary = arguments(__doc__)
    checks = Checks()
    servers = []
    with tempfile.TemporaryDirectory(prefix="same_bytes_test.") as work:
        try:
            blocking = start("blocking", [blocking_binary, "--listen", "127.0.0.1:0"], work)
            servers.append(blocking)
            asynchronous = start("async", [async_binary, "--listen", "127.0.0.1:0"], work)
            servers.append(asynchronous)
            reference = reference_pages(checks, blocking, asynchronous)
            tasks_bodies = {waits: request(server, f"/tasks?delay_ms={TASK_DELAY_MS}")[2]
                            for waits, server in ((True, blocking), (False, asynchronous))}

            for system in systems():
                name = system.name
                try:
                    server = start(name, system.argv(source, blocking_binary, async_binary), work)
                except Exception as error:  # the harness's TargetError: no ready line
                    checks.check(False, f"{name}: starts and prints its ready line", str(error))
                    continue
                servers.append(server)
                checks.check(True, f"{name}: starts and prints its ready line ({server.base_url})")
                compare_pages(checks, server, reference, system.endpoints)
                if "/tasks" in system.endpoints:
                    check_tasks(checks, server, tasks_bodies[system.waits_for_task_two],
                                waits_for_task_two=system.waits_for_task_two)
                for binary, at_least, exactly in system.tree:
                    check_tree(checks, server, binary, at_least, exactly)
                servers.remove(server)
                check_stop(checks, server)
        finally:
            for server in servers:
                server.stop(STOP_TIMEOUT_S)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
