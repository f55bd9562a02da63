"""The driver of scripts/reproduce.sh, which parses the command line and prepares packages,
build and database, then runs this: the system checks, every step of the plan against a freshly
started server (one at a time), and the report. A failed step is recorded in steps.tsv with its
cause and log and the others still run; the exit status is 1 when any failed."""

import argparse
import datetime
import os
import sys
import time

import psutil

from modelbench import processes
from modelbench import runs as measured_runs
from modelbench import targets
from modelbench.checkout import Checkout
from modelbench.reproduce import checks, plan, report

STANDALONE_TIMEOUT_S = 1200


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
                                       log)
        self.steps_file = os.path.join(self.dir, "steps.tsv")
        open(self.steps_file, "w").close()
        self.failures = 0

    def fail(self, run_id, cause, log_path):
        self.failures += 1
        with open(self.steps_file, "a") as f:
            f.write(f"{run_id}\tfailed\t{cause}\t{log_path}\n")
        log(f"    FAILED: {cause}")
        log(f"    log: {log_path}")

    def run(self, step):
        kind = targets.KINDS[step.model]
        if step.tool == "standalone":
            command = [kind.program(self.checkout), "--standalone", str(step.settings["n"])]
            self.check_record(step, self.runs.standalone(step.run_id, self.meta(step), command,
                                                         STANDALONE_TIMEOUT_S))
            return
        flags = kind.cluster_flags if step.variant == "cluster" else ()
        prefix = os.path.join(self.raw, step.run_id)
        try:
            target = targets.start(step.run_id, kind.command(self.checkout, flags), prefix)
        except targets.TargetError as error:
            self.fail(step.run_id, str(error), f"{prefix}.server.log")
            return
        with target:
            record = self.measure(step, target)
            if record is not None:
                self.check_record(step, record)
            self.finish(step, target)
        if step.tool != "tasks":
            log(f"    pausing {self.size['pause_s']} s for TIME_WAIT ({time_wait_sockets()} "
                "sockets)")
            time.sleep(self.size["pause_s"])

    @staticmethod
    def meta(step):
        return {"experiment": step.experiment, "server": step.model, "variant": step.variant}

    def measure(self, step, target):
        """The step's run against its server: its record, or None when the warm-up failed."""
        settings = step.settings
        if step.tool == "tasks":
            return self.runs.tasks(step.run_id, self.meta(step), target, settings["delay_ms"])
        if not self.warm_up(step, target):
            return None
        if step.tool == "ab":
            return self.runs.ab(step.run_id, self.meta(step), target, step.path, settings["c"],
                                settings["n"],
                                variable_length=settings.get("variable_length", False))
        return self.runs.siege(step.run_id, self.meta(step), target, step.path, settings["c"],
                               1, settings["time"])

    def check_record(self, step, record):
        if record["status"] != "ok":
            self.fail(step.run_id, record["cause"], os.path.join(self.raw, f"{step.run_id}.*"))

    def warm_up(self, step, target):
        """One request of the step's path, which must answer 200, before the measured run."""
        path = step.path
        reply = target.get(path, timeout=30)
        body_path = os.path.join(self.raw, f"{step.run_id}.warmup.body")
        with open(body_path, "wb") as f:
            f.write(reply.body)
        if reply.status == 200:
            return True
        self.fail(step.run_id, f"GET {path} answered '{reply.status or reply.error}' before the "
                  f"run (body in {body_path})", target.process.stderr_path)
        return False

    def finish(self, step, target):
        """Stops the server; one that does not exit 0 on SIGTERM fails the step."""
        code = target.stop()
        if code is None:
            log(f"    server {target.pid} ignored SIGTERM for {targets.STOP_TIMEOUT_S:.0f} s; "
                "killed it")
            self.fail(step.run_id, "the server ignored SIGTERM and was killed",
                      target.process.stderr_path)
        elif code != 0:
            self.fail(step.run_id, f"the server exited with status {code} on SIGTERM",
                      target.process.stderr_path)


def write_settings(args, size, started):
    html_n = ",".join(str(n) for n in size["html_n"])
    lines = [f"started={started}", f"size={args.size}", f"command={args.command}",
             f"build_dir={args.build_dir}", f"standalone_n={size['standalone_n']}",
             f"html_n={html_n}", f"hello_n={size['hello_n']}",
             f"factorial_n={size['factorial_n']}", f"tasks_delay_ms={size['tasks_delay_ms']}",
             f"siege={size['siege_users']} users, {size['siege_time']}"]
    with open(os.path.join(args.results_dir, "settings.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")



def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=plan.SIZES, default="default")
    parser.add_argument("--experiments", default=",".join(plan.EXPERIMENTS))
    parser.add_argument("--servers", default=",".join(plan.MODELS))
    parser.add_argument("--results-dir", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--db-pid", type=int, help="mariadbd, for its CPU")
    parser.add_argument("--command", default="scripts/reproduce.sh", help="for the report")
    args = parser.parse_args()
    processes.sigterm_as_ctrl_c()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    size = plan.SIZES[args.size]
    steps = plan.steps(args.size, args.experiments.split(","), args.servers.split(","))
    reproduction = Reproduction(args)
    try:
        targets.check_built(reproduction.checkout, {step.model for step in steps})
    except targets.TargetError as error:
        print(f"reproduce.sh: {error}", file=sys.stderr)
        return 1

    log("== checks")
    with open(os.path.join(args.results_dir, "checks.txt"), "w") as f:
        f.write("\n".join(checks.system_checks(size, log)) + "\n")
    write_settings(args, size, started)

    run_started = time.monotonic()
    try:
        for i, step in enumerate(steps, 1):
            log(f"== [{i}/{len(steps)}] {step.title}   "
                f"({time.monotonic() - run_started:.0f} s elapsed)")
            reproduction.run(step)
    except KeyboardInterrupt:
        log()
        log("reproduce.sh: interrupted")
        return 130

    log("== report")
    report_path = os.path.join(args.results_dir, "report.md")
    try:
        plot_errors = report.write(args.results_dir, args.build_dir)
        if plot_errors:
            reproduction.fail("report", "plots not drawn: " + "; ".join(plot_errors),
                              report_path)
    except (OSError, ValueError, KeyError) as error:
        reproduction.fail("report", f"the report failed: {error!r}", report_path)
    if os.path.exists(report_path):
        with open(report_path) as f:
            log(f.read())
    log()
    log(f"== results in {args.results_dir} ({time.monotonic() - run_started:.0f} s of runs)")
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
