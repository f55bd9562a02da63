"""Load acceptance with the real ApacheBench (tests/load/ab_check.sh, CTest label `load`): starts
a server binary on a free port of 127.0.0.1, runs ab against one endpoint, and fails unless every
request completed with a 2xx status and the server exits 0 on SIGTERM.

usage: tests/load/ab_check.sh [options] SERVER_BINARY ENDPOINT [AB_ARGS...]
  --server-arg=ARG        pass ARG to the server (repeat for several)
  --max-extra-threads N   sample the server's thread count during the run and fail if it ever
                          has more than N threads beyond those it has when idle (a worker cap).
                          The count is the Threads: line of /proc/PID/status, the kernel's own
                          counter: listing /proc/PID/task is a walk, not a snapshot, and when a
                          thread ends and another starts during the walk it can list both.
Example: tests/load/ab_check.sh build/bin/blocking-server /html -k -c 200 -n 20000
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from modelbench import processes, targets

THREAD_SAMPLE_INTERVAL_S = 0.005


class Usage(Exception):
    pass


def parse(argv):
    """(server args, max extra threads or None, binary, endpoint, ab args)."""
    server_args, max_extra = [], None
    while argv:
        arg = argv[0]
        if arg.startswith("--server-arg="):
            server_args.append(arg.split("=", 1)[1])
        elif arg == "--max-extra-threads":
            if len(argv) < 2 or not argv[1].isdigit():
                raise Usage("--max-extra-threads needs a number")
            max_extra = int(argv[1])
            argv = argv[1:]
        elif arg == "--":
            argv = argv[1:]
            break
        elif arg.startswith("-"):
            raise Usage(f"unknown option '{arg}'")
        else:
            break
        argv = argv[1:]
    if len(argv) < 2:
        raise Usage("")
    return server_args, max_extra, argv[0], argv[1], argv[2:]


def check(server_args, max_extra, binary, endpoint, ab_args, work):
    """The failures (empty: PASS)."""
    try:
        target = targets.start("server", targets.server_command(binary, server_args),
                               os.path.join(work, "server"))
    except targets.TargetError as error:
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


def main():
    try:
        if any(arg in ("-h", "--help") for arg in sys.argv[1:2]):
            print(__doc__.split("\n\n", 1)[1].rstrip())
            return 0
        server_args, max_extra, binary, endpoint, ab_args = parse(sys.argv[1:])
    except Usage as error:
        if str(error):
            print(f"ab_check: {error}", file=sys.stderr)
        print(__doc__.split("\n\n", 1)[1].rstrip(), file=sys.stderr)
        return 2
    if not os.access(binary, os.X_OK):
        print(f"ab_check: {binary} is not an executable", file=sys.stderr)
        return 2
    if shutil.which("ab") is None:
        print("ab_check: ab not found (apt-get install apache2-utils)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="ab_check.") as work:
        failures = check(server_args, max_extra, binary, endpoint, ab_args, work)
    for failure in failures:
        print(f"ab_check: FAIL: {failure}", file=sys.stderr)
    if not failures:
        print("ab_check: PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
