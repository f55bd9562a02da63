"""The driver of scripts/stress.sh (which prepares packages, build and databases, then runs
this): every selected scenario against every selected server, one server at a time; a table
per scenario; report.md and results.json in the results directory. Exit status 1 when any
check does not hold."""

import argparse
import datetime
import json
import os
import sys
import time

from modelbench import machine, processes
from modelbench.checkout import Checkout
from modelbench.runs import Runs
from modelbench.stress import outcome, scenarios

# The default counts are README's; --quick changes some to be small enough for CI (both servers
# in about 4 minutes on 2 cores). pause_s lets TIME_WAIT sockets drain between load runs.
DEFAULT = {
    "overload_c": 1000, "overload_n": 50000, "siege_c": 500, "siege_time": "60S",
    "slow_connections": 300, "header_timeout_s": 5,
    "fault_up_s": 5, "fault_down_s": 5, "fault_restart_s": 10, "fault_after_s": 5,
    "db_timeout_s": 2, "slow_queries": 4, "leak_c": 200, "leak_n": 20000, "pause_s": 3,
    "memory_ab_s": 10, "hostile_connections": 100, "hostile_mib": 100,
    "hostile_time_limit_s": 60,
}
SIZES = {
    "default": DEFAULT,
    "quick": {**DEFAULT, "overload_n": 10000, "siege_time": "10S", "header_timeout_s": 3,
              "fault_up_s": 2, "fault_down_s": 2, "fault_restart_s": 4, "fault_after_s": 2,
              "leak_n": 5000, "pause_s": 1, "memory_ab_s": 5, "hostile_time_limit_s": 30},
}
SCENARIOS = {run.scenario: run for run in scenarios.ALL}
# ab -c 1000 and 1000 connections into the server: this run's soft open-file limit.
NEEDED_OPEN_FILES = 4096


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="results directory (raw/, runs/ inside)")
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--size", choices=SIZES, default="default")
    parser.add_argument("--servers", default="blocking,async")
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--db-pid", type=int, help="mariadbd of the load runs, for its CPU")
    parser.add_argument("--fault-db-dir", required=True)
    parser.add_argument("--fault-db-port", type=int, required=True)
    parser.add_argument("--command-line", default="", help="for the report's header")
    args = parser.parse_args()
    processes.sigterm_as_ctrl_c()

    soft, hard, enough = machine.raise_open_files(NEEDED_OPEN_FILES)
    if not enough:
        print(f"stress.sh: open files: soft limit {soft}, hard {hard}; these runs need "
              f"{NEEDED_OPEN_FILES}. Fix: raise the hard limit (ulimit -Hn {NEEDED_OPEN_FILES} "
              "as root, or limits.conf)", file=sys.stderr)
        return 1
    checkout = Checkout(args.build_dir)
    fault_db = scenarios.FaultDatabase(checkout.script("db.sh"), args.fault_db_dir,
                                       args.fault_db_port, os.path.join(args.dir, "raw",
                                                                        "fault-db.log"))
    runs = Runs(args.dir, args.db_pid, checkout.script("siegerc"))
    ctx = scenarios.Context(args.dir, checkout, SIZES[args.size], runs, fault_db)
    models = args.servers.split(",")
    started = time.monotonic()
    sections = []
    results = []
    for name in args.only.split(","):
        outcomes = []
        for model in models:
            print(f"== {name}: {model}", flush=True)
            began = time.monotonic()
            outcomes.append(SCENARIOS[name](ctx, model))
            print(f"   ({time.monotonic() - began:.0f} s)", flush=True)
        table = outcome.table(outcomes)
        print(f"\n### {name}\n\n{table}\n", flush=True)
        sections.append(f"## {name}\n\n{table}\n")
        results += [o.as_dict() for o in outcomes]

    failed = [r for r in results if not r["holds"]]
    elapsed = time.monotonic() - started
    verdict = ("everything holds" if not failed else "DOES NOT HOLD: " + ", ".join(
        f"{r['scenario']} on {r['server']}" for r in failed))
    header = (f"# Stress run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n\n"
              f"`{args.command_line}` ({args.size} size, {elapsed:.0f} s): {verdict}.\n")
    with open(os.path.join(args.dir, "report.md"), "w") as f:
        f.write(header + "\n" + "\n".join(sections))
    with open(os.path.join(args.dir, "results.json"), "w") as f:
        json.dump({"size": args.size, "elapsed_s": round(elapsed, 1), "outcomes": results}, f,
                  indent=1)
    print(f"== stress: {verdict} ({elapsed:.0f} s)")
    return 1 if failed else 0



if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\n== stress: interrupted", file=sys.stderr)
        sys.exit(130)
