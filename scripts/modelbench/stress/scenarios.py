"""The stress scenarios (overload, slow clients, database faults, leaks, memory, slowhttptest),
each against one server it starts: it records its loads through the engine, checks what must
hold, has the engine stop the server (a clean stop is part of every verdict): an Outcome."""

import collections
import concurrent.futures
import json
import math
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field

from modelbench import systems
from modelbench.engine import loads, machine, processes
from modelbench.engine.engine import Engine, Held
from modelbench.engine.measure import read
from modelbench.engine.plan import Load
from modelbench.engine.server import TargetError
from modelbench.report.tables import fmt
from modelbench.stress import hostile
from modelbench.stress.outcome import Outcome, mib

# The warm-up before the baseline (docs/robustness.md): what a load leaves open, the async pool's
# connections opened on first use, is open before it. Not the engine's warm-up (load until the
# rate is steady): no check here needs it.
WARM_UP_REQUESTS = 20
WARM_UP_DB = "?delay_ms=200"
SETTLE_S = 15.0
FAIL_FAST_S = 1.0
RECOVERY_LIMIT_S = 2.0
PROBE_LIMIT_MS = 100.0
RSS_GROWTH_LIMIT = 0.10
# ... or this much, whichever is more: glibc's arenas move RSS between runs (measured:
# docs/robustness.md, leaks).
RSS_GROWTH_FLOOR_KIB = 2048


@dataclass
class Context:
    """The engine, how large the runs are, and the scenario's server (made by stress.stress())."""
    engine: Engine
    sizes: dict
    fault_db: object
    held: Held = field(default_factory=Held)

    @property
    def raw(self):
        return os.path.join(self.engine.directory, "raw")

    def start(self, out, args, path="/html" + WARM_UP_DB):
        """A fresh server of out's model with args (logs raw/SCENARIO-MODEL.server.*; scenario()
        stops it), warmed up on path: its target, and its snapshot before any load."""
        self.held = self.engine.start(systems.Server(systems.get(out.model), out.model),
                                      f"{out.scenario}-{out.model}", args)
        target = self.held.target
        if target is None:
            raise TargetError(self.held.cause)
        replies = target.get_all(path, WARM_UP_REQUESTS)
        bad = [r.status or r.error for r in replies if r.status != 200]
        if bad:
            raise TargetError(f"warm-up GET {path} failed: {bad[0]}")
        return target, target.snapshot()


