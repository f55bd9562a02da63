#!/usr/bin/python3
"""Server CPU per request, as docs/cost-measurement.md defines it: one server (or nginx, or the
Apache+PHP peer) on a free port of 127.0.0.1, a warm-up ab run, the server's process tree's CPU
from /proc before and after one measured ab run, divided by the requests ab completed. Or a
no-HTTP floor: the /html workload N times in one process, its own CPU per iteration.

usage:
  cost.py serve SYSTEM PATH --ab 'AB FLAGS' [--warm 'AB FLAGS'] [--bin DIR] [--label L]
          [--syscalls FILE]
  cost.py floor blocking|async|php N [--bin DIR] [--label L]
SYSTEM: nginx, apache, blocking, prefork, async, cluster.
--syscalls FILE: also count the tree's system calls during the measured run (perf stat on the
syscalls tracepoints; it slows the server: the CPU figure of such a run is not comparable), per
request into FILE.
Prints one tab-separated line: label, path, ab flags, requests, failed, CPU ticks, µs per
request, of which user, 1-minute load average before the run.
"""
import argparse
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# Debian's nginx-light 1.22, one worker, 'return 200' with the servers' /hello body.
NGINX_CONF = """worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
daemon off;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    server {{
        listen 127.0.0.1:{port} backlog=511;
        location = /hello {{ default_type text/plain; return 200 "Hello World! 10\\n"; }}
    }}
}}
"""

SYSCALLS = ["accept", "accept4", "recvfrom", "recvmsg", "read", "sendmsg", "sendto", "writev",
            "write", "poll", "epoll_wait", "epoll_ctl", "setsockopt", "getsockopt", "shutdown",
            "close", "ioctl", "fcntl", "clone3", "clone", "exit", "mmap", "munmap", "mprotect",
            "madvise", "futex", "rt_sigprocmask", "set_robust_list", "rseq", "gettid", "tgkill",
            "access", "sched_yield", "timerfd_settime", "wait4", "getpid", "rt_sigaction",
            "setitimer", "chdir", "newfstatat", "openat", "getcwd", "times"]


def stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rindex(")") + 2:].split()  # fields 3.. of proc(5), after the command


def tree(root):
    """root and every descendant, by the parent links of /proc/*/stat."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children.setdefault(int(stat_fields(entry)[1]), []).append(int(entry))
            except OSError:
                continue
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def tree_ticks(root):
    """(utime + stime + cutime + cstime, utime + cutime) over the tree, in clock ticks. The
    children's fields hold reaped children (an Apache child that retired during the run)."""
    total = user = 0
    for pid in tree(root):
        try:
            fields = stat_fields(pid)
        except OSError:
            continue
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        total += utime + stime + cutime + cstime
        user += utime + cutime
    return total, user


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(system, bindir):
    """The server's Popen and port, once it answers."""
    if system == "nginx":
        port = free_port()
        prefix = f"/tmp/cost-nginx-{port}"
        os.makedirs(prefix, exist_ok=True)
        with open(f"{prefix}/nginx.conf", "w") as f:
            f.write(NGINX_CONF.format(d=prefix, port=port))
        server = subprocess.Popen(["/usr/sbin/nginx", "-p", prefix, "-c", f"{prefix}/nginx.conf"],
                                  stderr=subprocess.DEVNULL)
        for _ in range(100):
            probe = subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/hello"],
                                   stdout=subprocess.DEVNULL)
            if probe.returncode == 0:
                return server, port
            time.sleep(0.05)
        sys.exit("nginx did not start")
    if system == "apache":
        command = [f"{ROOT}/servers/php/apache-server", "--listen", "127.0.0.1:0"]
    else:
        binary = "async-server" if system in ("async", "cluster") else "blocking-server"
        command = [f"{bindir}/{binary}", "--listen", "127.0.0.1:0"]
        command += {"prefork": ["--lifecycle", "prefork"], "cluster": ["--workers", "0"]}.get(
            system, [])
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    for line in server.stdout:
        found = re.search(r"listening on http://[^/]*:(\d+)/", line)
        if found:
            return server, int(found.group(1))
    sys.exit(f"{system} did not start")


