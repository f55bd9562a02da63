"""Measured runs recorded in a results directory: every tool's output in raw/ID.*, and a record
of each run in runs/ID.json (what ran, its figures, or why it failed), with a summary line on the
terminal. Every report is built from these records. The tools of a Load (engine.plan):

  ab          ab against a target, the server and mariadbd sampled meanwhile
  wrk         the same with wrk (keep-alive, a thread per core, for a fixed time)
  siege       the same with siege -v (its transaction lines give the percentiles)
  standalone  a standalone loop (a model's --standalone, a real peer's script), the process
              itself measured and timed like `time`
  tasks       the /tasks demo: the task log lines and the client's times in one timeline
  hold        idle keep-alive connections held open, the server's memory then
"""

import datetime
import json
import os
import re
import time
import urllib.request

from modelbench.engine import httpclient, measure, tools
from modelbench.engine.measure import read
from modelbench.engine.processes import CORES

STANDALONE_TIMEOUT_S = 1200


class StepFailed(Exception):
    pass


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


class Recorder:
    """Runs loads and records them in a results directory (runs/, raw/). db_pid: mariadbd, whose
    CPU every run samples."""

    def __init__(self, directory, checkout, db_pid=None, log=print):
        self.directory = directory
        self.checkout = checkout
        self.db_pid = db_pid
        self.log = log
        for sub in ("runs", "raw"):
            os.makedirs(os.path.join(directory, sub), exist_ok=True)

    def raw(self, run_id, suffix):
        return os.path.join(self.directory, "raw", f"{run_id}.{suffix}")

    def record(self, run_id, meta, load, body):
        """Runs body(record) and writes the record: status ok with its figures, or failed with
        the cause."""
        record = {"id": run_id, "variant": "single", "endpoint": load.path, **meta,
                  "tool": load.tool, "concurrency": load.c, "started": utc_now().isoformat()}
        try:
            body(record)
            record["status"] = "ok"
            self.log(f"    {summary(record)}")
        except (StepFailed, tools.ParseError, measure.MeasureError, OSError) as error:
            record.update(status="failed", cause=str(error))
        with open(os.path.join(self.directory, "runs", f"{run_id}.json"), "w") as f:
            json.dump(record, f, indent=1)
        return record

    def failed(self, run_id, meta, load, cause):
        """A run that could not take place (its server did not start, its warm-up failed)."""
        def body(record):
            raise StepFailed(cause)
        return self.record(run_id, meta, load, body)

    def measure(self, run_id, meta, target, load, requests=None, time_limit=None,
                server_command=()):
        """One measured run of load against target (None for a standalone loop, whose command
        is server_command); requests and time_limit: ab's -n and -t when they are not the
        load's own. Its record."""
        bodies = {
            "standalone": lambda record: self._standalone(record, server_command, load.n),
            "tasks": lambda record: tasks_demo(record, target, load.delay_ms,
                                               self.raw(run_id, "tasks-timeline.txt")),
            "hold": lambda record: hold(record, target, load.path, load.c)}
        body = bodies.get(load.tool) or (lambda record: self._load(
            record, run_id, target, load, requests or load.n, time_limit or load.seconds))
        return self.record(run_id, meta, load, body)

    def _load(self, record, run_id, target, load, requests, time_limit):
        url = target.url(load.path)
        stdout, stderr = self.raw(run_id, f"{load.tool}.txt"), self.raw(run_id, f"{load.tool}.err")
        raw, end_marker = [stdout, stderr], None
        if load.tool == "ab":
            percentiles = self.raw(run_id, "ab-percentiles.csv")
            command = tools.ab_command(url, load.c, requests, percentiles, keepalive=load.keepalive,
                                       time_limit=time_limit, variable_length=load.variable_length)
            record["requests"] = requests
            raw.append(percentiles)
        elif load.tool == "wrk":
            command = tools.wrk_command(url, self.checkout.script("wrk-summary.lua"), load.c,
                                        load.seconds, CORES)
        else:
            command = tools.siege_command(url, self.checkout.script("siegerc"), load.c,
                                          load.delay_s, f"{load.seconds:g}S")
            end_marker = tools.SIEGE_DONE
        record.update(seconds=load.seconds, cut=load.cut, command=" ".join(command), raw=raw)
        # A remote server was not started for the run: its counters count from before it.
        before = {} if target.local else database_connects(target.status_documents())
        code, sampled = measure.run(command, stdout, stderr, server=target.watch(),
                                    db_pid=self.db_pid, helper_pids=target.helper_pids,
                                    end_marker=end_marker, log=self.log)
        name = os.path.basename(command[0])
        if code is None:
            record["note"] = (f"{name} hung after its run (JoeDog/siege#4) and was killed "
                              f"{measure.HANG_GRACE_S:.0f} s later; its summary figures were "
                              "computed from its transaction lines")
            self.log(f"    note: {record['note']}")
        elif code != 0:
            raise StepFailed(f"{name} exited with {code}: {measure.tail(stderr)}")
        if load.tool == "ab":
            parsed = tools.parse_ab(read(stdout), read(percentiles))
        elif load.tool == "wrk":
            parsed = tools.parse_wrk(read(stdout))
        else:
            parsed = tools.parse_siege(read(stdout), read(stderr), sampled["wall_s"])
        record["figures"] = {**parsed, **sampled, **self._server_counters(run_id, target, before)}

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

    def _standalone(self, record, command, iterations):
        """A standalone loop of `iterations`, timed from outside as `time` does (real from its
        start to its exit, user and sys from its rusage), whatever the program prints."""
        report = self.raw(record["id"], "standalone.txt")
        errors = self.raw(record["id"], "standalone.err")
        record.update(command=" ".join(command), raw=[report, errors], requests=iterations)
        code, sampled = measure.run(command, report, errors, db_pid=self.db_pid,
                                    child_is_server=True, timeout_s=STANDALONE_TIMEOUT_S,
                                    log=self.log)
        name = os.path.basename(command[0])
        if code != 0:
            raise StepFailed(f"{name} exited with {code}: {measure.tail(errors)}")
        done = tools.standalone_iterations(read(report))
        if done != iterations:
            raise StepFailed(f"{name} ran {done} iterations, not {iterations}")
        record["figures"] = {"iterations": iterations,
                             "iterations_per_s": round(iterations / sampled["real_s"], 1),
                             **sampled}


