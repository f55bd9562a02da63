"""profile: one model under valgrind's callgrind, whose instruction counts repeat from run to
run on a busy machine where timings do not: a warm-up request per endpoint (and ab -n 100 on
the measured one), the counters zeroed, ab, the server stopped; then the instructions per
request and the functions that spent the most (exclusive). Or, with --syscalls, any system's
system calls per request, by `perf stat` on its process tree's tracepoints during the run
(counting slows the server: that run's CPU is not a measurement). Examples:
scripts/profile.sh async --endpoint /hello -k -n 20000; scripts/profile.sh blocking --
--db-connection persistent; scripts/profile.sh nginx --syscalls --endpoint /hello -c 200.
Exit status 0 on success, 1 when the run failed, 2 on bad arguments, 130 when interrupted.
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from modelbench import prepare, systems
from modelbench.checkout import Checkout
from modelbench.engine import processes, server
from modelbench.engine.measure import tail
from modelbench.verb import VerbError

# Under callgrind a server starts and answers about 50 times slower.
READY_TIMEOUT_S = 30.0
REQUEST_TIMEOUT_S = 60.0
# Frames that were on a stack when the counters were zeroed (program and thread entry, the event
# loop) come out with the costs of all they called since.
ENTRY_FRAMES = re.compile(r"ld-linux|start_thread|_M_run|__libc_start_main|:main |"
                          r"\(below main\)|:clone |:0x[0-9a-f]+ \[.*libstdc\+\+")
COST_LINE = re.compile(r"^ *([0-9,]+) \( *[0-9.]+%\) +(.*)$")


def short_name(frame):
    """A function name without its file, library, argument lists and template arguments."""
    name = re.sub(r" \[[^]]*\]$", "", frame)
    name = re.sub(r"^[^:]*:", "", name)
    for brackets in (r"<[^<>]*>", r"\([^()]*\)"):
        while re.search(brackets, name):
            name = re.sub(brackets, "", name)
    return name


def top_functions(annotated, total, requests, top):
    """'count per request  share  name' lines of the functions that spent the most (exclusive)."""
    lines = []
    for line in annotated.splitlines():
        match = COST_LINE.match(line)
        if not match or "PROGRAM TOTALS" in line or ENTRY_FRAMES.search(line):
            continue
        count = int(match.group(1).replace(",", ""))
        name = short_name(match.group(2))
        if name:
            lines.append(f"{count / requests:10.0f}  {100 * count / total:5.1f}%  {name}")
        if len(lines) == top:
            break
    return lines


def first_count(pattern, text):
    """The number (commas or not) of pattern's first match in text's lines, or 0."""
    match = re.search(pattern, text, re.MULTILINE)
    return int(match.group(1).replace(",", "")) if match else 0


def profile(checkout, args, work):
    out = os.path.abspath(args.out) if args.out else os.path.join(work, "callgrind.out")
    server_command = systems.get(args.model).command(checkout, args.flags)
    print(f"== callgrind: {' '.join(server_command)}", flush=True)
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *server_command]
    try:
        target = server.start(args.model, command, os.path.join(work, "server"),
                              ready_timeout_s=READY_TIMEOUT_S)
    except server.TargetError as error:
        raise VerbError(f"the server did not start under valgrind: {error}") from error
    keepalive = ["-k"] if args.keepalive else []
    ab_output = os.path.join(work, "ab")
    try:
        for path in ("/html", "/json", "/hello", args.endpoint):
            reply = target.get(path, timeout=REQUEST_TIMEOUT_S)
            if reply.status != 200:
                raise VerbError(f"GET {path} answered '{reply.status or reply.error}' before "
                                   "the run")
        url = target.url(args.endpoint)
        if subprocess.run(["ab", "-q", *keepalive, "-c", str(args.concurrency), "-n", "100", url],
                          capture_output=True).returncode != 0:
            raise VerbError("the warm-up ab run failed")
        if subprocess.run(["callgrind_control", "-z", str(target.pid)],
                          capture_output=True).returncode != 0:
            raise VerbError("callgrind_control -z failed")
        print(f"== ab {' '.join(keepalive)} -c {args.concurrency} -n {args.requests} {url}",
              flush=True)
        with open(ab_output, "w") as f:
            code = subprocess.run(["ab", "-r", *keepalive, "-c", str(args.concurrency), "-n",
                                   str(args.requests), url], stdout=f,
                                  stderr=subprocess.STDOUT).returncode
        if code != 0:
            raise VerbError(f"ab failed: {tail(ab_output)}")
        # The profile, written at exit, counts from the zeroing on: the requests and the cheap
        # shutdown (a dump taken mid-run would book the frames on a stack with whole-run costs).
        target.stop()
    finally:
        if target.running():
            target.process.stop(signal.SIGKILL)
    report = open(ab_output).read()
    for line in report.splitlines():
        if re.match(r"^(Complete|Failed) requests|^Non-2xx", line):
            print(line)
    if not os.path.exists(out) or os.path.getsize(out) == 0:
        raise VerbError(f"no callgrind output in {out}")
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
                               capture_output=True, text=True).stdout
    requests = first_count(r"^Complete requests: *(\d+)", report)
    total = first_count(r"^ *([0-9,]+) .*PROGRAM TOTALS", annotated)
    if not total or not requests:
        raise VerbError(f"no totals in {out}")
    print(f"== {total // requests} instructions per request ({total} over {requests} requests)")
    print(f"== top {args.top} functions by instructions spent in them (exclusive), per request")
    print("\n".join(top_functions(annotated, total, requests, args.top)))
    if args.out:
        print(f"== callgrind output: {args.out}")


# The system calls counted one by one (every one is counted in raw_syscalls:sys_enter), and those
# whose failures (EAGAIN: nothing there yet) are counted apart.
SYSCALLS = ("accept", "accept4", "recvfrom", "recvmsg", "read", "sendmsg", "sendto", "writev",
            "write", "poll", "epoll_wait", "epoll_ctl", "setsockopt", "shutdown", "close",
            "ioctl", "fcntl", "clone3", "exit", "mmap", "munmap", "mprotect", "madvise", "futex",
            "tgkill", "access", "timerfd_settime", "openat")
FAILING = ("recvfrom", "recvmsg", "accept", "accept4")


def syscalls(checkout, args, work):
    """The system calls per request of the system under ab, from perf stat."""
    target = server.start(args.model, systems.get(args.model).command(checkout, args.flags),
                          os.path.join(work, "server"))
    ab = ["ab", "-q", "-r", *(["-k"] if args.keepalive else []), "-c", str(args.concurrency),
          "-n", str(args.requests), target.url(args.endpoint)]
    out = os.path.join(work, "perf.csv")
    events = [e for name in SYSCALLS for e in ("-e", f"syscalls:sys_enter_{name}")]
    events += [e for name in FAILING for e in ("-e", f"syscalls:sys_exit_{name}", "--filter",
                                                "ret < 0")]
    events += ["-e", "raw_syscalls:sys_enter", "-e", "context-switches", "-e", "page-faults"]
    try:
        subprocess.run(ab, capture_output=True, timeout=600)  # the warm-up
        pids = ",".join(str(pid) for pid, _ in processes.tree(target.pid))
        counter = subprocess.Popen(["perf", "stat", "-x", ",", "-o", out, *events, "-p", pids],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # perf attaches to every thread
        report = subprocess.run(ab, capture_output=True, text=True, timeout=600).stdout
        counter.send_signal(signal.SIGINT)
        counter.wait()
    finally:
        target.stop()
    requests = first_count(r"^Complete requests: *(\d+)", report)
    if not requests or not os.path.exists(out):
        raise VerbError("ab or perf stat failed (are the syscalls tracepoints there?)")
    rows = [(float(count) / requests, event.replace("raw_syscalls:sys_enter", "all system calls")
             .replace("syscalls:", "") + (" (failed)" if "sys_exit_" in event else ""))
            for count, _, event, *_ in (line.strip().split(",") + ["", ""] for line in open(out))
            if re.fullmatch(r"[\d.]+", count) and float(count) > 0]
    print(f"== per request, over {requests} requests: {' '.join(ab[1:])}")
    print("\n".join(f"{value:8.3f}  {name}" for value, name in sorted(rows, reverse=True)))


def add_arguments(parser):
    parser.add_argument("model", choices=systems.names(),
                        help="the system to profile (callgrind: a C++ model only)")
    parser.add_argument("--syscalls", action="store_true",
                        help="count the system calls per request (perf stat) instead")
    parser.add_argument("--endpoint", default="/html", help="the path ab requests (default /html)")
    parser.add_argument("-c", dest="concurrency", type=int, default=20,
                        help="ab's concurrency (default 20)")
    parser.add_argument("-n", dest="requests", type=int, default=2000,
                        help="ab's requests (default 2000; under callgrind a server is ~50x "
                        "slower)")
    parser.add_argument("-k", dest="keepalive", action="store_true", help="ab keep-alive")
    parser.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    parser.add_argument("--out", help="keep the callgrind output there")
    parser.add_argument("flags", nargs="*", help="the server's flags, after --")


def run(args, parser):
    if not args.endpoint.startswith("/"):
        parser.error(f"--endpoint must be a path, not '{args.endpoint}'")
    if min(args.concurrency, args.requests, args.top) < 1:
        parser.error("-c, -n and --top take a positive number")
    if args.concurrency > args.requests:
        parser.error(f"-c {args.concurrency} is more than -n {args.requests}")
    if not args.syscalls and not systems.get(args.model).status:
        parser.error(f"callgrind profiles a C++ model, not {args.model} (--syscalls counts any)")
    tools = ("perf", "ab") if args.syscalls else ("valgrind", "callgrind_control",
                                                   "callgrind_annotate", "ab")
    for tool in tools:
        if shutil.which(tool) is None:
            parser.error(f"{tool} not found (apt-get install linux-perf valgrind apache2-utils)")
    checkout = Checkout.from_environment()
    prepare.ready(checkout, (*systems.get(args.model).needs, "profile"))
    with tempfile.TemporaryDirectory(prefix="profile.") as work:
        (syscalls if args.syscalls else profile)(checkout, args, work)
    return 0
