#!/usr/bin/python3
"""CTest `serve_signals`: a signal sent to the pid of a script alone, as a supervisor, a CI
script or `kill %1` sends it, stops what the script started.

For each system, `scripts/serve.sh NAME` is started on a free port and, once it has printed its
ready line, sent SIGTERM (and, in a second start, SIGINT): within a few seconds nothing of its
process tree runs, its port is free, and its exit status is 128 + the signal's number. Then
`scripts/db.sh start` of a fresh instance is sent SIGTERM while its mariadbd starts: it exits
143 and leaves no mariadbd of that instance running.

usage: serve_test.py SOURCE_DIR BUILD_DIR   (needs the private MariaDB and what deps.sh installs)
"""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import psutil

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from modelbench import systems  # noqa: E402

READY_S = 60
GONE_S = 10

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_free(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def tree(pid):
    try:
        root = psutil.Process(pid)
        return [root] + root.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def serve(source, build, name, sig):
    port = free_port()
    process = subprocess.Popen(["bash", os.path.join(source, "scripts", "serve.sh"), name,
                                "--listen", f"127.0.0.1:{port}"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True,
                               env={**os.environ, "BUILD_DIR": build})
    ready = threading.Event()

    def read():
        for line in process.stdout:
            if "ready at http://" in line:
                ready.set()
    threading.Thread(target=read, daemon=True).start()
    what = f"serve.sh {name}, {signal.Signals(sig).name} to its pid alone"
    if not ready.wait(READY_S):
        check(False, f"{what}: no ready line within {READY_S} s")
        os.killpg(process.pid, signal.SIGKILL)
        return
    members = tree(process.pid)
    check(len(members) >= 2, f"{what}: the server runs under it ({len(members)} processes)")
    process.send_signal(sig)
    try:
        code = process.wait(GONE_S)
    except subprocess.TimeoutExpired:
        code = None
    deadline = time.monotonic() + GONE_S
    while time.monotonic() < deadline and (any(p.is_running() and p.status() !=
                                               psutil.STATUS_ZOMBIE for p in members)
                                           or not port_free(port)):
        time.sleep(0.1)
    left = [f"{p.pid} {p.name()}" for p in members if p.is_running() and
            p.status() != psutil.STATUS_ZOMBIE]
    check(code == 128 + sig, f"{what}: exit status {code}, expected {128 + sig}")
    check(not left, f"{what}: nothing of its tree left ({', '.join(left) or 'none'})")
    check(port_free(port), f"{what}: port {port} free")
    if code is None or left:
        os.killpg(process.pid, signal.SIGKILL)
        for p in members:
            if p.is_running():
                p.kill()


def db_start_interrupted(source):
    with tempfile.TemporaryDirectory(prefix="db-signal.") as directory:
        port = free_port()
        env = {**os.environ, "DB_DIR": directory, "DB_PORT": str(port)}
        process = subprocess.Popen(["bash", os.path.join(source, "scripts", "db.sh"), "start"],
                                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def instance():
            """The instance's mariadbd (not mariadb-install-db's, which has no pid file)."""
            return [p for p in psutil.process_iter(["cmdline"])
                    if f"--datadir={directory}/data" in (p.info["cmdline"] or []) and
                    f"--pid-file={directory}/mysqld.pid" in (p.info["cmdline"] or [])]
        deadline = time.monotonic() + READY_S
        while time.monotonic() < deadline and not instance() and process.poll() is None:
            time.sleep(0.05)
        started = instance()
        process.send_signal(signal.SIGTERM)
        code = process.wait(GONE_S + 30)
        gone = psutil.wait_procs(started, timeout=GONE_S)[1] == []
        check(bool(started), "db.sh start: its mariadbd was seen starting")
        check(code == 143, f"db.sh start, SIGTERM while mariadbd starts: exit status {code}")
        check(gone and not instance(), "db.sh start, SIGTERM: no mariadbd of its instance left")
        for p in instance():
            p.kill()


def main():
    source, build = sys.argv[1], sys.argv[2]
    for system in systems.ALL:
        for sig in (signal.SIGTERM, signal.SIGINT):
            serve(source, build, system.name, sig)
    db_start_interrupted(source)
    print(f"{len(failures)} failed" if failures else "every check passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
