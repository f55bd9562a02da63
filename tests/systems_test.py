#!/usr/bin/python3
"""The real systems' launchers keep the servers' contract.

For each system of tests/real_systems.py: it starts on a free port and prints its ready line;
each endpoint it has answers 200; SIGTERM to the launcher alone stops it with exit status 0,
nothing of its process tree is left and its port is free; then the same with SIGINT (a Ctrl-C).
Each launcher answers -h with its usage (exit 0) and a bad --listen with exit 2. The post's other
driver, mysql-native, runs on Node.js 4 only (servers/node4): asked for from node-server and
standalone.js on today's Node.js, both must exit 1 at once saying so, not hang.

usage: systems_test.py SOURCE_DIR BLOCKING_SERVER ASYNC_SERVER   (scripts/ on PYTHONPATH, as
CTest runs it: the servers are started by the harness package, modelbench)
Needs the private MariaDB (scripts/db.sh start) and what scripts/deps.sh installs. Prints a line
per check and "N passed, N failed"; exit status 1 when a check failed.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from modelbench.engine import processes
from modelbench.engine.server import start as start_server
from real_systems import (APACHE_FPM, EXPRESS, FPM, NGINX, NODE, Checks, arguments, host_port,
                          port_free, systems)

READY_TIMEOUT_S = 30
STOP_TIMEOUT_S = 40
# What node-server and standalone.js say when mysql-native is asked for on today's Node.js.
MYSQL_NATIVE_ERROR = "it runs on Node.js 4, servers/node4/node"


def endpoint_path(path):
    # /tasks at a short delay: a blocking system answers after it.
    return {"/tasks": "/tasks?delay_ms=100", "/factorial": "/factorial?n=10"}.get(path, path)


def check_endpoints(checks, server, system):
    for path in system.endpoints:
        try:
            status = server.get(endpoint_path(path), timeout=30).status
        except OSError as error:
            status = f"no answer: {error}"
        checks.check(status == 200, f"{system.name} {path}: 200", f"got {status}")


# The systems whose /status gives their event loop's delay (perf_hooks), and Node.js 4's, which
# has no perf_hooks: {"samples": 0}.
LOOP_DELAY = {"node": True, "express": True, "node4": False}


def check_loop_delay(checks, server, system):
    if system.name not in LOOP_DELAY:
        return
    reply = server.get("/status", timeout=30)
    try:
        delay = json.loads(reply.body)["event_loop_delay"]
    except (ValueError, KeyError, TypeError) as error:
        checks.check(False, f"{system.name} /status: its event loop's delay", f"{reply.status}: {error}")
        return
    measured = LOOP_DELAY[system.name]
    checks.check(reply.status == 200 and (delay.get("samples", 0) > 0 and delay["max_ms"] >= delay["p99_ms"] >= 0
                                          if measured else delay == {"samples": 0}),
                 f"{system.name} /status: its event loop's delay" + ("" if measured else " is none"),
                 f"{reply.status}: {delay}")


def wait_ended(pid, timeout_s):
    """Until the process is gone or a zombie (processes.tree is empty then): True."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not processes.tree(pid):
            return True
        time.sleep(0.05)
    return False


def check_signal(checks, system, server, sig):
    what = f"{system.name}: {signal.Signals(sig).name}"
    members = processes.tree(server.pid)
    host, port = host_port(server.base_url)
    start = time.monotonic()
    if sig == signal.SIGTERM:
        status = server.stop(STOP_TIMEOUT_S)
    else:
        os.kill(server.pid, sig)
        ended = wait_ended(server.pid, STOP_TIMEOUT_S)
        checks.check(ended, f"{what} stops it within {STOP_TIMEOUT_S} s")
        # Reaps it, and sends nothing when it has ended.
        status = server.stop(STOP_TIMEOUT_S)
    took = time.monotonic() - start
    checks.check(status == 0, f"{what} stops it with exit status 0 ({took:.1f} s)", f"status {status}")
    time.sleep(0.2)
    left = [f"{pid} ({name})" for pid, name in members if processes.tree(pid)]
    checks.check(not left and not server.process.left_behind,
                 f"{what}: nothing of its tree is left ({len(members)} processes were)",
                 ", ".join(left + server.process.left_behind))
    checks.check(port_free(host, port), f"{what}: port {port} is free")


def check_contract_flags(checks, source):
    for parts in (NGINX, FPM, APACHE_FPM, EXPRESS, NODE):
        launcher = os.path.join(source, "servers", *parts)
        name = parts[-1]
        out = subprocess.run([launcher, "-h"], capture_output=True, text=True, timeout=30)
        checks.check(out.returncode == 0 and "--listen" in out.stdout, f"{name} -h: its usage, exit 0",
                     f"exit {out.returncode}")
        out = subprocess.run([launcher, "--listen", "nonsense"], capture_output=True, text=True,
                             timeout=30)
        checks.check(out.returncode == 2 and "HOST:PORT" in out.stderr,
                     f"{name} --listen nonsense: exit 2, saying why", f"exit {out.returncode}: {out.stderr[-200:]}")


def check_mysql_native(checks, source, work):
    """node-server --driver mysql-native on today's Node.js: exit 1 saying where it runs, through
    the harness's start as a system would be; standalone.js likewise."""
    command = [os.path.join(source, "servers", *NODE), "--listen", "127.0.0.1:0", "--driver", "mysql-native"]
    start = time.monotonic()
    try:
        server = start_server("node mysql-native", command, os.path.join(work, "mysql-native"),
                               ready_timeout_s=READY_TIMEOUT_S)
        server.stop(STOP_TIMEOUT_S)
        checks.check(False, "node-server --driver mysql-native fails to start", "it started")
    except Exception as error:  # the harness's TargetError
        took = time.monotonic() - start
        checks.check("status 1" in str(error) and MYSQL_NATIVE_ERROR in str(error) and took < 10,
                     f"node-server --driver mysql-native: exit 1 at once ({took:.1f} s) with the "
                     "reason", str(error))
    out = subprocess.run(["node", os.path.join(source, "servers", "node", "standalone.js"),
                          "--driver", "mysql-native", "10"], capture_output=True, text=True, timeout=30)
    checks.check(out.returncode == 1 and MYSQL_NATIVE_ERROR in out.stderr,
                 "standalone.js --driver mysql-native: exit 1 saying where it runs",
                 f"exit {out.returncode}: {out.stderr[-300:]}")


def main():
    source, blocking, asynchronous = arguments(__doc__)
    checks = Checks()
    check_contract_flags(checks, source)
    with tempfile.TemporaryDirectory(prefix="systems_test.") as work:
        check_mysql_native(checks, source, work)
        for system in systems():
            for sig in (signal.SIGTERM, signal.SIGINT):
                name = f"{system.name} {signal.Signals(sig).name}"
                try:
                    server = start_server(name, system.argv(source, blocking, asynchronous),
                                           os.path.join(work, name.replace(" ", "")),
                                           ready_timeout_s=READY_TIMEOUT_S)
                except Exception as error:  # the harness's TargetError: no ready line
                    checks.check(False, f"{system.name}: starts and prints its ready line", str(error))
                    continue
                try:
                    checks.check(True, f"{system.name}: starts and prints its ready line ({server.base_url})")
                    if sig == signal.SIGTERM:
                        check_endpoints(checks, server, system)
                        check_loop_delay(checks, server, system)
                    check_signal(checks, system, server, sig)
                finally:
                    server.stop(STOP_TIMEOUT_S)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