def ab(port, path, flags):
    """(complete, failed) requests of one ab run."""
    run = subprocess.run(["ab", "-q", "-r"] + shlex.split(flags) +
                         [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True)
    complete = re.search(r"Complete requests:\s+(\d+)", run.stdout)
    if not complete:
        sys.exit("ab failed: " + run.stderr)
    failed = int(re.search(r"Failed requests:\s+(\d+)", run.stdout).group(1))
    non_2xx = re.search(r"Non-2xx responses:\s+(\d+)", run.stdout)
    return int(complete.group(1)), failed + (int(non_2xx.group(1)) if non_2xx else 0)


def count_syscalls(root, out):
    """perf stat on the tree's system calls (threads started later included), until SIGINT."""
    events = []
    for name in SYSCALLS:
        events += ["-e", f"syscalls:sys_enter_{name}"]
    for name in ("recvfrom", "recvmsg", "accept", "accept4"):
        events += ["-e", f"syscalls:sys_exit_{name}", "--filter", "ret < 0"]
    events += ["-e", "raw_syscalls:sys_enter", "-e", "context-switches", "-e", "page-faults"]
    pids = ",".join(str(pid) for pid in tree(root))
    counter = subprocess.Popen(["perf", "stat", "-x", ",", "-o", out] + events + ["-p", pids],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # perf attaches to every thread
    return counter


def write_per_request(raw, out, requests):
    rows = []
    with open(raw) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) > 2 and re.fullmatch(r"[\d.]+", parts[0]) and float(parts[0]) > 0:
                name = parts[2] + (" (failed)" if "sys_exit_" in parts[2] else "")
                rows.append((float(parts[0]) / requests, name.replace("syscalls:", "")))
    with open(out, "w") as f:
        for value, name in sorted(rows, reverse=True):
            f.write(f"{value:8.3f}  {name}\n")


def serve(args):
    server, port = start(args.system, args.bin)
    try:
        ab(port, args.path, args.warm or re.sub(r"-n \d+", "-n 5000", args.ab))
        time.sleep(0.3)
        counter = count_syscalls(server.pid, args.syscalls + ".raw") if args.syscalls else None
        load = os.getloadavg()[0]
        before, user_before = tree_ticks(server.pid)
        requests, failed = ab(port, args.path, args.ab)
        after, user_after = tree_ticks(server.pid)
        if counter:
            counter.send_signal(signal.SIGINT)
            counter.wait()  # perf stat ends by the signal, with its status
            if not os.path.exists(args.syscalls + ".raw"):
                sys.exit("perf stat failed (are the syscalls tracepoints there?)")
            write_per_request(args.syscalls + ".raw", args.syscalls, requests)
        per_tick = 1e6 / HZ / requests
        print(f"{args.label or args.system}\t{args.path}\t{args.ab}\t{requests}\t{failed}\t"
              f"{after - before}\t{(after - before) * per_tick:.1f}\t"
              f"{(user_after - user_before) * per_tick:.1f}\t{load:.2f}", flush=True)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=40)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def floor(args):
    command = {"blocking": [f"{args.bin}/blocking-server", "--standalone", str(args.n)],
               "async": [f"{args.bin}/async-server", "--standalone", str(args.n)],
               "php": ["php", f"{ROOT}/servers/php/html_cli.php", str(args.n)]}[args.kind]
    load = os.getloadavg()[0]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(command)} failed ({status})")
    per_iteration = 1e6 / args.n
    print(f"{args.label or 'floor-' + args.kind}\t/html\t--standalone {args.n}\t{args.n}\t0\t-\t"
          f"{(usage.ru_utime + usage.ru_stime) * per_iteration:.1f}\t"
          f"{usage.ru_utime * per_iteration:.1f}\t{load:.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    modes = parser.add_subparsers(dest="mode", required=True)
    one = modes.add_parser("serve")
    one.add_argument("system", choices=["nginx", "apache", "blocking", "prefork", "async",
                                        "cluster"])
    one.add_argument("path")
    one.add_argument("--ab", required=True)
    one.add_argument("--warm", default="")
    one.add_argument("--bin", default=f"{ROOT}/build/bin")
    one.add_argument("--label", default="")
    one.add_argument("--syscalls")
    one.set_defaults(run=serve)
    base = modes.add_parser("floor")
    base.add_argument("kind", choices=["blocking", "async", "php"])
    base.add_argument("n", type=int)
    base.add_argument("--bin", default=f"{ROOT}/build/bin")
    base.add_argument("--label", default="")
    base.set_defaults(run=floor)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
