#!/usr/bin/python3
"""Load acceptance with the real ApacheBench (CTest label `load`): starts a server binary on a
free port of 127.0.0.1, runs ab against one endpoint, and fails unless every request completed
with a 2xx status and the server exits 0 on SIGTERM. The server is started and watched through
the harness (scripts/ on the import path).

The thread count of --max-extra-threads is the Threads: line of /proc/PID/status, the kernel's
own counter: listing /proc/PID/task is a walk, not a snapshot, and when a thread ends and
another starts during the walk it can list both.
Example: tests/load/ab_check.py build/bin/blocking-server /html -k -c 200 -n 20000
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from modelbench.engine import processes, server  # noqa: E402

THREAD_SAMPLE_INTERVAL_S = 0.005


def add_arguments(parser):
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="pass ARG to the server (repeat for several; --server-arg=--flag)")
    parser.add_argument("--max-extra-threads", type=int, metavar="N",
                        help="fail if the server ever has more than N threads beyond its idle "
                        "ones during the run (a worker cap)")
    parser.add_argument("binary", help="the server binary")
    parser.add_argument("endpoint", help="the path ab requests, e.g. /html")
    parser.add_argument("ab_args", nargs=argparse.REMAINDER, help="ab's own arguments")


def check(server_args, max_extra, binary, endpoint, ab_args, work):
    """The failures (empty: PASS)."""
    try:
        target = server.start("server", [binary, "--listen", "127.0.0.1:0", *server_args],
                              os.path.join(work, "server"))
    except server.TargetError as error:
        return [f"the server did not start: {error}"]
    failures = []
    with target:
        idle_threads = processes.threads(target.pid)
        sampler = None
        if max_extra is not None:
            sampler = processes.PeakSampler(
                lambda: {"threads": n} if (n := processes.threads(target.pid)) else None,
                THREAD_SAMPLE_INTERVAL_S)
        url = target.url(endpoint)
        print(f"ab_check: ab {' '.join(ab_args)} {url} (server: {binary} "
              f"{' '.join(server_args)})", flush=True)
        ab = subprocess.run(["ab", *ab_args, url], capture_output=True, text=True)
        output = ab.stdout + ab.stderr
        report = output[output.find("Server Software"):] if "Server Software" in output else ""
        print("\n".join(line for line in report.splitlines()
                        if not re.match(r"^(Completed|Finished) ", line)), flush=True)
        if ab.returncode != 0:
            failures.append(f"ab exited with {ab.returncode}: "
                            + " | ".join(output.strip().splitlines()[-5:]))
        if not re.search(r"^Failed requests: +0$", output, re.MULTILINE):
            failures.append("ab counted failed requests")
        non2xx = re.search(r"^Non-2xx responses.*$", output, re.MULTILINE)
        if non2xx:
            failures.append(non2xx.group(0))
        if sampler is not None:
            most = sampler.stop().get("threads", 0)
            extra = most - idle_threads
            print(f"ab_check: threads: {idle_threads} when idle, at most {most} during the run "
                  f"({extra} extra, limit {max_extra}; {sampler.samples} samples)")
            if extra > max_extra:
                failures.append(f"{extra} threads beyond the idle ones, more than {max_extra}")
        code = target.stop()
        if code != 0:
            failures.append(f"the server exited with {code} after SIGTERM: "
                            f"{target.process.stderr_tail()}")
    return failures


def run(args, parser):
    if not os.access(args.binary, os.X_OK):
        parser.error(f"{args.binary} is not an executable")
    if shutil.which("ab") is None:
        parser.error("ab not found (apt-get install apache2-utils)")
    with tempfile.TemporaryDirectory(prefix="ab_check.") as work:
        failures = check(args.server_arg, args.max_extra_threads, args.binary, args.endpoint,
                         args.ab_args, work)
    for failure in failures:
        print(f"ab_check: FAIL: {failure}", file=sys.stderr)
    if not failures:
        print("ab_check: PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="tests/load/ab_check.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    sys.exit(run(parser.parse_args(), parser))
