"""serve: one system as a benchmark target, in the foreground. It prepares only what that
system needs (the C++ servers: the build and the private MariaDB; php: Apache and PHP; node:
Node.js and its npm packages), starts it, passes its output through and, once it listens,
prints its URL and ab, siege and wrk lines to paste for every endpoint it has. Flags after the
system's name are the server's own (`scripts/serve.sh blocking --help` lists them). Ctrl-C, or
SIGINT or SIGTERM sent to this process alone, stops the server and its whole process tree.
Exit status: the server's when it ended by itself, 128 + the signal's number after a signal
(130 for SIGINT, 143 for SIGTERM), 1 when preparing or starting failed, 2 on bad arguments.
"""

import argparse
import os
import shlex
import subprocess
import sys

from modelbench import prepare, systems
from modelbench.checkout import Checkout
from modelbench.engine import server

# Flags that make a server print something and exit rather than listen.
ONE_SHOT = ("-h", "--help", "--version", "--standalone")
LOOPBACK = ("127.", "localhost", "::1")


def add_arguments(parser):
    parser.add_argument("system", choices=systems.names(), help="the system to serve")
    parser.add_argument("flags", nargs=argparse.REMAINDER,
                        help="the server's own flags, e.g. --listen 0.0.0.0:8082 or --workers 0")


def commands(system, url, checkout):
    """The lines to paste for every endpoint the system has, with the harness's flags."""
    siege = f"siege -R {shlex.quote(checkout.script('siegerc'))}"
    wrk = f"wrk -s {shlex.quote(checkout.script('wrk-summary.lua'))} -t 2 -c"
    blocks = {
        "/html": ("E1b /html: two queries, both tables rendered (31.8 KiB)",
                  [f"ab -r -c 1 -n 500 {url}/html", f"ab -r -c 20 -n 2000 {url}/html",
                   f"ab -r -c 200 -n 20000 {url}/html", f"{wrk} 20 -d 10s {url}/html",
                   f"{siege} -c 200 -d 1 -t 60S {url}/html"]),
        "/json": ("E4 /json: the orders table as JSON (14 KB)",
                  [f"ab -r -c 200 -n 20000 {url}/json",
                   f"{siege} -c 500 -d 1 -t 60S {url}/json"]),
        "/hello": ("E2 /hello: 16 bytes",
                   [f"ab -r -c 200 -n 100000 {url}/hello",
                    f"ab -r -k -c 100 -n 100000 {url}/hello", f"{wrk} 100 -d 10s {url}/hello"]),
        "/factorial": ("E3 /factorial: n! for a random n in 10..40 (-l: accept its varying "
                       "length)", [f"ab -r -n 1000 -c 5 {url}/factorial",
                                   f"ab -r -l -n 1000 -c 5 {url}/factorial"]),
        "/tasks": ("E4 /tasks: the deferred task; watch this terminal for the task lines",
                   [f"ab -r -c 10 -n 10 '{url}/tasks?delay_ms=2000'"]),
    }
    text = [f"\n{system.name} ({system.title}) ready at {url}/  (Ctrl-C stops it). From another "
            "terminal:", "",
            "# The harness's tools and flags (ab -r: a socket error does not end the run; wrk's",
            "# script prints its figures as one line of JSON, WRK_SUMMARY). What a pasted line",
            "# lacks: the harness warms the server up first, runs it in blocks beside the other",
            "# systems, samples the server's and mariadbd's CPU, and reads ab's percentiles",
            "# (-e); see docs/experiments.md, \"How every run is made\"."]
    for endpoint in system.endpoints:
        title, lines = blocks[endpoint]
        text += ["", f"# {title}", *lines]
    if system.status:
        text += ["", "# counters", f"curl -s {url}/status"]
    text += ["", "# siege 4.0.7 sometimes hangs after \"Lifting the server siege...\": then only "
             "kill -9 stops it."]
    return "\n".join(text) + "\n"


def exposure(system, target):
    """What a listening address beyond the loopback means."""
    if target.process.address.startswith(("127.", "[::1]")):
        return (f"# Listening on the loopback only. For a load generator on another machine: "
                f"--listen 0.0.0.0:{target.port} (or one address of this machine).")
    return f"""# Listening on {target.process.address}: other machines reach it, e.g. from the load
# generator: scripts/reproduce.sh --target {system.name}=http://THIS_HOST:{target.port}
# WARNING: a benchmark target, not an internet-facing service (no TLS, no authentication,
# /status open to all): keep it on a private network, and stop it when the runs are over."""


def database_host(flags):
    host = os.environ.get("MYSQL_HOST", "127.0.0.1")
    for i, flag in enumerate(flags):
        if flag == "--db-host" and i + 1 < len(flags):
            host = flags[i + 1]
        elif flag.startswith("--db-host="):
            host = flag.split("=", 1)[1]
    return host


def run(args, parser):
    system = systems.get(args.system)
    checkout = Checkout.from_environment()
    flags, needs = args.flags, set(system.needs)
    if not database_host(flags).startswith(LOOPBACK):
        needs.discard("db")
        print(f"serve.sh: the database is at {database_host(flags)}: no private MariaDB "
              "started here", file=sys.stderr)
    one_shot = any(f.split("=")[0] in ONE_SHOT for f in flags)
    if one_shot and not any(f.startswith("--standalone") for f in flags):
        needs.discard("db")
    prepare.ready(checkout, needs, log_dir=checkout.build_dir)
    command = [*system.launcher(checkout), *flags]
    if one_shot:
        return subprocess.run(command).returncode
    if not any(f == "--listen" or f.startswith("--listen=") for f in flags):
        command += ["--listen", f"127.0.0.1:{system.port}"]
    # In the foreground until it ends or a signal stops its whole tree: Ctrl-C reaches the server
    # too (one process group), SIGTERM may come to this process alone.
    target = server.start(system.name, command, echo=True)
    try:
        print(commands(system, target.base_url, checkout), flush=True)
        print(exposure(system, target), flush=True)
        return target.process.wait()
    except KeyboardInterrupt:
        code = target.process.stop()
        if left := target.process.left_behind:
            print(f"serve.sh: killed what outlived the server: {', '.join(left)}", file=sys.stderr)
        print(f"serve.sh: the server exited with {code}", file=sys.stderr)
        raise
