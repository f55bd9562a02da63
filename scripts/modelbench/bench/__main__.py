"""The measuring part of scripts/bench.sh: every server against the database's own ceiling.

  python3 -m modelbench.bench --build-dir DIR --results-dir DIR [--quick] [--repetitions 3]
      [--db-pid PID] [--max-load 1.0] [--max-wait 900] [--command TEXT]

Runs, in each repetition: the ceilings (each server's --standalone loop with --concurrency K for
K = 1 and K = cores: no HTTP), then for each server (blocking per-request, blocking persistent,
async, async one worker per core) and each endpoint (/html, /json, /hello; /hello also with -k)
ab at -c 1, -c 20 and -c 200 for a fixed time, and wrk (keep-alive, a thread per core) beside it
on /html and /hello; at the end the memory scenarios (async holding 1000 idle keep-alive
connections, blocking with 150 live workers). /proc gives the CPU of the server, of mariadbd and
of the whole machine over every run; the load tool's own CPU is its rusage.
Writes RESULTS/runs.csv (every run) and raw/ (every tool's output); modelbench.bench.report then
makes bench.csv (medians and ratios) and report.md.
"""

import argparse
import csv
import os
import subprocess
import sys
import time

from modelbench import httpclient, loadtools, machine, measure, processes, targets
from modelbench.bench import report
from modelbench.checkout import Checkout
from modelbench.measure import read, tail
from modelbench.processes import CORES

CONCURRENCIES = (1, 20, 200)
# The servers measured: name -> (model, flags).
SERVERS = {
    "blocking-per-request": ("blocking", ["--db-connection", "per-request"]),
    "blocking-persistent": ("blocking", ["--db-connection", "persistent"]),
    "async": ("async", []),
    "async-cluster": ("async", list(targets.KINDS["async"].cluster_flags)),
}
# The ceilings: each model's standalone loop (the /html queries, every row fetched, and the
# rendering; no HTTP), in the connection mode of the servers it bounds.
CEILINGS = {
    "ceiling-per-connect": ("blocking", ["--db-connection", "per-request"]),
    "ceiling-persistent": ("blocking", ["--db-connection", "persistent"]),
    "ceiling-async-loop": ("async", []),
}
# The endpoints wrk measures beside ab.
WRK_PATHS = ("/html", "/hello")
# ab -t stops at the time limit or after this many requests per second of it, whichever first.
AB_REQUESTS_PER_S_LIMIT = 200000
# Idle connections of the memory scenarios.
ASYNC_IDLE_CONNECTIONS = 1000
BLOCKING_LIVE_WORKERS = 150
# The memory scenario holds 1000 connections; with ab -c 200 that needs a few thousand files.
NEEDED_OPEN_FILES = 4096

RUN_COLUMNS = [
    "repetition", "kind", "server", "endpoint", "concurrency", "keepalive", "command",
    "status", "cause", "requests", "duration_s", "requests_per_s", "mean_ms", "p50_ms", "p90_ms",
    "p99_ms",
    "failed", "non2xx", "server_cpu_s", "db_cpu_s", "client_cpu_s", "machine_busy_pct",
    "other_cpu_pct", "attempts", "load_1min", "rss_mib", "threads", "connections",
]


class BenchError(Exception):
    pass


def log(message):
    print(message, flush=True)


