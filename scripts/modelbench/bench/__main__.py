#!/usr/bin/env python3
"""The measuring part of scripts/bench.sh: every server against the database's own ceiling.

  bench.py --build-dir DIR --results-dir DIR [--quick] [--repetitions 3] [--db-pid PID]
           [--max-load 1.0] [--max-wait 900] [--command TEXT]

Runs, in each repetition: the ceilings (each server's --standalone loop with --concurrency K for
K = 1 and K = cores: no HTTP), then for each server (blocking per-request, blocking persistent,
async, async one worker per core) and each endpoint (/html, /json, /hello; /hello also with -k)
ab at -c 1, -c 20 and -c 200 for a fixed time; at the end the memory scenarios (async holding
1000 idle keep-alive connections, blocking with 150 live workers). /proc gives the CPU of the
server, of mariadbd and of the whole machine over every run; ab's own CPU is its rusage.
Writes RESULTS/runs.csv (every run) and raw/ (every tool's output); bench_report.py then makes
bench.csv (medians and ratios) and report.md.
"""

import argparse
import csv
import os
import signal
import socket
import subprocess
import sys
import time
import types

import bench_report
import parsers
import procstat
import run

CORES = procstat.CORES
CONCURRENCIES = (1, 20, 200)
# The servers measured: name -> (model, flags, measure the process tree).
SERVERS = {
    "blocking-per-request": ("blocking", ["--db-connection", "per-request"], False),
    "blocking-persistent": ("blocking", ["--db-connection", "persistent"], False),
    "async": ("async", [], False),
    "async-cluster": ("async", ["--workers", "0"], True),
}
# The ceilings: each model's standalone loop (the /html queries, every row fetched, and the
# rendering; no HTTP), in the connection mode of the servers it bounds.
CEILINGS = {
    "ceiling-per-connect": ("blocking", ["--db-connection", "per-request"]),
    "ceiling-persistent": ("blocking", ["--db-connection", "persistent"]),
    "ceiling-async-loop": ("async", []),
}
# ab -t stops at the time limit or after this many requests per second of it, whichever first.
AB_REQUESTS_PER_S_LIMIT = 200000
# Idle connections of the memory scenarios.
ASYNC_IDLE_CONNECTIONS = 1000
BLOCKING_LIVE_WORKERS = 150
SERVER_START_TIMEOUT_S = 15
SERVER_STOP_TIMEOUT_S = 20
# The machine is shared: before each run, wait (at most IDLE_WAIT_S) until other processes keep
# less than IDLE_PCT of it busy; a run during which they took more than POLLUTED_PCT is measured
# again, up to MAX_ATTEMPTS times.
IDLE_PCT = 10
IDLE_WAIT_S = 60
POLLUTED_PCT = 20
MAX_ATTEMPTS = 3

RUN_COLUMNS = [
    "repetition", "kind", "server", "endpoint", "concurrency", "keepalive", "command",
    "status", "cause", "requests", "duration_s", "requests_per_s", "mean_ms", "p50_ms", "p99_ms",
    "failed", "non2xx", "server_cpu_s", "db_cpu_s", "client_cpu_s", "machine_busy_pct",
    "other_cpu_pct", "attempts", "load_1min", "rss_mib", "threads", "connections",
]


class BenchError(Exception):
    pass


def log(message):
    print(message, flush=True)


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def wait_for_quiet_machine(max_load, max_wait_s):
    """Waits until the 1-minute load average is below max_load; returns (load, waited s)."""
    started = time.monotonic()
    load = load_average()
    next_note = 0.0
    while load >= max_load:
        waited = time.monotonic() - started
        if waited >= max_wait_s:
            log(f"== load average still {load:.2f} after {waited:.0f} s: measuring anyway; "
                "other work on this machine will show in the figures (other_cpu_pct)")
            break
        if waited >= next_note:
            log(f"== waiting for a quiet machine: 1-minute load average {load:.2f}, want below "
                f"{max_load:.2f} (at most {max_wait_s - waited:.0f} s more)")
            next_note = waited + 15
        time.sleep(2)
        load = load_average()
    return load, time.monotonic() - started


