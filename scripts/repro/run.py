#!/usr/bin/env python3
"""One measured step of reproduce.sh or stress.sh: runs a load tool (or a standalone server, or
the /tasks demo), samples the server and mariadbd from /proc while it runs, parses the tool's
output and writes DIR/runs/ID.json (figures, command, raw file names). Prints one summary line.

  run.py ab         --url URL -c C -n N [--variable-length] [--time-limit S]   ab 2.3
  run.py siege      --url URL -c C --delay S --time 60S           siege 4.0.7 -v (E4)
  run.py standalone -- BINARY --standalone N [flags]              a server's E1a mode
  run.py tasks      --url URL --delay-ms MS --server-log FILE     the E4 /tasks demo

Exit status 0 when the step produced its figures, 1 when it failed (the cause is recorded in
the JSON with status "failed", for the caller to report).
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

import parsers
import procstat

SAMPLE_INTERVAL_S = 0.1
PROGRESS_INTERVAL_S = 10.0
# siege 4.0.7 on Debian 12's glibc sometimes deadlocks after announcing the end of its run
# (JoeDog/siege#4): it then ignores SIGINT and SIGTERM and never prints its summary.
HANG_GRACE_S = 15.0


class StepFailed(Exception):
    pass


def tail(path, lines=3):
    try:
        with open(path, errors="replace") as f:
            last = f.read().splitlines()[-lines:]
        return " | ".join(line.strip() for line in last if line.strip())
    except OSError:
        return ""


def run_measured(args, command, stdout_path, stderr_path, child_is_server=False,
                 end_marker=None):
    """Runs command while sampling the server (args.server_pid, or the child itself when it is
    the server) and mariadbd; returns (exit code, sampled figures). The child's own CPU comes
    from its rusage: client_cpu_* for a load tool, server_cpu_* for a standalone server.
    end_marker: text the tool writes to stderr when its load is over; sampling stops there, and
    a tool still alive HANG_GRACE_S later is killed and reported with exit code None."""
    sampler = None
    if not child_is_server:
        sampler = procstat.RunSampler(server_pid=args.server_pid, server_tree=args.server_tree,
                                      db_pid=args.db_pid)
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    if child_is_server:
        sampler = procstat.RunSampler(server_pid=process.pid, db_pid=args.db_pid,
                                      server_from_start=True)
    next_progress = PROGRESS_INTERVAL_S
    deadline = time.monotonic() + args.timeout
    ended_at = None
    try:
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if ended_at is None:
                sampler.sample()
            if pid != 0:
                break
            if ended_at is None and end_marker and end_marker in read(stderr_path):
                ended_at = time.monotonic()
            if ended_at is not None and time.monotonic() - ended_at > HANG_GRACE_S:
                process.kill()
                _, _, usage = os.wait4(process.pid, 0)
                status = None
                break
            if time.monotonic() > deadline:
                raise StepFailed(f"{command[0]} did not finish within {args.timeout:.0f} s; "
                                 "killed it")
            if sampler.elapsed >= next_progress:
                # ab and the standalone mode report their progress on stderr; siege does not.
                progress = "" if command[0] == "siege" else tail(stderr_path, 1)
                print(f"    ... {sampler.elapsed:.0f} s {progress}", flush=True)
                next_progress += PROGRESS_INTERVAL_S
            time.sleep(SAMPLE_INTERVAL_S)
    except KeyboardInterrupt:
        process.kill()
        os.wait4(process.pid, 0)
        raise StepFailed(f"interrupted; {command[0]} stopped")
    except StepFailed:
        process.kill()
        os.wait4(process.pid, 0)
        raise
    code = None if status is None else os.waitstatus_to_exitcode(status)
    own_cpu = usage.ru_utime + usage.ru_stime
    if not child_is_server:
        return code, sampler.figures(client_cpu_seconds=own_cpu)
    # A standalone server's exact rusage beats the /proc samples, which miss its last ticks.
    sampled = sampler.figures()
    wall = max(sampled["wall_s"], 1e-9)
    sampled.update(server_cpu_s=round(own_cpu, 3),
                   server_cpu_pct_core=round(100 * own_cpu / wall, 1),
                   server_cpu_pct_machine=round(100 * own_cpu / wall / procstat.CORES, 1))
    return code, sampled


def server_status(args):
    """The server's own counters after the run, from /status of every worker (cluster mode:
    SO_REUSEPORT spreads new connections, so ask until each worker's pid has answered once)."""
    if not args.status_url:
        return {}
    documents = {}
    for _ in range(40):
        try:
            with urllib.request.urlopen(args.status_url, timeout=5) as response:
                document = json.load(response)
        except (OSError, ValueError):
            break
        documents[document.get("pid")] = document
        if len(documents) >= document.get("async", {}).get("workers", 1):
            break
    if not documents:
        return {}
    with open(raw_path(args, "status.json"), "w") as f:
        json.dump(list(documents.values()), f, indent=1)
    figures = {"server_db_connects": sum(d["database"]["connects"] for d in documents.values())}
    if len(documents) > 1:
        # Requests answered by each worker (the run's plus the warm-up and these /status calls).
        figures["requests_by_worker"] = " / ".join(
            str(d["requests"]["total"]) for d in documents.values())
    return figures