class Bench:
    def __init__(self, options):
        self.options = options
        self.checkout = Checkout(options.build_dir)
        self.gate = machine.QuietGate(log)
        self.seconds = 1.0 if options.quick else 5.0
        self.raw = os.path.join(options.results_dir, "raw")
        os.makedirs(self.raw, exist_ok=True)
        self.rows = []
        self.iterations = {}  # ceiling run key -> iterations that take about self.seconds
        self.done = 0
        self.total = self.count_steps()
        self.started = time.monotonic()

    def program(self, model):
        return targets.KINDS[model].program(self.checkout)

    def count_steps(self):
        per_repetition = len(CEILINGS) * len(self.ceiling_concurrencies()) + \
            len(SERVERS) * len(self.cells())
        return per_repetition * self.options.repetitions + 3  # + the memory scenarios

    @staticmethod
    def ceiling_concurrencies():
        return sorted({1, CORES})

    @staticmethod
    def cells():
        """(client, endpoint, concurrency, keep-alive) of every load run on a server: ab on
        each endpoint, ab -k on /hello, and wrk, which keeps its connections, on WRK_PATHS."""
        cells = [("ab", path, c, False) for path in ("/html", "/json", "/hello")
                 for c in CONCURRENCIES]
        cells += [("ab", "/hello", c, True) for c in CONCURRENCIES]
        return cells + [("wrk", path, c, True) for path in WRK_PATHS for c in CONCURRENCIES]

    def progress(self, title):
        self.done += 1
        elapsed = time.monotonic() - self.started
        eta = ""
        if self.done > 1:
            eta = f", about {elapsed / (self.done - 1) * (self.total - self.done + 1):.0f} s left"
        log(f"== [{self.done}/{self.total}] {title}   ({elapsed:.0f} s elapsed{eta})")

    def record(self, row):
        row.setdefault("status", "ok")
        row["load_1min"] = machine.load_average()
        self.rows.append(row)
        self.write_runs()

    def write_runs(self):
        with open(os.path.join(self.options.results_dir, "runs.csv"), "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=RUN_COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(self.rows)

    def start(self, model, flags, stem):
        try:
            return targets.start(model, targets.KINDS[model].command(self.checkout, flags),
                                 os.path.join(self.raw, stem))
        except targets.TargetError as error:
            raise BenchError(str(error)) from error

    def stop(self, target):
        code = target.stop()
        if code != 0:
            log(f"    note: {target.process.command[0]} exited with {code} on SIGTERM "
                f"(log: {target.process.stderr_path})")

    # ---- ceilings ----------------------------------------------------------------------------

    def ceiling(self, repetition, name, k):
        model, flags = CEILINGS[name]
        key = f"{name}-k{k}"
        if key not in self.iterations:
            self.iterations[key] = self.calibrate(model, flags, k)
        n = self.iterations[key]
        command = [self.program(model), "--standalone", str(n), "--concurrency", str(k), *flags]
        self.progress(f"repetition {repetition}: {name} K={k}: {' '.join(command[1:])}")
        stem = os.path.join(self.raw, f"r{repetition}-{key}")
        row = {"repetition": repetition, "kind": "ceiling", "server": name, "endpoint": "/html",
               "concurrency": k, "keepalive": 1 if name != "ceiling-per-connect" else 0,
               "command": " ".join(command)}
        result = self.measured_run(row, command, stem + ".txt", stem + ".err",
                                   lambda: loadtools.parse_standalone(read(stem + ".txt")),
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
        command = [self.program(model), "--standalone", str(n), "--concurrency", str(k), *flags]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            raise BenchError(f"{' '.join(command)} failed: {result.stderr.strip()[-300:]}")
        rate = loadtools.parse_standalone(result.stdout)["iterations_per_s"]
        return max(200, int(rate * self.seconds))

    def measured_run(self, row, command, stdout_path, stderr_path, parse, target=None,
                     child_is_server=False):
        """A measured run on a quiet machine (modelbench.machine.QuietGate): (parsed output,
        figures), or None when the run failed (recorded)."""
        def attempt():
            code, figures = measure.run(command, stdout_path, stderr_path,
                                        server=target.watch() if target else None,
                                        db_pid=self.options.db_pid,
                                        child_is_server=child_is_server, timeout_s=600)
            if code != 0:
                raise BenchError(f"{os.path.basename(command[0])} exited with {code}: "
                                 f"{tail(stderr_path)}")
            return parse(), figures

        try:
            parsed, figures, attempts = self.gate.measure(attempt)
        except (BenchError, measure.MeasureError, loadtools.ParseError) as error:
            self.fail(row, str(error))
            return None
        row["attempts"] = attempts
        return parsed, figures

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
        stem = f"r{repetition}-{name}"
        try:
            with self.start(*SERVERS[name], stem) as target:
                self.warm_up(target)
                for cell in self.cells():
                    self.load_run(repetition, name, target, *cell)
                self.stop(target)
        except BenchError as error:
            log(f"    FAILED: {error}")
            for client, path, c, keepalive in self.cells():
                self.fail({"repetition": repetition, "kind": client, "server": name,
                           "endpoint": path, "concurrency": c, "keepalive": int(keepalive)},
                          str(error))

    @staticmethod
    def warm_up(target):
        """Every endpoint answers 200, and a short unmeasured load opens pool connections."""
        for path in ("/html", "/json", "/hello"):
            reply = target.get(path, timeout=30)
            if reply.status != 200:
                raise BenchError(f"GET {path} answered {reply.status or reply.error} before the "
                                 "runs")
        subprocess.run(["ab", "-q", "-c", "20", "-n", "400", target.url("/html")],
                       capture_output=True, timeout=120)

    def load_run(self, repetition, name, target, client, path, c, keepalive):
        """One run of ab (-k when keepalive) or wrk against the server for self.seconds."""
        stem = os.path.join(self.raw, f"r{repetition}-{name}{path.replace('/', '-')}-c{c}"
                            f"{'-' + client if client != 'ab' else '-k' if keepalive else ''}")
        if client == "wrk":
            command = loadtools.wrk_command(target.url(path),
                                            self.checkout.script("wrk-summary.lua"), c,
                                            self.seconds, CORES)
            title = f"wrk -c {c}"

            def parse():
                return loadtools.parse_wrk(read(stem + ".txt"))
        else:
            limit = int(AB_REQUESTS_PER_S_LIMIT * self.seconds)
            command = loadtools.ab_command(target.url(path), c, limit, stem + ".csv",
                                           keepalive=keepalive, time_limit=self.seconds)
            title = f"ab {'-k ' if keepalive else ''}-c {c}"

            def parse():
                return loadtools.parse_ab(read(stem + ".txt"), read(stem + ".csv"))
        self.progress(f"repetition {repetition}: {name} {path} {title}")
        row = {"repetition": repetition, "kind": client, "server": name, "endpoint": path,
               "concurrency": c, "keepalive": int(keepalive), "command": " ".join(command)}
        result = self.measured_run(row, command, stem + ".txt", stem + ".err", parse,
                                   target=target)
        if result is None:
            return
        parsed, figures = result
        row.update(requests=parsed["complete"], duration_s=parsed["duration_s"],
                   requests_per_s=parsed["requests_per_s"], mean_ms=parsed["mean_ms"],
                   p50_ms=parsed["p50_ms"], p90_ms=parsed["p90_ms"], p99_ms=parsed["p99_ms"],
                   failed=parsed["failed"], non2xx=parsed["non2xx"])
        row.update({key: figures.get(key) for key in ("server_cpu_s", "db_cpu_s", "client_cpu_s",
                                                      "machine_busy_pct", "other_cpu_pct")})
        if parsed["failed"] or parsed["non2xx"]:
            row.update(status="failed",
                       cause=f"{parsed['failed']} failed, {parsed['non2xx']} non-2xx responses")
        self.record(row)
        log(f"    {row['requests_per_s']:.1f} req/s, p50 {row['p50_ms']:g} ms, p99 "
            f"{row['p99_ms']:g} ms, failed {row['failed']}; CPU per request: server "
            f"{self.ms_per(row, 'server_cpu_s')}, mariadbd {self.ms_per(row, 'db_cpu_s')}, "
            f"{client} {self.ms_per(row, 'client_cpu_s')}; other work {row['other_cpu_pct']} % "
            "of the machine")

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
            with self.start(model, ["--keepalive-timeout", "60", *flags],
                            f"memory-{name}") as target:
                row["command"] = " ".join(target.process.command)
                self.warm_up(target)
                for _ in range(connections):
                    status, connection = target.get_and_hold(path)
                    held.append(connection)
                    if status != 200:
                        raise BenchError(f"GET {path} answered {status}")
                time.sleep(0.5)
                figures = target.snapshot()
                row["rss_mib"] = round(figures["rss_kib"] / 1024, 1)
                row["threads"] = figures["threads"]
                row["connections"] = figures["fds"]
                for connection in held:
                    connection.close()
                held.clear()
                self.stop(target)
        except (BenchError, targets.TargetError, httpclient.ProtocolError, OSError) as error:
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
    processes.sigterm_as_ctrl_c()
    if options.repetitions < 1:
        parser.error("--repetitions must be 1 or more")
    os.makedirs(options.results_dir, exist_ok=True)

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    try:
        soft, hard, enough = machine.raise_open_files(NEEDED_OPEN_FILES)
        if not enough:
            raise BenchError(f"open files: soft limit {soft} (hard {hard}) is below the "
                             f"{NEEDED_OPEN_FILES} these runs need")
        targets.check_built(Checkout(options.build_dir),
                            {model for model, _ in [*SERVERS.values(), *CEILINGS.values()]})
        load_before, waited = machine.QuietGate(log).wait_for_load(options.max_load,
                                                                   options.max_wait)
        log(f"== measuring: load average {load_before:.2f} on {CORES} cores "
            f"(waited {waited:.0f} s for it)")
        bench = Bench(options)
        run_seconds = bench.run()
    except KeyboardInterrupt:
        log("bench: interrupted")
        return 130
    except (BenchError, targets.TargetError) as error:
        log(f"bench: {error}")
        return 1
    settings = {
        "command": options.command, "quick": int(options.quick),
        "seconds_per_run": bench.seconds, "repetitions": options.repetitions, "cores": CORES,
        "load_before": load_before, "load_after": machine.load_average(),
        "waited_s": round(waited), "run_s": round(run_seconds), "started": started,
        "polluted_pct": machine.QuietGate.POLLUTED_PCT,
    }
    return report.write(options.results_dir, bench.rows, settings)


if __name__ == "__main__":
    sys.exit(main())
