"""The driver of scripts/reproduce.sh, which parses the command line and prepares packages,
build and database, then runs this: the system checks, every step of the plan in its rounds
against a freshly started server (one at a time, each measured on a quiet machine and measured
again when other work polluted it), and the report. A failed step is recorded in steps.tsv with
its cause and log and the others still run; the exit status is 1 when any failed. Every server
it started is stopped, its whole process tree, before it ends."""

import argparse
import datetime
import os
import sys
import time

import psutil

from modelbench import machine, processes
from modelbench import runs as measured_runs
from modelbench import targets
from modelbench.checkout import Checkout
from modelbench.processes import CORES
from modelbench.reproduce import calibration, checks, e6, plan, remote, report

STANDALONE_TIMEOUT_S = 1200
# What --client wrk measures with wrk instead of ab: the pages whose rate is the question (E3's
# /factorial is about ab's own Length check), in the posts' experiments; the calibration and E5
# compare CPU per request and a crossover that are defined for ab's load.
WRK_PATHS = ("/html", "/hello")
WRK_EXPERIMENTS = ("E1b", "E2", "E6")
# Before the first run: a 1-minute load average below one per two cores, waited for this long at
# most; then the gate waits before each run for a machine others leave nearly idle.
MAX_LOAD = CORES / 2
MAX_LOAD_WAIT_S = 300


def log(message=""):
    print(message, flush=True)


def time_wait_sockets():
    return sum(1 for c in psutil.net_connections("tcp") if c.status == psutil.CONN_TIME_WAIT)