def measure_tool(args, record, command, stdout_path, stderr_path, parse, extra_raw=(),
                 child_is_server=False, end_marker=None):
    """Runs a tool under the sampler; the figures are parse(sampled)'s, the sampled ones and
    the server's own counters."""
    record.update(command=" ".join(command), raw=[stdout_path, stderr_path, *extra_raw])
    code, sampled = run_measured(args, command, stdout_path, stderr_path, child_is_server,
                                 end_marker)
    name = os.path.basename(command[0])
    if code is None:
        record["note"] = (f"{name} hung after its run (JoeDog/siege#4) and was killed "
                          f"{HANG_GRACE_S:.0f} s later; its summary figures were computed from "
                          "its transaction lines")
        print(f"    note: {record['note']}", flush=True)
    elif code != 0:
        raise StepFailed(f"{name} exited with {code}: {tail(stderr_path)}")
    record["figures"] = {**parse(sampled), **sampled, **server_status(args)}


def raw_path(args, suffix):
    return os.path.join(args.dir, "raw", f"{args.id}.{suffix}")


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def step_ab(args, record):
    report, errors, percentiles = raw_path(args, "ab.txt"), raw_path(args, "ab.err"), \
        raw_path(args, "ab-percentiles.csv")
    # -r: a socket error counts as a failed request instead of aborting the whole run.
    command = ["ab", "-r", "-c", str(args.concurrency)]
    if args.time_limit:
        # Before -n: ab's -t sets the request count to 50000, whatever -n said before it.
        command += ["-t", str(args.time_limit)]
    command += ["-n", str(args.requests), "-e", percentiles]
    if args.variable_length:
        command.append("-l")
    command.append(args.url)
    record.update(concurrency=args.concurrency, requests=args.requests)
    measure_tool(args, record, command, report, errors,
                 lambda _: parsers.ab(read(report), read(percentiles)), extra_raw=[percentiles])


def step_siege(args, record):
    lines, summary = raw_path(args, "siege.txt"), raw_path(args, "siege.err")
    command = ["siege", "-R", args.siegerc, "-v", "-c", str(args.concurrency), "-d",
               str(args.delay), "-t", args.time, args.url]
    record.update(concurrency=args.concurrency, duration=args.time)
    measure_tool(args, record, command, lines, summary,
                 lambda sampled: parsers.siege(read(lines), read(summary), sampled["wall_s"]),
                 end_marker=parsers.SIEGE_DONE)


def step_standalone(args, record):
    report, errors = raw_path(args, "standalone.txt"), raw_path(args, "standalone.err")
    measure_tool(args, record, args.command, report, errors,
                 lambda _: parsers.standalone(read(report)), child_is_server=True)


TASK_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) tasks #(\d+): (.*)$")
DAY_MS = 24 * 3600 * 1000


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def ms_of_day(moment):
    return ((moment.hour * 60 + moment.minute) * 60 + moment.second) * 1000 + \
        moment.microsecond // 1000


