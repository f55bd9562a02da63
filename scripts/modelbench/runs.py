"""Measured runs recorded in a results directory: every tool's output in raw/ID.*, and a record
of each run in runs/ID.json (what ran, its figures, or why it failed), with a summary line on the
terminal. reproduce and stress build their reports from these records.

  ab          ab against a target, the server and mariadbd sampled meanwhile
  wrk         the same with wrk (keep-alive, a thread per core, for a fixed time)
  siege       the same with siege -v (its transaction lines give the percentiles)
  standalone  a standalone loop (a model's --standalone, a real peer's script), the process
              itself measured and timed like `time`
  tasks       the /tasks demo: the task log lines and the client's times in one timeline
"""

import datetime
import json
import os
import re
import time
import urllib.request

from modelbench import loadtools, measure
from modelbench.measure import read
from modelbench.processes import CORES


class StepFailed(Exception):
    pass


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


class Runs:
    def __init__(self, directory, db_pid=None, siegerc=None, log=print, wrk_lua=None):
        self.directory = directory
        self.db_pid = db_pid
        self.siegerc = siegerc
        self.wrk_lua = wrk_lua
        self.log = log
        for sub in ("runs", "raw"):
            os.makedirs(os.path.join(directory, sub), exist_ok=True)

    def raw(self, run_id, suffix):
        return os.path.join(self.directory, "raw", f"{run_id}.{suffix}")

    def _recorded(self, run_id, meta, tool, body):
        """Runs body(record) and writes the record: status ok with its figures, or failed with
        the cause."""
        record = {"id": run_id, "variant": "single", "endpoint": "", **meta, "tool": tool,
                  "started": utc_now().isoformat()}
        try:
            body(record)
            record["status"] = "ok"
            self.log(f"    {summary(record)}")
        except (StepFailed, loadtools.ParseError, measure.MeasureError, OSError) as error:
            record["status"] = "failed"
            record["cause"] = str(error)
        with open(os.path.join(self.directory, "runs", f"{run_id}.json"), "w") as f:
            json.dump(record, f, indent=1)
        return record

    def _measure_tool(self, record, target, command, stdout_path, stderr_path, parse,
                      extra_raw=(), end_marker=None):
        """A load tool against target, measured; the figures are parse(sampled)'s, the sampled
        ones and the server's own counters."""
        record.update(command=" ".join(command), raw=[stdout_path, stderr_path, *extra_raw])
        # A remote server was not started for the run: its counters count from before it.
        before = {} if target.local else database_connects(target.status_documents())
        code, sampled = measure.run(command, stdout_path, stderr_path, server=target.watch(),
                                    db_pid=self.db_pid, end_marker=end_marker, log=self.log)
        name = os.path.basename(command[0])
        if code is None:
            record["note"] = (f"{name} hung after its run (JoeDog/siege#4) and was killed "
                              f"{measure.HANG_GRACE_S:.0f} s later; its summary figures were "
                              "computed from its transaction lines")
            self.log(f"    note: {record['note']}")
        elif code != 0:
            raise StepFailed(f"{name} exited with {code}: {measure.tail(stderr_path)}")
        record["figures"] = {**parse(sampled), **sampled,
                             **self._server_counters(record["id"], target, before)}

    def _server_counters(self, run_id, target, before):
        """The server's own counters after the run, from the /status of every worker, less
        those of before (database_connects before the run)."""
        documents = target.status_documents()
        if not documents:
            return {}
        with open(self.raw(run_id, "status.json"), "w") as f:
            json.dump(documents, f, indent=1)
        figures = {}
        connects = database_connects(documents)
        if connects:
            figures["server_db_connects"] = (connects["server_db_connects"] -
                                             before.get("server_db_connects", 0))
        if len(documents) > 1:
            # Requests answered by each worker (the run's plus the warm-up and these /status).
            figures["requests_by_worker"] = " / ".join(
                str(d.get("requests", {}).get("total", "?")) for d in documents)
        return figures

    def ab(self, run_id, meta, target, path, concurrency, requests, variable_length=False,
           time_limit=None):
        def body(record):
            report, errors = self.raw(run_id, "ab.txt"), self.raw(run_id, "ab.err")
            percentiles = self.raw(run_id, "ab-percentiles.csv")
            command = loadtools.ab_command(target.url(path), concurrency, requests, percentiles,
                                           time_limit=time_limit,
                                           variable_length=variable_length)
            record.update(concurrency=concurrency, requests=requests)
            self._measure_tool(record, target, command, report, errors,
                               lambda _: loadtools.parse_ab(read(report), read(percentiles)),
                               extra_raw=[percentiles])
        return self._recorded(run_id, {"endpoint": path, **meta}, "ab", body)

    def wrk(self, run_id, meta, target, path, concurrency, duration_s):
        def body(record):
            report, errors = self.raw(run_id, "wrk.txt"), self.raw(run_id, "wrk.err")
            command = loadtools.wrk_command(target.url(path), self.wrk_lua, concurrency,
                                            duration_s, CORES)
            record.update(concurrency=concurrency, duration=f"{duration_s:g}s")
            self._measure_tool(record, target, command, report, errors,
                               lambda _: loadtools.parse_wrk(read(report)))
        return self._recorded(run_id, {"endpoint": path, **meta}, "wrk", body)

    def siege(self, run_id, meta, target, path, concurrency, delay, duration):
        def body(record):
            lines, summary_path = self.raw(run_id, "siege.txt"), self.raw(run_id, "siege.err")
            command = loadtools.siege_command(target.url(path), self.siegerc, concurrency, delay,
                                              duration)
            record.update(concurrency=concurrency, duration=duration)
            self._measure_tool(
                record, target, command, lines, summary_path,
                lambda sampled: loadtools.parse_siege(read(lines), read(summary_path),
                                                      sampled["wall_s"]),
                end_marker=loadtools.SIEGE_DONE)
        return self._recorded(run_id, {"endpoint": path, **meta}, "siege", body)

    def standalone(self, run_id, meta, command, iterations, timeout_s):
        """A standalone loop of `iterations`, timed from outside as `time` does (real from its
        start to its exit, user and sys from its rusage), whatever the program prints."""
        def body(record):
            report, errors = self.raw(run_id, "standalone.txt"), self.raw(run_id, "standalone.err")
            record.update(command=" ".join(command), raw=[report, errors])
            code, sampled = measure.run(command, report, errors, db_pid=self.db_pid,
                                        child_is_server=True, timeout_s=timeout_s, log=self.log)
            if code != 0:
                raise StepFailed(f"{os.path.basename(command[0])} exited with {code}: "
                                 f"{measure.tail(errors)}")
            done = loadtools.standalone_iterations(read(report))
            if done != iterations:
                raise StepFailed(f"{os.path.basename(command[0])} ran {done} iterations, not "
                                 f"{iterations}")
            record["figures"] = {"iterations": iterations,
                                 "iterations_per_s": round(iterations / sampled["real_s"], 1),
                                 **sampled}
        return self._recorded(run_id, meta, "standalone", body)

    def failed(self, run_id, meta, tool, cause):
        """A run that could not take place (its server did not start, its warm-up failed)."""
        def body(record):
            raise StepFailed(cause)
        return self._recorded(run_id, meta, tool, body)

    def tasks(self, run_id, meta, target, delay_ms):
        def body(record):
            tasks_demo(record, target, delay_ms, self.raw(run_id, "tasks-timeline.txt"))
        return self._recorded(run_id, {"endpoint": "/tasks", **meta}, "tasks", body)