class Reproduction:
    def __init__(self, args):
        self.dir = args.results_dir
        self.raw = os.path.join(self.dir, "raw")
        self.checkout = Checkout(args.build_dir)
        self.size = plan.SIZES[args.size]
        self.runs = measured_runs.Runs(self.dir, args.db_pid, self.checkout.script("siegerc"),
                                       log, self.checkout.script("wrk-summary.lua"))
        self.client = args.client
        # A smoke run checks the machinery, not the figures: it does not wait, and measures once.
        self.gate = (machine.QuietGate(log, idle_wait_s=0, max_attempts=1)
                     if args.size == "smoke" else machine.QuietGate(log))
        self.steps_file = os.path.join(self.dir, "steps.tsv")
        open(self.steps_file, "w").close()
        self.failures = 0
        self.servers = []  # every ServerProcess started, to account for at the end
        self.remeasured = 0
        self.calibration = calibration.Calibration(self.dir, args.size, self.run, log)
        self.remote = remote.parse(args.target)  # server key -> HOST:PORT of a remote server

    def fail(self, run_id, cause, log_path):
        self.failures += 1
        with open(self.steps_file, "a") as f:
            f.write(f"{run_id}\tfailed\t{cause}\t{log_path}\n")
        log(f"    FAILED: {cause}")
        log(f"    log: {log_path}")

    def run(self, step):
        """Runs the step; its record (None for the calibration's search, whose runs are steps
        of their own)."""
        if step.tool == "calibrate":
            try:
                self.calibration.search(step)
            except calibration.CalibrationError as error:
                self.fail(step.run_id, str(error), os.path.join(self.raw, f"{step.run_id}-p*"))
            return None
        if step.tool == "tasks":
            # Not a measurement: the order of three log lines, which other work cannot change.
            record, _ = self.attempt(step, 1)
        else:
            attempts = iter(range(1, self.gate.max_attempts + 1))
            record, _, count = self.gate.measure(lambda: self.attempt(step, next(attempts)))
            self.remeasured += count > 1
        if step.tool != "standalone":
            pause = self.size["pause_s"] if step.pause else 1
            log(f"    pausing {pause} s for TIME_WAIT ({time_wait_sockets()} sockets)")
            time.sleep(pause)
        return record

    @staticmethod
    def meta(step, attempt, flags):
        return {"experiment": step.experiment, "server": step.server.key,
                "system": step.server.system,
                "variant": "cluster" if step.server.cluster else "single",
                "base": step.base, "round": step.round, "attempt": attempt,
                "server_flags": " ".join(flags),
                **({"rtt_ms": step.settings["rtt_ms"]} if "rtt_ms" in step.settings else {})}

    def attempt(self, step, attempt):
        """One measurement of the step: (its record, the figures the gate judges). A step that
        failed is not measured again."""
        record = self.measure(step, attempt)
        if record["status"] != "ok":
            self.fail(step.run_id, record["cause"], os.path.join(self.raw, f"{step.run_id}.*"))
        return record, record.get("figures") if record["status"] == "ok" else {"other_cpu_pct": 0}

    def measure(self, step, attempt):
        """The step's run, against a server started for it (or the remote one): its record."""
        kind = targets.KINDS[step.server.system]
        settings = step.settings
        flags = [*step.server.flags, *step.flags]
        if step.server.calibrated:
            try:
                flags += self.calibration.flags(step.server)
            except calibration.CalibrationError as error:
                return self.runs.failed(step.run_id, self.meta(step, attempt, flags), step.tool,
                                        str(error))
        meta = self.meta(step, attempt, flags)
        if step.tool == "standalone":
            return self.runs.standalone(step.run_id, meta,
                                        [*kind.standalone(self.checkout, settings["n"]), *flags],
                                        settings["n"], STANDALONE_TIMEOUT_S)
        if step.server.key in self.remote:
            return self.run_on(step, meta, targets.Target(step.server.key,
                                                          self.remote[step.server.key], None))
        if step.experiment == "E6":
            try:
                with e6.delayed_database(self.checkout, settings["rtt_ms"],
                                         os.path.join(self.raw, step.run_id)) as db_flags:
                    return self.start_and_run(step, meta, flags, db_flags)
            except e6.ProxyError as error:
                return self.runs.failed(step.run_id, meta, step.tool, str(error))
        return self.start_and_run(step, meta, flags)

    def start_and_run(self, step, meta, flags, db_flags=()):
        """The step's run against a server started with flags for it (db_flags: where its
        database is)."""
        prefix = os.path.join(self.raw, step.run_id)
        command = targets.KINDS[step.server.system].command(
            self.checkout, [*flags, *db_flags], files_dir=prefix + ".files")
        try:
            target = targets.start(step.run_id, command, prefix)
        except targets.TargetError as error:
            return self.runs.failed(step.run_id, meta, step.tool, str(error))
        self.servers.append(target.process)
        with target:
            record = self.run_on(step, meta, target)
            self.finish(step, target)
        return record

    def run_on(self, step, meta, target):
        """The step's run against a server that listens (started for it, or remote)."""
        settings = step.settings
        if step.tool == "tasks":
            return self.runs.tasks(step.run_id, meta, target, settings["delay_ms"])
        if not self.warm_up(step, target):
            log_note = (f", server log {target.process.stderr_path}" if target.local else "")
            return self.runs.failed(
                step.run_id, meta, step.tool,
                f"GET {step.path} of {target.base_url} did not answer 200 before the run (body "
                f"in {os.path.join(self.raw, step.run_id)}.warmup.body{log_note})")
        if (step.tool == "ab" and self.client == "wrk" and step.path in WRK_PATHS
                and step.experiment in WRK_EXPERIMENTS):
            return self.runs.wrk(step.run_id, meta, target, step.path, settings["c"],
                                 self.size["wrk_s"])
        if step.tool == "ab":
            return self.runs.ab(step.run_id, meta, target, step.path, settings["c"],
                                settings["n"],
                                variable_length=settings.get("variable_length", False),
                                time_limit=settings.get("time_limit"))
        return self.runs.siege(step.run_id, meta, target, step.path, settings["c"], 1,
                               settings["time"])

    def warm_up(self, step, target):
        """One request of the step's path, which must answer 200, before the measured run."""
        reply = target.get(step.path, timeout=30)
        with open(os.path.join(self.raw, f"{step.run_id}.warmup.body"), "wb") as f:
            f.write(reply.body)
        return reply.status == 200

    def finish(self, step, target):
        """Stops the server; one that does not exit 0 on SIGTERM, or leaves a process of its
        tree behind, fails the step."""
        code = target.stop()
        if code is None:
            log(f"    server {target.pid} ignored SIGTERM for {targets.STOP_TIMEOUT_S:.0f} s; "
                "killed it")
            self.fail(step.run_id, "the server ignored SIGTERM and was killed",
                      target.process.stderr_path)
        elif code != 0:
            self.fail(step.run_id, f"the server exited with status {code} on SIGTERM",
                      target.process.stderr_path)
        if target.process.left_behind:
            self.fail(step.run_id, "the server left processes of its tree behind, killed: "
                      + ", ".join(target.process.left_behind), target.process.stderr_path)

    def stop_all(self):
        """Stops any server still running (after an interruption); returns 'PID (NAME)' of every
        process that had to be killed because it outlived its server."""
        left = []
        for server in self.servers:
            if server.running():
                server.stop()
            left += server.left_behind
        return left


