"""stress: holds the servers to what docs/robustness.md promises under overload, slow clients,
database faults and repeated load, one server at a time, and prints a table per scenario with
its figures:
  overload      ab -c 1000 -n 50000 /html, then siege -c 500 -d 1 -t 60S /json: no failed or
                non-2xx request; the blocking server stays at its worker cap
  slow-clients  300 connections sending one header byte a second (tests/tools/slow_clients),
                --timeout 5: all closed once it passed; the async server answers others in
                under 100 ms meanwhile; the blocking server gets its workers back
  db-faults     its own MariaDB (var/mariadb-stress, port 3320) stopped, then SIGKILLed, during
                ab -c 20 /json: only 200 and 503, 503 within 1 s while it is down, right
                answers within 2 s of its return without a restart; queries past --db-timeout
                answered 504 at the timeout, their connections free at once
  leaks         ab -c 200 -n 20000 /html four times: RSS after run 3 within 10 % (or 2 MiB)
                of run 1's (run 0 brings the malloc arenas to their steady size)
  memory        100 connections each sending up to 100 MiB of an endless chunk extension,
                trailer or header line while ab -c 20 runs /html beside them: peak RSS within
                8 MiB of the same run beside 100 connections that only wait, no failed or
                non-2xx request, each connection ended with a 4xx or a reset
  slowhttptest  slow headers, slow body and slow read (slowhttptest, 300 connections) against
                --timeout 5: the server lets go of them within its rounds of --timeout; other
                requests answered meanwhile (async: under 100 ms)
After every load: open descriptors and threads back to their pre-test counts (/proc), /hello
still answered, and SIGTERM ends the server with exit status 0. Writes
results/stress-<UTC time>/: raw/, runs/, report.md, results.json. STRESS_DB_DIR and
STRESS_DB_PORT move the fault scenario's database. Exit status 0 when everything holds, 1 when
anything does not, 2 on bad arguments, 130 when interrupted.
"""

import contextlib
import json
import os
import time

from modelbench import verb
from modelbench.checkout import Checkout
from modelbench.engine.engine import Engine
from modelbench.engine.recorder import Recorder, utc_now
from modelbench.engine.server import TargetError
from modelbench.stress import outcome, scenarios

# The default counts; --quick makes some small enough for CI (both servers in about 4 minutes
# on 2 cores).
DEFAULT = {
    "overload_c": 1000, "overload_n": 50000, "siege_c": 500, "siege_s": 60,
    "slow_connections": 300, "header_timeout_s": 5,
    "fault_up_s": 5, "fault_down_s": 5, "fault_restart_s": 10, "fault_after_s": 5,
    "db_timeout_s": 2, "slow_queries": 4, "leak_c": 200, "leak_n": 20000,
    "memory_ab_s": 10, "hostile_connections": 100, "hostile_mib": 100, "hostile_time_limit_s": 60,
}
SIZES = {
    "default": DEFAULT,
    "quick": {**DEFAULT, "overload_n": 10000, "siege_s": 10, "header_timeout_s": 3,
              "fault_up_s": 2, "fault_down_s": 2, "fault_restart_s": 4, "fault_after_s": 2,
              "leak_n": 5000, "memory_ab_s": 5, "hostile_time_limit_s": 30},
}
SCENARIOS = {run.scenario: run for run in scenarios.ALL}
# ab -c 1000 and 1000 connections into the server: this run's soft open-file limit.
NEEDED_OPEN_FILES = 4096
SERVERS = ("blocking", "async")


def add_arguments(parser):
    parser.add_argument("--quick", dest="size", action="store_const", const="quick",
                        default="default", help="counts for CI: both servers in about 4 minutes "
                        "on a 2-core machine (ab -n 10000, siege -t 10S, --timeout 3, shorter "
                        "outages, leak runs of 5000)")
    parser.add_argument("--servers", default=",".join(SERVERS), metavar="LIST",
                        help="blocking, async (default both)")
    parser.add_argument("--only", default=",".join(SCENARIOS), metavar="LIST",
                        help=", ".join(SCENARIOS) + " (default all)")
    verb.add_results_dir(parser, "stress")


def pick(parser, flag, text, allowed):
    picked = list(dict.fromkeys(item for item in text.split(",") if item))
    for item in picked:
        if item not in allowed:
            parser.error(f"{flag}: unknown '{item}' ({', '.join(allowed)})")
    if not picked:
        parser.error(f"{flag} selects nothing")
    return picked


def run(args, parser):
    models = pick(parser, "--servers", args.servers, SERVERS)
    names = pick(parser, "--only", args.only, list(SCENARIOS))
    print(f"== stress: {args.size} size, scenarios {','.join(names)}, servers "
          f"{','.join(models)}", flush=True)
    checkout = Checkout.from_environment()
    directory = verb.results_dir(checkout, "stress", args.results_dir)
    fault_db = scenarios.FaultDatabase(
        checkout.script("db.sh"), os.environ.get("STRESS_DB_DIR") or
        checkout.var("mariadb-stress"), int(os.environ.get("STRESS_DB_PORT", "3320")),
        os.path.join(directory, "raw", "fault-db.log"))
    database, _ = verb.ready(checkout, [], directory, NEEDED_OPEN_FILES, ("build", "db", "stress"),
                             ("slow_clients",))
    try:
        if "db-faults" in names:
            print(f"== the fault scenario's own MariaDB: {fault_db.directory}, port "
                  f"{fault_db.port}", flush=True)
            fault_db.run("start")
        return stress(args, directory, checkout, models, names,
                      Recorder(directory, checkout, database.pid()), fault_db)
    finally:
        if "db-faults" in names:
            with contextlib.suppress(TargetError):
                fault_db.run("stop")


def stress(args, directory, checkout, models, names, runs, fault_db):
    ctx = scenarios.Context(Engine(directory, checkout, runs), SIZES[args.size], fault_db)
    started = time.monotonic()
    sections, results = [], []
    for name in names:
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
    with open(os.path.join(directory, "report.md"), "w") as f:
        f.write(f"# Stress run {utc_now():%Y-%m-%d %H:%M} UTC\n\n`{verb.command('stress')}` "
                f"({args.size} size, {elapsed:.0f} s): {verdict}.\n\n" + "\n".join(sections))
    with open(os.path.join(directory, "results.json"), "w") as f:
        json.dump({"size": args.size, "elapsed_s": round(elapsed, 1), "outcomes": results}, f,
                  indent=1)
    print(f"== stress: {verdict} ({elapsed:.0f} s)")
    return 1 if failed else 0