def clock(ms):
    ms %= DAY_MS
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def task_lines(log_path):
    lines = []
    for line in read(log_path).splitlines():
        match = TASK_LINE.match(line)
        if match:
            h, m, s, ms, demo, task = match.groups()
            lines.append((((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(ms), int(demo), task))
    return lines


def step_tasks(args, record):
    url = f"{args.url.rstrip('/')}/tasks?delay_ms={args.delay_ms}"
    timeline_path = raw_path(args, "tasks-timeline.txt")
    record.update(command=f"GET {url}", raw=[timeline_path, args.server_log])
    sent = utc_now()
    try:
        with urllib.request.urlopen(url, timeout=args.delay_ms / 1000 + 30) as response:
            body = response.read().decode("utf-8", "replace")
            status = response.status
    except OSError as error:
        raise StepFailed(f"GET {url} failed: {error}")
    received = utc_now()
    if status != 200:
        raise StepFailed(f"GET {url} answered {status}")
    # Wait for task two, which the async model logs after the response.
    deadline = time.monotonic() + args.delay_ms / 1000 + 10
    while time.monotonic() < deadline:
        lines = task_lines(args.server_log)
        if any("two" in task for _, _, task in lines):
            break
        time.sleep(0.05)
    else:
        raise StepFailed(f"no 'task two' line in {args.server_log} within "
                         f"{args.delay_ms + 10000} ms")

    # Times of day in UTC, measured from the moment the request was sent (wraps at midnight).
    origin = ms_of_day(sent)

    def offset(ms):
        ahead = (ms - origin) % DAY_MS
        return ahead - DAY_MS if ahead > DAY_MS // 2 else ahead

    events = [(offset(ms), f"{clock(ms)}  server  tasks #{demo}: {task}")
              for ms, demo, task in lines]
    events.append((0, f"{clock(origin)}  client  request sent: GET {url}"))
    response_ms = (received - sent).total_seconds() * 1000
    received_text = f"response received ({response_ms:.0f} ms)"
    events.append((offset(ms_of_day(received)),
                   f"{clock(ms_of_day(received))}  client  {received_text}"))
    events.sort(key=lambda e: e[0])
    timeline = [text for _, text in events]
    with open(timeline_path, "w") as f:
        f.write("\n".join(timeline) + "\n\nresponse body:\n" + body)

    def task_at(name):
        found = [offset(ms) for ms, _, task in lines if name in task]
        if not found:
            raise StepFailed(f"no '{name}' line in {args.server_log}")
        return found[0]

    one, two, three = task_at("one"), task_at("two"), task_at("three")
    received_at = offset(ms_of_day(received))
    record["timeline"] = timeline
    record["body"] = body
    record["figures"] = {
        "delay_ms": args.delay_ms,
        "response_ms": round(response_ms, 1),
        "task_two_after_task_one_ms": two - one,
        "task_two_after_response": int(two > received_at),
        "task_three_before_task_two": int(three < two),
    }


def summary(record):
    f = record.get("figures", {})
    if record["tool"] == "standalone":
        return (f"{f['iterations']} iterations: real {f['real_s']:.3f} s, "
                f"user {f['user_s']:.3f} s, sys {f['sys_s']:.3f} s, "
                f"{f['iterations_per_s']:.1f} iterations/s")
    if "response_ms" in f:
        order = "after" if f["task_two_after_response"] else "before"
        return f"response after {f['response_ms']:.0f} ms; task two logged {order} the response"
    return (f"{f['requests_per_s']:.1f} req/s, mean {f['mean_ms']:.1f} ms, "
            f"p99 {f['p99_ms']:.0f} ms, "
            f"failed {f['failed']} (length {f['failed_length']}), non-2xx {f['non2xx']}; "
            f"CPU server {f.get('server_cpu_pct_core', 0):.0f} %, "
            f"mariadbd {f.get('db_cpu_pct_core', 0):.0f} % of a core")


def main():
    parser = argparse.ArgumentParser(usage="run.py STEP [options] [-- standalone command]",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["ab", "siege", "standalone", "tasks"])
    parser.add_argument("--dir", required=True, help="results directory (runs/, raw/ inside)")
    parser.add_argument("--id", required=True)
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--server", required=True, help="blocking | async")
    parser.add_argument("--variant", default="single", help="single | cluster")
    parser.add_argument("--endpoint", default="")
    parser.add_argument("--url")
    parser.add_argument("--server-pid", type=int)
    parser.add_argument("--server-tree", action="store_true", help="add the server's children")
    parser.add_argument("--status-url", help="the server's /status, read after the run")
    parser.add_argument("--db-pid", type=int)
    parser.add_argument("-c", "--concurrency", type=int)
    parser.add_argument("-n", "--requests", type=int)
    parser.add_argument("--variable-length", action="store_true", help="ab -l")
    parser.add_argument("--time-limit", type=int, help="ab -t: stop after S seconds, -n at most")
    parser.add_argument("--delay", type=float, default=1, help="siege -d")
    parser.add_argument("--time", default="60S", help="siege -t")
    parser.add_argument("--siegerc")
    parser.add_argument("--delay-ms", type=int, default=2000)
    parser.add_argument("--server-log")
    parser.add_argument("--timeout", type=float, default=900, help="kill the tool after S seconds")
    # Everything after "--" is the standalone command line, passed through untouched.
    argv = sys.argv[1:]
    command = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.command = command

    for sub in ("runs", "raw"):
        os.makedirs(os.path.join(args.dir, sub), exist_ok=True)
    record = {"id": args.id, "experiment": args.experiment, "server": args.server,
              "variant": args.variant, "endpoint": args.endpoint, "tool": args.step,
              "started": utc_now().isoformat()}
    steps = {"ab": step_ab, "siege": step_siege, "standalone": step_standalone, "tasks": step_tasks}
    try:
        steps[args.step](args, record)
        record["status"] = "ok"
        print(f"    {summary(record)}", flush=True)
    except (StepFailed, parsers.ParseError, OSError) as error:
        record["status"] = "failed"
        record["cause"] = str(error)
    with open(os.path.join(args.dir, "runs", f"{args.id}.json"), "w") as f:
        json.dump(record, f, indent=1)
    return 0 if record["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