def write_settings(args, size, repeats, started):
    e5 = plan.E5_SIZES[args.size]
    lines = [f"started={started}", f"size={args.size}", f"command={args.command}",
             f"build_dir={args.build_dir}", f"repeats={repeats}",
             f"standalone_n={size['standalone_n']}",
             f"html_n={','.join(str(n) for n in size['html_n'])}", f"hello_n={size['hello_n']}",
             f"factorial_n={size['factorial_n']}", f"tasks_delay_ms={size['tasks_delay_ms']}",
             f"siege=500 users, {size['siege_time']}",
             f"siege1000=1000 users, {size['siege1000_time']}",
             f"calibration=ab -c {plan.CALIBRATION_C} -n {plan.CALIBRATION_N[args.size]} /html",
             f"e5=ab -c {','.join(str(c) for c in e5['concurrencies'])} -t {e5['time_s']} "
             f"-n {e5['n']} /html at --cpu-per-request-us "
             f"{','.join(str(u) for u in e5['costs_us'])}",
             f"somaxconn={checks.somaxconn()}", f"client={args.client}"]
    with open(os.path.join(args.results_dir, "settings.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def progress(i, total, title, started):
    elapsed = time.monotonic() - started
    eta = f", about {elapsed / (i - 1) * (total - i + 1) / 60:.0f} min left" if i > 1 else ""
    log(f"== [{i}/{total}] {title}   ({elapsed / 60:.1f} min elapsed{eta})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=plan.SIZES, default="default")
    parser.add_argument("--experiments", default=",".join(plan.EXPERIMENTS))
    parser.add_argument("--servers", default=",".join(plan.SYSTEMS))
    parser.add_argument("--repeats", type=int, help="rounds of every run (default: the size's)")
    parser.add_argument("--results-dir", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--db-pid", type=int, help="mariadbd, for its CPU")
    parser.add_argument("--command", default="scripts/reproduce.sh", help="for the report")
    parser.add_argument("--against", help="an earlier run's results directory, whose E5 "
                        "crossovers the report compares with this run's")
    parser.add_argument("--client", choices=("ab", "wrk"), default="ab",
                        help="the load tool of the /html and /hello runs")
    parser.add_argument("--target", action="append", default=[], metavar="NAME=URL",
                        help="a remote server to run against instead of starting one "
                        "(repeatable; --servers is then ignored)")
    args = parser.parse_args()
    processes.sigterm_as_ctrl_c()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    size = plan.SIZES[args.size]
    repeats = args.repeats or size["repeats"]
    try:
        remote_targets = remote.parse(args.target)
    except remote.TargetSpecError as error:
        print(f"reproduce.sh: {error}", file=sys.stderr)
        return 2
    systems = remote.systems(remote_targets) if remote_targets else args.servers.split(",")
    steps = plan.steps(args.size, args.experiments.split(","), systems, repeats)
    if "CAL" in args.experiments.split(",") and not plan.calibrated_models(systems):
        log("== calibration: skipped, it needs php and blocking, or node and async, among the "
            "servers")
    if remote_targets:
        steps, skipped = remote.split(steps, remote_targets)
        remote.write(args.results_dir, remote_targets, skipped)
        for _, title, reason in skipped:
            log(f"== not measured for a remote target: {title}: {reason}")
    reproduction = Reproduction(args)
    try:
        targets.check_built(reproduction.checkout, {step.server.system for step in steps
                                                    if step.server.key not in remote_targets})
    except targets.TargetError as error:
        print(f"reproduce.sh: {error}", file=sys.stderr)
        return 1

    log("== checks")
    with open(os.path.join(args.results_dir, "checks.txt"), "w") as f:
        f.write("\n".join(checks.system_checks(size, log)) + "\n")
    write_settings(args, size, repeats, started)

    run_started = time.monotonic()
    try:
        if args.size != "smoke":
            load, waited = reproduction.gate.wait_for_load(MAX_LOAD, MAX_LOAD_WAIT_S)
            log(f"== measuring: load average {load:.2f} on {CORES} cores (waited {waited:.0f} s "
                "for it)")
        for i, step in enumerate(steps, 1):
            progress(i, len(steps), step.title, run_started)
            reproduction.run(step)
    except KeyboardInterrupt:
        log()
        log("reproduce.sh: interrupted")
        reproduction.stop_all()
        return 130
    left = reproduction.stop_all()
    run_seconds = time.monotonic() - run_started
    with open(os.path.join(args.results_dir, "settings.txt"), "a") as f:
        f.write(f"run_s={run_seconds:.0f}\nremeasured={reproduction.remeasured}\n")

    log("== report")
    report_path = os.path.join(args.results_dir, "report.md")
    try:
        plot_errors = report.write(args.results_dir, args.build_dir, args.against)
        if plot_errors:
            reproduction.fail("report", "plots not drawn: " + "; ".join(plot_errors),
                              report_path)
    except (OSError, ValueError, KeyError) as error:
        reproduction.fail("report", f"the report failed: {error!r}", report_path)
    if os.path.exists(report_path):
        with open(report_path) as f:
            log(f.read())
    log()
    log(f"== results in {args.results_dir} ({run_seconds / 60:.1f} min of runs, "
        f"{reproduction.remeasured} of {len(steps)} runs measured again after other work "
        "polluted them)")
    log(f"== servers: all {len(reproduction.servers)} started by this run have stopped" +
        (f"; processes that outlived their server were killed: {', '.join(left)}" if left
         else ""))
    if reproduction.failures:
        log(f"== {reproduction.failures} step(s) failed:")
        with open(reproduction.steps_file) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                log(f"   {fields[0]}\t{fields[2]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