def machine_busy_pct(seconds):
    """How busy the whole machine was over the next seconds, in % of all cores."""
    busy_before, total_before = procstat.machine_busy_ticks()
    time.sleep(seconds)
    busy_after, total_after = procstat.machine_busy_ticks()
    total = total_after - total_before
    return 100.0 * (busy_after - busy_before) / total if total > 0 else 0.0


def wait_for_idle_cpu():
    """Waits until other processes leave the machine nearly idle (nothing of ours runs now)."""
    started = time.monotonic()
    next_note = 0.0
    while True:
        busy = machine_busy_pct(0.3)
        waited = time.monotonic() - started
        if busy < IDLE_PCT:
            return
        if waited >= IDLE_WAIT_S:
            log(f"    other processes still keep {busy:.0f} % of the machine busy: measuring anyway")
            return
        if waited >= next_note:
            log(f"    waiting: other processes keep {busy:.0f} % of the machine busy")
            next_note = waited + 10


class Server:
    """A server process on a free port of 127.0.0.1, for the time of a `with` block."""

    def __init__(self, binary, flags, log_dir, name):
        self.command = [binary, "--listen", "127.0.0.1:0", *flags]
        self.out_path = os.path.join(log_dir, f"{name}.server.out")
        self.err_path = os.path.join(log_dir, f"{name}.server.log")
        self.process = None
        self.port = None

    def __enter__(self):
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline and self.process.poll() is None:
            text = run.read(self.out_path)
            if "listening on http://" in text:
                self.port = int(text.split("listening on http://", 1)[1].split("/")[0]
                                .rsplit(":", 1)[1])
                return self
            time.sleep(0.05)
        self.stop()
        raise BenchError(f"{' '.join(self.command)} did not get ready: "
                         f"{run.tail(self.err_path)}")

    def __exit__(self, *exc):
        self.stop()

    @property
    def pid(self):
        return self.process.pid

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(SERVER_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        if code != 0:
            log(f"    note: {self.command[0]} exited with {code} on SIGTERM "
                f"(log: {self.err_path})")


def http_get(port, path, keep_open=None):
    """GET path over a new connection (HTTP/1.1, kept alive); returns the status. With
    keep_open (a list), the connection stays open and is appended to it."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    status = read_response(connection)
    if keep_open is None:
        connection.close()
    else:
        keep_open.append(connection)
    return status


def read_response(connection):
    """Reads one response with a Content-Length body; returns its status code."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            raise BenchError("the server closed the connection before its response ended")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            raise BenchError("the server closed the connection before its response ended")
        body += chunk
    return int(lines[0].split()[1])


class Bench:
    def __init__(self, options):
        self.options = options
        self.seconds = 1.0 if options.quick else 5.0
        self.raw = os.path.join(options.results_dir, "raw")
        os.makedirs(self.raw, exist_ok=True)
        self.rows = []
        self.iterations = {}  # ceiling run key -> iterations that take about self.seconds
        self.done = 0
        self.total = self.count_steps()
        self.started = time.monotonic()

    def binary(self, model):
        return os.path.join(self.options.build_dir, "bin", f"{model}-server")

    def count_steps(self):
        per_repetition = len(CEILINGS) * len(self.ceiling_concurrencies()) + \
            len(SERVERS) * len(self.cells())
        return per_repetition * self.options.repetitions + 3  # + the memory scenarios

    @staticmethod
    def ceiling_concurrencies():
        return sorted({1, CORES})

    @staticmethod
    def cells():
        """(endpoint, concurrency, keep-alive) of every ab run on a server."""
        cells = [(path, c, False) for path in ("/html", "/json", "/hello") for c in CONCURRENCIES]
        return cells + [("/hello", c, True) for c in CONCURRENCIES]

    def progress(self, title):
        self.done += 1
        elapsed = time.monotonic() - self.started
        eta = ""
        if self.done > 1:
            eta = f", about {elapsed / (self.done - 1) * (self.total - self.done + 1):.0f} s left"
        log(f"== [{self.done}/{self.total}] {title}   ({elapsed:.0f} s elapsed{eta})")

    def record(self, row):
        row.setdefault("status", "ok")
        row["load_1min"] = load_average()
        self.rows.append(row)
        self.write_runs()

    def write_runs(self):
        with open(os.path.join(self.options.results_dir, "runs.csv"), "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=RUN_COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(self.rows)

    def measure(self, command, stdout_path, stderr_path, server_pid=None, tree=False,
                child_is_server=False):
        """run.py's measured run: (exit code, CPU figures) with mariadbd and the machine."""
        args = types.SimpleNamespace(server_pid=server_pid, server_tree=tree,
                                     db_pid=self.options.db_pid, timeout=600)
        try:
            code, figures = run.run_measured(args, command, stdout_path, stderr_path,
                                             child_is_server=child_is_server)
        except run.StepFailed as error:
            # run.py turns Ctrl-C into a failed step (after stopping the tool); here it ends the run.
            if str(error).startswith("interrupted"):
                raise KeyboardInterrupt from error
            raise BenchError(str(error)) from error
        ours = sum(figures.get(f"{who}_cpu_s", 0.0) for who in ("server", "db", "client"))
        machine_cpu_s = figures["machine_busy_pct"] / 100 * figures["wall_s"] * CORES
        figures["other_cpu_pct"] = round(
            max(0.0, machine_cpu_s - ours) / max(figures["wall_s"], 1e-9) / CORES * 100, 1)
        return code, figures

    # ---- ceilings ----------------------------------------------------------------------------

    def ceiling(self, repetition, name, k):
        model, flags = CEILINGS[name]
        key = f"{name}-k{k}"
        if key not in self.iterations:
            self.iterations[key] = self.calibrate(model, flags, k)
        n = self.iterations[key]
        command = [self.binary(model), "--standalone", str(n), "--concurrency", str(k), *flags]
        self.progress(f"repetition {repetition}: {name} K={k}: {' '.join(command[1:])}")
        stem = os.path.join(self.raw, f"r{repetition}-{key}")
        row = {"repetition": repetition, "kind": "ceiling", "server": name, "endpoint": "/html",
               "concurrency": k, "keepalive": 1 if name != "ceiling-per-connect" else 0,
               "command": " ".join(command)}
        result = self.measured_run(row, command, stem + ".txt", stem + ".err",
                                   lambda: parsers.standalone(run.read(stem + ".txt")),
                                   child_is_server=True)
        if result is None:
            return
        parsed, figures = result
        row.update(requests=parsed["iterations"], duration_s=parsed["real_s"],
                   requests_per_s=parsed["iterations_per_s"],
                   mean_ms=round(1000 * parsed["real_s"] / parsed["iterations"] * k, 4))
        row.update({key: figures.get(key) for key in
                    ("server_cpu_s", "db_cpu_s", "machine_busy_pct", "other_cpu_pct")})
        self.record(row)
        log(f"    {row['requests_per_s']:.1f} iterations/s, {row['mean_ms']:.3f} ms each; CPU per "
            f"iteration: own {self.ms_per(row, 'server_cpu_s')}, mariadbd "
            f"{self.ms_per(row, 'db_cpu_s')}; other work {row['other_cpu_pct']} % of the machine")

    def calibrate(self, model, flags, k):
        """Iterations that take about self.seconds, from a short unrecorded run."""
        n = 100 * k
        command = [self.binary(model), "--standalone", str(n), "--concurrency", str(k), *flags]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            raise BenchError(f"{' '.join(command)} failed: {result.stderr.strip()[-300:]}")
        rate = parsers.standalone(result.stdout)["iterations_per_s"]
        return max(200, int(rate * self.seconds))

    def measured_run(self, row, command, stdout_path, stderr_path, parse, **where):
        """measure() on a quiet machine: (parsed output, figures), or None when the run failed
        (recorded). Measured again while other work took more than POLLUTED_PCT of it."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            wait_for_idle_cpu()
            try:
                code, figures = self.measure(command, stdout_path, stderr_path, **where)
                if code != 0:
                    raise BenchError(f"{os.path.basename(command[0])} exited with {code}: "
                                     f"{run.tail(stderr_path)}")
                parsed = parse()
            except (BenchError, parsers.ParseError) as error:
                self.fail(row, str(error))
                return None
            row["attempts"] = attempt
            if figures["other_cpu_pct"] <= POLLUTED_PCT or attempt == MAX_ATTEMPTS:
                return parsed, figures
            log(f"    other processes took {figures['other_cpu_pct']} % of the machine during "
                "the run: measuring it again")

    @staticmethod
    def ms_per(row, key):
        if not row.get(key) or not row.get("requests"):
            return "–"
        return f"{1000 * row[key] / row['requests']:.3f} ms"

    def fail(self, row, cause):
        row.update(status="failed", cause=cause)
        self.record(row)
        log(f"    FAILED: {cause}")

    # ---- servers under ab --------------------------------------------------------------------

    def server_runs(self, repetition, name):
        model, flags, tree = SERVERS[name]
        stem = f"r{repetition}-{name}"
        try:
            with Server(self.binary(model), flags, self.raw, stem) as server:
                self.warm_up(server)
                for path, c, keepalive in self.cells():
                    self.ab_run(repetition, name, server, tree, path, c, keepalive)
        except BenchError as error:
            log(f"    FAILED: {error}")
            for path, c, keepalive in self.cells():
                self.fail({"repetition": repetition, "kind": "ab", "server": name,
                           "endpoint": path, "concurrency": c, "keepalive": int(keepalive)},
                          str(error))

    def warm_up(self, server):
        """Every endpoint answers 200, and a short unmeasured load opens pool connections."""
        for path in ("/html", "/json", "/hello"):
            status = http_get(server.port, path)
            if status != 200:
                raise BenchError(f"GET {path} answered {status} before the runs")
        subprocess.run(["ab", "-q", "-c", "20", "-n", "400", server.url("/html")],
                       capture_output=True, timeout=120)

    def ab_run(self, repetition, name, server, tree, path, c, keepalive):
        flags = ["-k"] if keepalive else []
        limit = int(AB_REQUESTS_PER_S_LIMIT * self.seconds)
        stem = os.path.join(self.raw, f"r{repetition}-{name}{path.replace('/', '-')}-c{c}"
                            f"{'-k' if keepalive else ''}")
        command = ["ab", "-r", *flags, "-c", str(c), "-t", f"{self.seconds:g}", "-n", str(limit),
                   "-e", stem + ".csv", server.url(path)]
        self.progress(f"repetition {repetition}: {name} {path} ab {' '.join(flags + ['-c', str(c)])}")
        row = {"repetition": repetition, "kind": "ab", "server": name, "endpoint": path,
               "concurrency": c, "keepalive": int(keepalive), "command": " ".join(command)}
        result = self.measured_run(
            row, command, stem + ".txt", stem + ".err",
            lambda: parsers.ab(run.read(stem + ".txt"), run.read(stem + ".csv")),
            server_pid=server.pid, tree=tree)
        if result is None:
            return
        parsed, figures = result
        row.update(requests=parsed["complete"], duration_s=parsed["duration_s"],
                   requests_per_s=parsed["requests_per_s"], mean_ms=parsed["mean_ms"],
                   p50_ms=parsed["p50_ms"], p99_ms=parsed["p99_ms"], failed=parsed["failed"],
                   non2xx=parsed["non2xx"])
        row.update({key: figures.get(key) for key in ("server_cpu_s", "db_cpu_s", "client_cpu_s",
                                                      "machine_busy_pct", "other_cpu_pct")})
        if parsed["failed"] or parsed["non2xx"]:
            row.update(status="failed",
                       cause=f"{parsed['failed']} failed, {parsed['non2xx']} non-2xx responses")
        self.record(row)
        log(f"    {row['requests_per_s']:.1f} req/s, p50 {row['p50_ms']:g} ms, p99 "
            f"{row['p99_ms']:g} ms, failed {row['failed']}; CPU per request: server "
            f"{self.ms_per(row, 'server_cpu_s')}, mariadbd {self.ms_per(row, 'db_cpu_s')}, ab "
            f"{self.ms_per(row, 'client_cpu_s')}; other work {row['other_cpu_pct']} % of the "
            "machine")

    # ---- memory ------------------------------------------------------------------------------

    def memory(self, name, model, flags, path, connections):
        """RSS of a fresh server holding `connections` idle keep-alive connections, each of
        which has been answered one request for path."""
        self.progress(f"memory: {name}: {connections} idle keep-alive connections after "
                      f"GET {path}")
        row = {"repetition": 1, "kind": "memory", "server": name, "endpoint": path,
               "concurrency": connections, "keepalive": 1}
        held = []
        try:
            with Server(self.binary(model), ["--keepalive-timeout", "60", *flags], self.raw,
                        f"memory-{name}") as server:
                row["command"] = " ".join(server.command)
                self.warm_up(server)
                for _ in range(connections):
                    status = http_get(server.port, path, keep_open=held)
                    if status != 200:
                        raise BenchError(f"GET {path} answered {status}")
                time.sleep(0.5)
                row["rss_mib"] = round(procstat.tree_rss_kib(server.pid) / 1024, 1)
                row["threads"] = procstat.status_number(server.pid, "Threads")
                row["connections"] = len(os.listdir(f"/proc/{server.pid}/fd"))
                for connection in held:
                    connection.close()
                held.clear()
        except (BenchError, OSError) as error:
            for connection in held:
                connection.close()
            self.fail(row, str(error))
            return
        self.record(row)
        log(f"    RSS {row['rss_mib']} MiB with {connections} connections held: "
            f"{row['threads']} threads, {row['connections']} descriptors open")

    # ---- the whole run -----------------------------------------------------------------------

    def run(self):
        for repetition in range(1, self.options.repetitions + 1):
            for name in CEILINGS:
                for k in self.ceiling_concurrencies():
                    self.ceiling(repetition, name, k)
            for name in SERVERS:
                self.server_runs(repetition, name)
        self.memory("async", "async", [], "/hello", ASYNC_IDLE_CONNECTIONS)
        for name in ("blocking-per-request", "blocking-persistent"):
            self.memory(name, "blocking", SERVERS[name][1], "/html", BLOCKING_LIVE_WORKERS)
        return time.monotonic() - self.started


def stop_like_ctrl_c(signum, frame):
    """SIGTERM ends the run as Ctrl-C does: the server of the moment is stopped on the way out."""
    raise KeyboardInterrupt


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--results-dir", required=True)
    parser.add_argument("--quick", action="store_true", help="1 s per run instead of 5 s")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--db-pid", type=int, help="mariadbd, for its CPU")
    parser.add_argument("--max-load", type=float, default=1.0)
    parser.add_argument("--max-wait", type=float, default=900)
    parser.add_argument("--command", default="scripts/bench.sh", help="for the report")
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, stop_like_ctrl_c)
    if options.repetitions < 1:
        parser.error("--repetitions must be 1 or more")
    os.makedirs(options.results_dir, exist_ok=True)

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    try:
        load_before, waited = wait_for_quiet_machine(options.max_load, options.max_wait)
        log(f"== measuring: load average {load_before:.2f} on {CORES} cores "
            f"(waited {waited:.0f} s for it)")
        bench = Bench(options)
        run_seconds = bench.run()
    except KeyboardInterrupt:
        log("bench: interrupted")
        return 130
    except BenchError as error:
        log(f"bench: {error}")
        return 1
    settings = {
        "command": options.command, "quick": int(options.quick),
        "seconds_per_run": bench.seconds, "repetitions": options.repetitions, "cores": CORES,
        "load_before": load_before, "load_after": load_average(), "waited_s": round(waited),
        "run_s": round(run_seconds), "started": started, "polluted_pct": POLLUTED_PCT,
    }
    return bench_report.write(options.results_dir, bench.rows, settings)


if __name__ == "__main__":
    sys.exit(main())