def hold(record, target, path, connections):
    """The server's memory with `connections` idle keep-alive connections, each answered one
    request for path (bench's memory runs)."""
    held = []
    record["command"] = f"{connections} × GET {path}, connections held"
    try:
        for _ in range(connections):
            status, connection = target.get_and_hold(path)
            held.append(connection)
            if status != 200:
                raise StepFailed(f"GET {path} answered {status}")
        time.sleep(0.5)
        figures = target.snapshot()
    except (httpclient.ProtocolError, OSError) as error:
        raise StepFailed(f"holding {connections} connections: {error}") from error
    finally:
        for connection in held:
            connection.close()
    record["figures"] = {"held": connections, "rss_mib": round(figures["rss_kib"] / 1024, 1),
                         "threads": figures["threads"], "fds": figures["fds"]}


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
    """(ms of the day, demo, task) of the server log's task lines."""
    matches = (TASK_LINE.match(line) for line in read(log_path).splitlines())
    return [(((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(ms), int(demo), task)
            for h, m, s, ms, demo, task in (match.groups() for match in matches if match)]


def tasks_demo(record, target, delay_ms, timeline_path):
    """GET /tasks?delay_ms= once; the server's task lines (its stderr) and the client's send and
    receive times in one timeline, and in which order the three tasks ran."""
    url = target.url(f"/tasks?delay_ms={delay_ms}")
    server_log = target.process.stderr_path
    record.update(command=f"GET {url}", raw=[timeline_path, server_log])
    sent = utc_now()
    # Times of day in UTC, measured from the moment the request was sent (wraps at midnight);
    # lines of an earlier demo on the same server come before it.
    origin = ms_of_day(sent)

    def offset(ms):
        ahead = (ms - origin) % DAY_MS
        return ahead - DAY_MS if ahead > DAY_MS // 2 else ahead
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
        lines = [line for line in task_lines(server_log) if offset(line[0]) >= 0]
        if any("two" in task for _, _, task in lines):
            break
        time.sleep(0.05)
    else:
        raise StepFailed(f"no 'task two' line in {server_log} within {delay_ms + 10000} ms")

    response_ms = (received - sent).total_seconds() * 1000
    events = sorted([(offset(ms), f"{clock(ms)}  server  tasks #{demo}: {task}")
                     for ms, demo, task in lines] +
                    [(0, f"{clock(origin)}  client  request sent: GET {url}"),
                     (offset(ms_of_day(received)), f"{clock(ms_of_day(received))}  client  "
                      f"response received ({response_ms:.0f} ms)")], key=lambda e: e[0])
    timeline = [text for _, text in events]
    with open(timeline_path, "w") as f:
        f.write("\n".join(timeline) + "\n\nresponse body:\n" + body)

    def task_at(name):
        found = [offset(ms) for ms, _, task in lines if name in task]
        if not found:
            raise StepFailed(f"no '{name}' line in {server_log}")
        return found[0]

    one, two, three = task_at("one"), task_at("two"), task_at("three")
    record.update(timeline=timeline, body=body, figures={
        "delay_ms": delay_ms, "response_ms": round(response_ms, 1),
        "task_two_after_task_one_ms": two - one,
        "task_two_after_response": int(two > offset(ms_of_day(received))),
        "task_three_before_task_two": int(three < two)})


def summary(record):
    f = record.get("figures", {})
    if record["tool"] == "standalone":
        return (f"{f['iterations']} iterations: real {f['real_s']:.3f} s, "
                f"user {f['user_s']:.3f} s, sys {f['sys_s']:.3f} s, "
                f"{f['iterations_per_s']:.1f} iterations/s")
    if "response_ms" in f:
        order = "after" if f["task_two_after_response"] else "before"
        return f"response after {f['response_ms']:.0f} ms; task two logged {order} the response"
    if record["tool"] == "hold":
        return (f"RSS {f['rss_mib']} MiB with {f['held']} connections held: {f['threads']} "
                f"threads, {f['fds']} descriptors open")
    return (f"{f['requests_per_s']:.1f} req/s, mean {f['mean_ms']:.1f} ms, "
            f"p99 {f['p99_ms']:.0f} ms, failed {f['failed']} (length {f['failed_length']}), "
            f"non-2xx {f['non2xx']}; CPU server {f.get('server_cpu_pct_core', 0):.0f} %, "
            f"mariadbd {f.get('db_cpu_pct_core', 0):.0f} % of a core")
