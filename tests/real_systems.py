"""The real systems the tests start (same_bytes_test.py, systems_test.py): each one's launcher command,
the model whose /tasks it answers as, and the processes its tree must hold.

Started through the harness's engine.server.start only; the rest (task lines, commands, the checks)
is here, so that the tests do not depend on the harness's inner modules.
"""

import os
import re
import socket
import sys
from dataclasses import dataclass

ENDPOINTS = ("/html", "/json", "/hello", "/factorial", "/tasks")
TASK_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) tasks #(\d+): (.*)$")


@dataclass(frozen=True)
class SystemUnderTest:
    """name: what the checks print. command(source, blocking, async): its command line without
    --listen. waits_for_task_two: /tasks as the blocking model (True) or the async one (False).
    tree: (process name, at least, exactly or None) of its process tree. endpoints: those it
    has."""

    name: str
    command: object
    waits_for_task_two: bool = True
    tree: tuple = ()
    endpoints: tuple = ENDPOINTS

    def argv(self, source, blocking, asynchronous, listen="127.0.0.1:0"):
        command = self.command(source, blocking, asynchronous)
        # After the program and the script it runs (servers/node4/node's), before the flags.
        at = next((i for i, part in enumerate(command) if i and part.startswith("-")), len(command))
        return [*command[:at], "--listen", listen, *command[at:]]


def launcher(*parts):
    return lambda source, blocking, asynchronous: [os.path.join(source, "servers", *parts[0])] + list(parts[1:])


PHP = ("php", "apache-server")
NODE = ("node", "node-server")
EXPRESS = ("node", "express-server")
FPM = ("php", "fpm-server")
APACHE_FPM = ("php", "apache-fpm-server")
NGINX = ("nginx", "behind-nginx")
NODE4 = ("node4", "node")


def on_node4(*flags):
    """node-server on Node.js 4 (servers/node4/node), with flags."""
    return lambda source, blocking, asynchronous: [os.path.join(source, "servers", *NODE4),
                                                   os.path.join(source, "servers", *NODE), *flags]


def behind_nginx(backend):
    """behind-nginx -- BACKEND: backend(source, blocking, async) is the backend's command."""
    def command(source, blocking, asynchronous):
        return [os.path.join(source, "servers", *NGINX), "--", *backend(source, blocking, asynchronous)]
    return command


def arguments(doc):
    """SOURCE_DIR BLOCKING_SERVER ASYNC_SERVER of the command line; exit 2 with the usage of
    doc (its third paragraph) when they are not there."""
    if len(sys.argv) != 4:
        print(doc.split("\n\n")[2], file=sys.stderr)
        sys.exit(2)
    return sys.argv[1:]


def cores():
    return len(os.sched_getaffinity(0))


def systems():
    """Every real system, the existing two first."""
    workers = cores()
    nginx = ("nginx", 2, 2)  # the master and its one worker (worker_processes 1)
    return [
        # prefork: the parent and StartServers (5) children, each running PHP in-process.
        SystemUnderTest("php", launcher(PHP), True, (("apache2", 6, None),)),
        SystemUnderTest("node", launcher(NODE), False, (("node", 1, 1),)),
        SystemUnderTest("node --cluster", launcher(NODE, "--cluster"), False, (("node", workers + 1, workers + 1),)),
        SystemUnderTest("node4", on_node4(), False, (("node", 1, 1),)),
        SystemUnderTest("node4 mysql-native", on_node4("--driver", "mysql-native"), False, (("node", 1, 1),)),
        SystemUnderTest("node4 --cluster", on_node4("--cluster"), False, (("node", workers + 1, workers + 1),)),
        SystemUnderTest("express", launcher(EXPRESS), False, (("node", 1, 1),)),
        # FPM: the master and pm.start_servers (20) children.
        SystemUnderTest("fpm", launcher(FPM), True, (nginx, ("php-fpm8.2", 21, None))),
        SystemUnderTest("fpm unix", launcher(FPM, "--fpm-listen", "unix"), True, (nginx, ("php-fpm8.2", 21, None))),
        # mpm_event: the parent and StartServers (2) children; FPM's master and 2 children.
        SystemUnderTest("apache-fpm", launcher(APACHE_FPM), True, (("apache2", 3, None), ("php-fpm8.2", 3, None))),
        SystemUnderTest("nginx+node", behind_nginx(launcher(NODE)), False, (nginx, ("node", 1, 1))),
        SystemUnderTest("nginx+express", behind_nginx(launcher(EXPRESS)), False, (nginx, ("node", 1, 1))),
        SystemUnderTest("nginx+blocking", behind_nginx(lambda s, b, a: [b]), True,
               (nginx, ("blocking-server", 1, 1))),
        SystemUnderTest("nginx+async", behind_nginx(lambda s, b, a: [a]), False, (nginx, ("async-server", 1, 1))),
        SystemUnderTest("nginx hello", lambda s, b, a: [os.path.join(s, "servers", *NGINX), "--nginx-hello"],
               True, (nginx,), ("/hello",)),
    ]


def task_lines(log_path):
    """[(milliseconds of the day, demo, task)] of a server's stderr, in order."""
    lines = []
    try:
        with open(log_path, errors="replace") as f:
            text = f.read()
    except OSError:
        return lines
    for line in text.splitlines():
        match = TASK_LINE.match(line)
        if match:
            h, m, s, ms, demo, task = match.groups()
            lines.append((((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(ms), int(demo), task))
    return lines


def port_free(host, port):
    """Whether nothing listens on host:port any more (a TIME_WAIT left does not count)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host.strip("[]"), port))
            return True
        except OSError:
            return False


def host_port(base_url):
    host, _, port = base_url.split("://", 1)[1].rstrip("/").rpartition(":")
    return host, int(port)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"ok    {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL  {what}" + (f": {detail}" if detail else ""), flush=True)
        return ok

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