def database_connects(documents):
    """{server_db_connects: the sum over the workers} of /status documents ({} without any)."""
    connects = [d["database"]["connects"] for d in documents if "database" in d]
    return {"server_db_connects": sum(connects)} if connects else {}


TASK_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) tasks #(\d+): (.*)$")
DAY_MS = 24 * 3600 * 1000


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


def tasks_demo(record, target, delay_ms, timeline_path):
    """GET /tasks?delay_ms= once; the server's task lines (its stderr) and the client's send and
    receive times in one timeline, and in which order the three tasks ran."""
    url = target.url(f"/tasks?delay_ms={delay_ms}")
    server_log = target.process.stderr_path
    record.update(command=f"GET {url}", raw=[timeline_path, server_log])
    sent = utc_now()
    try:
        with urllib.request.urlopen(url, timeout=delay_ms / 1000 + 30) as response:
            body = response.read().decode("utf-8", "replace")
            status = response.status
    except OSError as error:
        raise StepFailed(f"GET {url} failed: {error}")
    received = utc_now()
    if status != 200:
        raise StepFailed(f"GET {url} answered {status}")
    # Wait for task two, which the async model logs after the response.
    deadline = time.monotonic() + delay_ms / 1000 + 10
    while time.monotonic() < deadline:
        lines = task_lines(server_log)
        if any("two" in task for _, _, task in lines):
            break
        time.sleep(0.05)
    else:
        raise StepFailed(f"no 'task two' line in {server_log} within {delay_ms + 10000} ms")

    # Times of day in UTC, measured from the moment the request was sent (wraps at midnight).
    origin = ms_of_day(sent)

    def offset(ms):
        ahead = (ms - origin) % DAY_MS
        return ahead - DAY_MS if ahead > DAY_MS // 2 else ahead

    events = [(offset(ms), f"{clock(ms)}  server  tasks #{demo}: {task}")
              for ms, demo, task in lines]
    events.append((0, f"{clock(origin)}  client  request sent: GET {url}"))
    response_ms = (received - sent).total_seconds() * 1000
    events.append((offset(ms_of_day(received)),
                   f"{clock(ms_of_day(received))}  client  response received "
                   f"({response_ms:.0f} ms)"))
    events.sort(key=lambda e: e[0])
    timeline = [text for _, text in events]
    with open(timeline_path, "w") as f:
        f.write("\n".join(timeline) + "\n\nresponse body:\n" + body)

    def task_at(name):
        found = [offset(ms) for ms, _, task in lines if name in task]
        if not found:
            raise StepFailed(f"no '{name}' line in {server_log}")
        return found[0]

    one, two, three = task_at("one"), task_at("two"), task_at("three")
    received_at = offset(ms_of_day(received))
    record["timeline"] = timeline
    record["body"] = body
    record["figures"] = {
        "delay_ms": delay_ms,
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