@dataclass
class FaultDatabase:
    """The MariaDB instance the fault scenario may stop and kill (scripts/db.sh, own DB_DIR)."""
    db_sh: str
    directory: str
    port: int
    log_path: str

    def run(self, action):
        """scripts/db.sh ACTION on this instance; the seconds it took."""
        started = time.monotonic()
        env = {**os.environ, "DB_DIR": self.directory, "DB_PORT": str(self.port)}
        with open(self.log_path, "a") as log:
            print(f"== db.sh {action}", file=log, flush=True)
            code = subprocess.call(["bash", self.db_sh, action], env=env, stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if code != 0:
            raise TargetError(f"scripts/db.sh {action} on {self.directory} failed, see "
                              f"{self.log_path}")
        return time.monotonic() - started

    def kill(self):
        """SIGKILL to mariadbd; the seconds until it was gone."""
        started = time.monotonic()
        pid = int(read(os.path.join(self.directory, "mysqld.pid")))
        os.kill(pid, signal.SIGKILL)
        processes.wait_gone(pid)
        return time.monotonic() - started


def load_run(ctx, target, step_id, load, label=None):
    """The record of a recorded run of load; label (default load.text()) its progress line."""
    print(f"    {label or load.text()}", flush=True)
    return ctx.engine.record(step_id, {"experiment": "stress", "server": target.name}, target,
                             load)


def load_run_in_background(ctx, target, step_id, load, label):
    """load_run in a thread, while the scenario does other things: a future of its record."""
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = executor.submit(load_run, ctx, target, step_id, load, label)
    executor.shutdown(wait=False)
    return future


def max_workers(target):
    """The blocking server's worker cap, from its /status."""
    reply = target.get("/status")
    if reply.status != 200:
        raise TargetError(f"GET /status: {reply.status or reply.error}")
    return json.loads(reply.body)["blocking"]["max_workers"]


def rounds(target, connections):
    """(at once, rounds): the async server takes every connection at once; the blocking one
    serves max-workers of them, the rest wait in the listen queue, then get their own --timeout."""
    at_once = connections if target.name == "async" else max_workers(target)
    return at_once, math.ceil(connections / at_once)


def record_load(out, label, record):
    """Figures of one ab or siege run; the check that every request got a 2xx response."""
    f = record.get("figures", {})
    if record.get("status") != "ok":
        out.check(f"{label}: the load tool ran", False, record.get("cause", "no record"))
        return
    out.figure(f"{label}: requests, failed, non-2xx",
               f"{fmt(f['complete'], 0)}, {f['failed']}, {f['non2xx']}")
    out.figure(f"{label}: requests/s; p99, max ms",
               f"{fmt(f['requests_per_s'], 1)}; {fmt(f['p99_ms'], 0)}, {fmt(f['max_ms'], 0)}")
    out.figure(f"{label}: peak threads; peak RSS MiB",
               f"{f['server_peak_threads']}; {f['server_peak_rss_mib']}")
    out.check(f"{label}: no failed and no non-2xx request",
              f["failed"] == 0 and f["non2xx"] == 0 and f["complete"] > 0,
              f"{f['failed']} failed, {f['non2xx']} non-2xx of {f['complete']}")


def settle(target, before):
    """(snapshot, seconds until fds and threads are back to before's; None past SETTLE_S)."""
    started = time.monotonic()
    while True:
        now = target.snapshot()
        if now["fds"] <= before["fds"] and now["threads"] <= before["threads"]:
            return now, time.monotonic() - started
        if time.monotonic() - started > SETTLE_S:
            return now, None
        time.sleep(0.1)


def record_settle(out, label, target, before):
    """Descriptors and threads after a load against their pre-test counts."""
    after, seconds = settle(target, before)
    out.figure(f"{label}: open fds before → after", f"{before['fds']} → {after['fds']}")
    out.figure(f"{label}: threads before → after", f"{before['threads']} → {after['threads']}")
    out.figure(f"{label}: RSS MiB before → after (peak)", f"{mib(before['rss_kib'])} → "
               f"{mib(after['rss_kib'])} ({mib(after['peak_rss_kib'])})")
    out.check(f"{label}: fds and threads back to their pre-test counts", seconds is not None,
              f"back after {seconds:.1f} s" if seconds is not None else
              f"still {after['fds']} fds, {after['threads']} threads after {SETTLE_S:.0f} s")
    return after


def record_exit(out, held):
    """/hello still answers, then the engine's stop: SIGTERM, exit status 0, no process left."""
    hello = held.target.get("/hello")
    out.check("answers /hello afterwards", hello.status == 200 and
              hello.body == b"Hello World! 10\n", hello.error or f"status {hello.status}")
    held.stack.close()
    out.check("ran throughout and exits 0 on SIGTERM", not held.stop_failures,
              "; ".join(held.stop_failures))


def scenario(name):
    """The body (it starts its server with ctx.start), then record_exit; a TargetError (the server
    died, a tool failed) is a failed check, not the end of the whole stress run."""
    def wrap(body):
        def run(ctx, model):
            out = Outcome(name, model)
            try:
                body(ctx, model, out)
                record_exit(out, ctx.held)
            except TargetError as error:
                out.check("the scenario ran to its end", False, str(error))
            finally:
                ctx.held.stack.close()  # its server, if record_exit did not stop it
            return out
        run.scenario = name
        return run
    return wrap


# The overload runs' listen queue, both servers: room for every client ab -c 1000 has waiting
# (with Apache's 511, ab counted failed requests: docs/robustness.md).
OVERLOAD_BACKLOG = 1024


@scenario("overload")
def overload(ctx, model, out):
    s = ctx.sizes
    target, before = ctx.start(out, ["--backlog", str(OVERLOAD_BACKLOG)])
    out.figure("server flags", f"--backlog {OVERLOAD_BACKLOG}")
    ab = Load("ab", "/html", s["overload_c"], n=s["overload_n"])
    record = load_run(ctx, target, f"overload-{model}-ab", ab)
    record_load(out, ab.text(), record)
    if model == "blocking" and record.get("status") == "ok":
        peak = record["figures"]["server_peak_threads"]
        cap = max_workers(target)
        out.check(f"{ab.text()}: queued at the worker cap (main, acceptor and --max-workers "
                  "threads)", peak <= 2 + cap, f"peak {peak} threads, cap {cap} workers")
    record_settle(out, ab.text(), target, before)
    machine.wait_for_ports(0)
    siege = Load("siege", "/json", s["siege_c"], seconds=s["siege_s"])
    record_load(out, siege.text(), load_run(ctx, target, f"overload-{model}-siege", siege))
    record_settle(out, siege.text(), target, before)


def key_values(text):
    lines = (line.partition("=") for line in text.splitlines())
    return {key.strip(): int(value) if value.strip().isdigit() else float(value)
            for key, equals, value in lines if equals}


@scenario("slow-clients")
def slow_clients(ctx, model, out):
    timeout, connections = ctx.sizes["header_timeout_s"], ctx.sizes["slow_connections"]
    target, before = ctx.start(out, ["--timeout", str(timeout)], "/hello")
    at_once, round_count = rounds(target, connections)
    command = [ctx.engine.checkout.binary("slow_clients"), "--port", str(target.port),
               "--connections", str(connections), "--duration", str(round_count * timeout + 15)]
    print(f"    {os.path.basename(command[0])} {' '.join(command[1:])} against --timeout "
          f"{timeout}", flush=True)
    sampler = processes.PeakSampler(lambda: processes.snapshot(target.pid))
    result = subprocess.run(command, capture_output=True, text=True)
    peak = sampler.stop()
    with open(os.path.join(ctx.raw, f"slow-clients-{model}.txt"), "w") as f:
        f.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise TargetError(f"slow_clients exited with {result.returncode}: {result.stderr[-300:]}")
    v = key_values(result.stdout)
    closed = v["closed_by_server"]
    out.figure("slow connections: opened, closed by the server", f"{v['opened']}, {closed}")
    out.figure("closed at s: first, last", f"{v['first_close_s']:.1f}, {v['last_close_s']:.1f}")
    out.figure("probes meanwhile: answered, failed, unanswered",
               f"{v['probes_answered']}, {v['probe_failures']}, {v['probes_unanswered']}")
    out.figure("probe latency ms: p50, p99, max",
               f"{v['probe_p50_ms']:.1f}, {v['probe_p99_ms']:.1f}, {v['probe_max_ms']:.1f}")
    out.figure("peak threads, peak fds", f"{peak['threads']}, {peak['fds']}")
    out.check("every slow connection closed by the server", closed == connections,
              f"{closed} of {connections}")
    limit = round_count * timeout + 2
    out.check(f"closed once --timeout {timeout} s passed, not before",
              closed > 0 and v["first_close_s"] >= timeout - 0.5 and v["last_close_s"] <= limit,
              f"{v['first_close_s']:.1f} to {v['last_close_s']:.1f} s; by {limit} s in "
              f"{round_count} round(s) of at most {at_once}")
    if model == "async":
        out.check(f"other clients answered under {PROBE_LIMIT_MS:.0f} ms meanwhile",
                  v["probes_answered"] > 0 and v["probe_max_ms"] < PROBE_LIMIT_MS and
                  v["probe_failures"] == v["probes_unanswered"] == 0,
                  f"max {v['probe_max_ms']:.1f} ms, {v['probe_failures']} failed, "
                  f"{v['probes_unanswered']} unanswered")
    record_settle(out, "after the slow clients", target, before)


ACCESS_LOG_STATUS = re.compile(r'" (\d{3}) (?:\d+|-)$', re.MULTILINE)


def statuses_in(access_log):
    return collections.Counter(map(int, ACCESS_LOG_STATUS.findall(read(access_log))))


def describe(counter):
    return ", ".join(f"{status}: {fmt(count, 0)}" for status, count in sorted(counter.items()))


def database_fault(ctx, target, out, fault, reference, access_log):
    """One outage during ab on /json: the database stopped or SIGKILLed, then started again."""
    s = ctx.sizes
    seen_before = statuses_in(access_log)
    what = "stopped" if fault == "stop" else "SIGKILLed"
    # ab runs on for a while after the database is back, with time for it to restart (a few
    # tenths of a second here; if it takes longer, the probes still time the recovery).
    duration = s["fault_up_s"] + s["fault_down_s"] + s["fault_restart_s"] + s["fault_after_s"]
    load = Load("ab", "/json", 20, n=1000000, seconds=duration, variable_length=True)
    ab = load_run_in_background(ctx, target, f"db-faults-{target.name}-{fault}", load,
                                f"{load.text()}, the database {what} after {s['fault_up_s']} s")
    time.sleep(s["fault_up_s"])
    gone_s = ctx.fault_db.run("stop") if fault == "stop" else ctx.fault_db.kill()
    down_since = time.monotonic()
    outage = []
    while time.monotonic() - down_since < s["fault_down_s"]:
        outage.append(target.get("/json", timeout=5))
        time.sleep(0.1)
    start_s = ctx.fault_db.run("start")
    up_at = time.monotonic()
    recovery_s = None
    while time.monotonic() - up_at < 10:
        reply = target.get("/json")
        if reply.status == 200 and reply.body == reference:
            recovery_s = time.monotonic() - up_at
            break
        time.sleep(0.02)
    record = ab.result()
    statuses = statuses_in(access_log) - seen_before
    label = f"mariadbd {what} during ab -c 20 /json"
    f = record.get("figures", {})
    if record.get("status") == "ok":
        out.figure(f"{label}: requests, failed, non-2xx",
                   f"{fmt(f['complete'], 0)}, {f['failed']}, {f['non2xx']}")
    else:
        out.check(f"{label}: ab ran", False, record.get("cause", ""))
    out.figure(f"{label}: responses by status", describe(statuses))
    out.figure(f"{label}: database gone in, restarted in (s)", f"{gone_s:.1f}, {start_s:.1f}")
    slowest = max((r.seconds for r in outage), default=0) * 1000
    out.figure(f"{label}: probes while down, slowest ms", f"{len(outage)}, {slowest:.0f}")
    out.figure(f"{label}: right answers again after (s)",
               f"{recovery_s:.2f}" if recovery_s is not None else "not within 10 s")
    out.check(f"{label}: no failed request, only 200 and 503",
              record.get("status") == "ok" and f["failed"] == 0 and
              set(statuses) <= {200, 503} and statuses[503] > 0,
              f"{f.get('failed', '?')} failed; {describe(statuses)}")
    fast = [r for r in outage if r.status == 503 and r.headers.get("retry-after") and
            r.seconds < FAIL_FAST_S]
    out.check(f"{label}: 503 with Retry-After within {FAIL_FAST_S:.0f} s while down",
              outage and len(fast) == len(outage),
              f"{len(fast)} of {len(outage)} probes; slowest {slowest:.0f} ms")
    out.check(f"{label}: right answers within {RECOVERY_LIMIT_S:.0f} s of the database's "
              "return, no restart",
              recovery_s is not None and recovery_s <= RECOVERY_LIMIT_S and target.running(),
              f"{recovery_s:.2f} s" if recovery_s is not None else "no right answer in 10 s")


def slow_queries(ctx, target, out):
    """Queries past --db-timeout: each 504 at the timeout, its connection free again at once (the
    async pool has as many connections as slow requests)."""
    timeout, count = ctx.sizes["db_timeout_s"], ctx.sizes["slow_queries"]
    path = f"/json?delay_ms={timeout * 1000 + 3000}"
    replies = target.get_all(path, count)
    then = target.get("/json")
    status = target.get("/status")
    label = f"{count} × {path} with --db-timeout {timeout}"
    times = [r.seconds for r in replies]
    out.figure(f"{label}: statuses", describe(collections.Counter(r.status or 0 for r in replies)))
    out.figure(f"{label}: answered after s, first–last", f"{min(times):.2f}–{max(times):.2f}")
    out.figure("/json right after: status, ms", f"{then.status}, {then.seconds * 1000:.0f}")
    out.check(f"{label}: 504 at the timeout",
              all(r.status == 504 and timeout - 0.05 <= r.seconds < timeout + 1 for r in replies),
              f"statuses {[r.status for r in replies]}, {min(times):.2f}–{max(times):.2f} s")
    out.check("their connections are free: the next /json answers 200 at once",
              then.status == 200 and then.seconds < FAIL_FAST_S,
              f"{then.status} after {then.seconds * 1000:.0f} ms")
    if status.status == 200:
        document = json.loads(status.body)
        out.figure("database timeouts counted (/status)", document["database"]["timeouts"])
        if target.name == "async":
            pool = document["async"]["pool"]
            out.figure("pool after: open, busy, queued",
                       f"{pool['open']}, {pool['busy']}, {pool['queued']}")


@scenario("db-faults")
def db_faults(ctx, model, out):
    s, db = ctx.sizes, ctx.fault_db
    db.run("start")
    access_log = os.path.join(ctx.raw, f"db-faults-{model}.access.log")
    args = ["--db-host", "127.0.0.1", "--db-port", str(db.port), "--db-connect-timeout", "1",
            "--db-timeout", str(s["db_timeout_s"]), "--access-log", access_log]
    if model == "async":
        args += ["--db-pool", str(s["slow_queries"])]
    target, before = ctx.start(out, args, "/json" + WARM_UP_DB)
    pid, reference = target.pid, target.get("/json").body
    for fault in ("stop", "kill"):
        database_fault(ctx, target, out, fault, reference, access_log)
        machine.wait_for_ports(0)
    slow_queries(ctx, target, out)
    record_settle(out, "after the faults", target, before)
    out.check("the same server process throughout", target.running() and target.pid == pid)


@scenario("leaks")
def leaks(ctx, model, out):
    s = ctx.sizes
    target, before = ctx.start(out, [])
    ab = Load("ab", "/html", s["leak_c"], n=s["leak_n"])
    out.figure("each run", ab.text())
    rss = []
    for run in (0, 1, 2, 3):
        record = load_run(ctx, target, f"leaks-{model}-{run}", ab, f"run {run}: {ab.text()}")
        record_load(out, f"run {run}", record)
        rss.append(record_settle(out, f"run {run}", target, before)["rss_kib"])
        machine.wait_for_ports(0)
    # A leak grows with every run: runs 1 and 3 compared, not run 0 (it brings glibc's arenas and
    # the cached thread stacks to their steady size) nor run 2 (the arenas may peak there).
    growth = rss[3] / rss[1] - 1
    allowed_kib = max(RSS_GROWTH_LIMIT * rss[1], RSS_GROWTH_FLOOR_KIB)
    out.check(f"RSS after run 3 within {RSS_GROWTH_LIMIT:.0%} (at least "
              f"{mib(RSS_GROWTH_FLOOR_KIB)} MiB) of run 1's", rss[3] - rss[1] <= allowed_kib,
              f"{', '.join(mib(k) for k in rss)} MiB after runs 0 to 3: {growth:+.1%}")


# memory: ab's concurrency, and when the hostile connections start after it began.
MEMORY_AB_C = 20
HOSTILE_START_S = 1.0
MEMORY_GROWTH_LIMIT_KIB = 8 * 1024
# Past this growth the check has failed anyway: the hostile connections are stopped so that a
# server without a cap cannot take the machine's memory.
MEMORY_GUARD_KIB = 512 * 1024


def how_they_ended(results):
    """'400 ×34, reset ×2' for hostile connection results."""
    ends = collections.Counter(str(r.status) if r.end == hostile.ANSWERED else r.end
                               for r in results)
    return ", ".join(f"{end} ×{count}" for end, count in sorted(ends.items()))


@scenario("memory")
def memory(ctx, model, out):
    s = ctx.sizes
    target, before = ctx.start(out, [])
    seconds, count, size = s["memory_ab_s"], s["hostile_connections"], s["hostile_mib"]
    load = Load("ab", "/html", MEMORY_AB_C, n=1000000, seconds=seconds)
    label = f"{load.text()} beside {count} connections that wait"
    with hostile.waiting_connections((target.host, target.port), count):
        record = load_run(ctx, target, f"memory-{model}-baseline", load, label)
    record_load(out, label, record)
    baseline_kib = target.snapshot()["peak_rss_kib"]
    settle(target, before)
    machine.wait_for_ports(0)
    label = f"{load.text()} beside {count} hostile connections"
    run = load_run_in_background(ctx, target, f"memory-{model}-hostile", load, label)
    time.sleep(HOSTILE_START_S)
    print(f"    {count} connections sending up to {size} MiB each of "
          f"{', '.join(hostile.OPENINGS)} bytes", flush=True)

    def guard():
        now = processes.snapshot(target.pid)
        return now is not None and now["rss_kib"] > baseline_kib + MEMORY_GUARD_KIB

    began = time.monotonic()
    results = hostile.send((target.host, target.port), count, size * 1024 * 1024,
                           s["hostile_time_limit_s"], guard)
    hostile_s = time.monotonic() - began
    record_load(out, label, run.result())
    # Once the connections are gone: what they had sent into the socket buffers was read too.
    peak_kib = record_settle(out, "after the hostile connections", target, before)["peak_rss_kib"]
    for kind in hostile.OPENINGS:
        out.figure(f"hostile connections, endless {kind}: how they ended",
                   how_they_ended([r for r in results if r.kind == kind]))
    sent = [r.bytes_sent for r in results]
    out.figure("hostile bytes sent: all connections MiB; most on one KiB; seconds",
               f"{fmt(sum(sent) / 2**20, 1)}; {fmt(max(sent) / 1024, 0)}; {fmt(hostile_s, 1)}")
    out.figure("peak RSS MiB: baseline → with the hostile connections",
               f"{mib(baseline_kib)} → {mib(peak_kib)}")
    stopped = sum(1 for r in results if r.end == hostile.STOPPED)
    out.check(f"peak RSS within {mib(MEMORY_GROWTH_LIMIT_KIB)} MiB of the baseline",
              peak_kib - baseline_kib <= MEMORY_GROWTH_LIMIT_KIB,
              f"{(peak_kib - baseline_kib) / 1024:+.1f} MiB" +
              (f"; {stopped} connections stopped at +{mib(MEMORY_GUARD_KIB)} MiB" if stopped
               else ""))
    rejected = [r for r in results if r.end == hostile.RESET or
                (r.end == hostile.ANSWERED and 400 <= r.status < 500)]
    out.check("every hostile connection closed with a 4xx or a reset",
              len(rejected) == len(results),
              f"{len(rejected)} of {len(results)}: {how_they_ended(results)}")


# slowhttptest: our probe and slowhttptest's own may each hold a connection of their own while
# the server is counted as having let go of the attack's.
RELEASE_SLACK = 2
PROBE_INTERVAL_S = 0.25


def slow_attack(ctx, target, out, mode, connections, limit_s, before):
    """One slowhttptest mode: its figures, when the server let go of the connections (descriptors
    and threads back to before), and ordinary requests meanwhile."""
    path = "/html" if mode == "slow read" else "/hello"
    prefix = os.path.join(ctx.raw, f"slowhttptest-{target.name}-{mode.replace(' ', '-')}")
    length_s = math.ceil(limit_s) + 3
    command = loads.slowhttptest.command(mode, target.url(path), connections, length_s, prefix)
    print(f"    {mode}: slowhttptest -c {connections} -l {length_s} {path}", flush=True)
    # GET /hello on a new connection every PROBE_INTERVAL_S; append gives the sampler no peaks.
    replies = []
    prober = processes.PeakSampler(lambda: replies.append(target.get("/hello", limit_s + 5)),
                                   PROBE_INTERVAL_S)
    started = time.monotonic()
    busy_until = None
    peak = {"fds": 0, "threads": 0}

    def busy(now):
        return any(now[key] > before[key] + RELEASE_SLACK for key in ("fds", "threads"))

    with open(prefix + ".out", "wb") as output:
        tool = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=ctx.raw)
        try:
            while tool.poll() is None and time.monotonic() - started < length_s + 10:
                now = target.snapshot()
                peak = {key: max(value, now[key]) for key, value in peak.items()}
                if busy(now):
                    busy_until = time.monotonic() - started
                time.sleep(0.1)
        finally:
            tool.kill()  # no signal once it has ended
            code = tool.wait()
    prober.stop()
    try:
        f = loads.slowhttptest.parse(read(prefix + ".csv"), read(prefix + ".out"))
    except (OSError, loads.ParseError) as error:
        out.check(f"{mode}: slowhttptest ran", False, f"exit status {code}: {error}")
        return
    out.figure(f"{mode}: slowhttptest: most connected at once; s its probe found no service; "
               "ran s; its end",
               f"{f['peak_connected']}; {f['unavailable_s']}; {f['seconds']}; {f['exit_status']}")
    out.figure(f"{mode}: peak threads, peak fds of the server", f"{peak['threads']}, {peak['fds']}")
    held = busy_until is not None
    released = held and not busy(target.snapshot())
    out.figure(f"{mode}: the server let go of them after s",
               f"{busy_until:.1f}" if released else "–")
    out.check(f"{mode}: the server held the slow connections, then let go of every one "
              "within its rounds of --timeout, + 2 s", released and busy_until <= limit_s,
              (f"after {busy_until:.1f} s" if released else "it never held them" if not held
               else "still held at the end of the test") + f"; limit {limit_s:.0f} s")
    answered = [r for r in replies if r.status == 200]
    slowest_ms = max((r.seconds for r in answered), default=0) * 1000
    out.figure(f"{mode}: other requests meanwhile: answered, failed; slowest ms",
               f"{len(answered)}, {len(replies) - len(answered)}; {fmt(slowest_ms, 1)}")
    probe_limit_ms = PROBE_LIMIT_MS if target.name == "async" else limit_s * 1000
    out.check(f"{mode}: other requests answered meanwhile (async: under "
              f"{PROBE_LIMIT_MS:.0f} ms; blocking: within its rounds)",
              answered and len(answered) == len(replies) and slowest_ms <= probe_limit_ms,
              f"{len(replies) - len(answered)} of {len(replies)} failed; slowest "
              f"{fmt(slowest_ms, 0)} ms, limit {fmt(probe_limit_ms, 0)} ms")


@scenario("slowhttptest")
def slowhttptest(ctx, model, out):
    timeout, connections = ctx.sizes["header_timeout_s"], ctx.sizes["slow_connections"]
    # The idle time between requests bounded like the request itself: a slow reader's response
    # may fit in the socket buffers, and then the server waits for its next request.
    flags = ["--timeout", str(timeout), "--keepalive-timeout", str(timeout)]
    target, before = ctx.start(out, flags)
    limit_s = rounds(target, connections)[1] * timeout + 2
    out.figure("server flags", " ".join(flags))
    for mode in loads.slowhttptest.MODES:
        slow_attack(ctx, target, out, mode, connections, limit_s, before)
        machine.wait_for_ports(0)
    record_settle(out, "after slowhttptest", target, before)


ALL = [overload, slow_clients, db_faults, leaks, memory, slowhttptest]
