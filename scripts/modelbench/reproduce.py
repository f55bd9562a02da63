"""reproduce: the posts' experiments on the real systems and on the C++ models standing for them,
every claim judged for both sides. It installs and builds what the chosen systems need, starts
the private MariaDB when it is not running, checks the system limits the posts ran into, runs
every experiment's plan through the engine (a failed run is reported and the rest still run),
and writes results/reproduce-<UTC time>/: report.md, summary.json, results.csv, the plots,
runs/, raw/. The terminal ends with the verdicts, the paths and what is left running. Exit status
0 when every run succeeded, 1 when any failed, 2 on bad arguments, 130 when interrupted.
"""

import datetime
import functools
import os
import random

from modelbench import checks, experiments, reference, remote, systems, verb
from modelbench.checkout import Checkout
from modelbench.engine import blocks, machine, plan, steps
from modelbench.engine.engine import Engine, estimate_plan_s
from modelbench.engine.recorder import Recorder, utc_now
from modelbench.engine.warmup import MAX_S as WARMUP_MAX_S
from modelbench.experiments import base as experiment_base
from modelbench.experiments import calibration
from modelbench.report import document, summary
from modelbench.report.results import Results
from modelbench.report.tables import table
from modelbench.report.verdicts import INCONCLUSIVE
from modelbench.systems.base import first_line

# The longest wait before the first run for a machine other work leaves idle for a few seconds
# (not the load average: it counts tasks that a CPU quota throttles as runnable).
QUIET_WAIT_S = 300
# The minutes that blocks for undecided comparisons may take by default (0: none added), however
# long the planned runs took. Not a total: a total below a plan that grew, or below the plan on a
# host slower than its estimates, would leave them none (a default run's 12 minutes against a
# total of 10 added none).
MORE_MINUTES = {"smoke": 0, "default": 3, "standard": 15, "full": 0}
# Without one of these: the posts' experiments in about 12 minutes of runs.
SIZE_HELP = {"smoke": "one block of tiny runs of every experiment, to check the machinery",
             "standard": "every experiment, longer runs (E5, E6 too)",
             "full": "every experiment with the posts' own counts and durations"}

log = functools.partial(print, flush=True)


def add_arguments(parser):
    sizes = parser.add_mutually_exclusive_group()
    for size, text in SIZE_HELP.items():
        sizes.add_argument(f"--{size}", dest="size", action="store_const", const=size, help=text)
    parser.set_defaults(size="default")
    parser.add_argument("--only", metavar="LIST",
                        help="experiments to run, comma-separated: " +
                        ", ".join(experiments.keys()) + " (default: those of the size)")
    parser.add_argument("--servers", metavar="LIST",
                        help="systems to run, comma-separated: " + ", ".join(systems.names()) +
                        " (default: all)")
    parser.add_argument("--target", action="append", default=[], metavar="NAME=URL",
                        help="run against a server started elsewhere (scripts/serve.sh on another "
                        "machine) instead of starting one; repeatable; only the servers named run, "
                        "and the runs that need a local process are reported as not measured")
    parser.add_argument("--client", choices=("ab", "wrk"), default="ab",
                        help="the load tool of E1b's /html runs (default ab, as the posts)")
    parser.add_argument("--blocks", type=int, metavar="N",
                        help="planned blocks of every part (default: each experiment's for the "
                        "size)")
    parser.add_argument("--minutes", type=float, metavar="M",
                        help="the minutes of runs after which no blocks are added for the "
                        "comparisons still undecided, the planned runs counted (default: those "
                        "blocks take at most 3 minutes after the planned runs, 15 with "
                        "--standard; 0: none added)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="the seed of the blocks' order (default: drawn, kept in "
                        "settings.json)")
    parser.add_argument("--posts-counts", action="store_true",
                        help="E1b with the posts' request counts (-n 2000 at -c 20, -n 20000 at "
                        "-c 200) instead of timed runs (--full does this)")
    parser.add_argument("--keep-db", action="store_true",
                        help="leave the private MariaDB running if this run started it")
    verb.add_results_dir(parser, "reproduce")
    parser.add_argument("--list", action="store_true",
                        help="print the plan (experiments, runs, an estimate of minutes) and "
                        "run nothing")
    parser.add_argument("--compare", nargs="+", metavar=("DIR", "DIR_B"),
                        help="compare two runs' summary.json, DIR_B against DIR (one run: it "
                        "against the reference run of its size in docs/reference/, the default "
                        "one where none of its size is there): which verdicts changed, each "
                        "headline figure's ratio; runs nothing")
    parser.add_argument("--report", metavar="DIR",
                        help="rewrite the report, summary.json and plots of an earlier run")
    parser.add_argument("--readme", metavar="DIR",
                        help="rewrite README.md's section on the results of a run from the "
                        "reference run in DIR (docs/reference/default); runs nothing")


def selected(args, parser):
    """(experiments, system names, remote targets) the arguments select."""
    try:
        chosen = ([experiments.get(k) for k in args.only.split(",") if k] if args.only else
                  [e for e in experiments.ALL if e.IN_DEFAULT or args.size != "default"])
    except KeyError as error:
        parser.error(f"--only: unknown experiment {error} ({', '.join(experiments.keys())})")
    if not chosen:
        parser.error("--only selects no experiment")
    try:
        targets = remote.parse(args.target)
    except remote.TargetSpecError as error:
        parser.error(str(error))
    if targets and args.servers:
        parser.error("--servers and --target do not mix: the targets are the servers that run")
    names = remote.system_names(targets) if targets else \
        (args.servers.split(",") if args.servers else systems.names())
    for name in names:
        if name not in systems.names():
            parser.error(f"--servers: unknown system '{name}' ({', '.join(systems.names())})")
    if args.blocks is not None and not 1 <= args.blocks <= 99:
        parser.error("--blocks must be from 1 to 99")
    if args.minutes is not None and not 0 <= args.minutes <= 1440:
        parser.error("--minutes must be from 0 to 1440")
    return chosen, names, targets


def make_plan(args, chosen, names):
    """{experiment key: its parts}, in the order they run (experiments.run_order)."""
    ctx = experiment_base.Context(args.size, names, args.client, args.posts_counts,
                                  calibration in chosen)
    plans = {experiment.KEY: experiment.plan(ctx) for experiment in experiments.run_order(chosen)}
    for part in (part for parts in plans.values() for part in parts):
        part.blocks = args.blocks or part.blocks
    return plans


def undecided(chosen):
    """Reads the undecided comparisons of a run's records: (what, bases) of each inconclusive
    side of the chosen experiments' claims, and of the calibration's targets."""
    def of(records):
        results = Results("", {r["id"]: r for r in records})
        found = [(f"{c.key} ({name})", side.bases) for e in chosen for c in e.claims(results)
                 for name, side in (("real", c.real), ("models", c.model))
                 if side.verdict == INCONCLUSIVE and side.bases]
        return found + (calibration.undecided(results) if calibration in chosen else [])
    return of


def budget_of(args):
    """The time of the blocks for undecided comparisons: --minutes M is the whole run's."""
    if args.minutes is not None:
        return blocks.Budget(60 * args.minutes)
    return blocks.Budget(60 * MORE_MINUTES[args.size], beyond_plan=True)


def minutes_of(budget):
    """settings.json's bound: "minutes", the whole run's (--minutes), or "more_minutes", the
    blocks' for undecided comparisons after the planned runs; the other null."""
    minutes = budget.seconds / 60
    return {"minutes": None if budget.beyond_plan else minutes,
            "more_minutes": minutes if budget.beyond_plan else None}


def print_plan(plans, parts, budget):
    rows = [[key, ", ".join(str(b) for b in sorted({p.blocks for p in ps})) or "–",
             str(plan.count(ps)), f"{estimate_plan_s(ps) / 60:.1f}"] for key, ps in plans.items()
            if ps]
    log(table(["experiment", "blocks", "runs", "minutes (estimate)"], rows))
    planned = estimate_plan_s(parts) / 60
    minutes = budget.seconds / 60 if any(part.more for part in parts) else 0
    if budget.beyond_plan:
        more = (f"; then at most {minutes:g} minutes of blocks for the comparisons still "
                "undecided" if minutes else "")
    else:
        more = (f"; then blocks for the comparisons still undecided until {minutes:g} minutes"
                if minutes > planned else "")
    log(f"\n{plan.count(parts)} runs planned, about {planned:.0f} minutes of runs{more} "
        "(install and build not counted)")


def versions(checkout, names):
    return {"systems": {name: systems.get(name).version(checkout) for name in names},
            "tools": {"ab": first_line(["ab", "-V"]).replace("This is ", ""),
                      "siege": first_line(["siege", "--version"], "SIEGE"),
                      "wrk": first_line(["wrk", "-v"]),
                      "mariadb": first_line(["/usr/sbin/mariadbd", "--version"])}}


def ending(directory, claims, settings, failed, plot_errors):
    """The terminal's ending: the verdicts by side and where everything is."""
    if claims:
        log(table(["claim", "real systems", "models"],
                  [[c.key, c.real.verdict, c.model.verdict] for c in claims]) + "\n")
    for name in ("report.md", "report.html", "summary.json", "results.csv"):
        log(f"== {name}: {os.path.join(directory, name)}")
    plots_ = sorted(f for f in os.listdir(directory) if f.endswith(".png"))
    log(f"== plots: {', '.join(os.path.join(directory, p) for p in plots_) or 'none'}")
    if plot_errors:
        log("== plots not drawn: " + "; ".join(plot_errors))
    log(f"== {settings.get('runs', 0)} runs in {settings.get('run_s', 0) / 60:.1f} min "
        f"({document.added_blocks(settings)}), "
        f"{settings.get('remeasured', 0)} measured again after other work polluted them")
    if failed:
        log(f"== {len(failed)} step(s) failed:")
        for step in failed:
            log(f"   {step.id}\t{step.cause}")


def ran(settings):
    """The experiments an earlier run ran (its settings), all when they do not say."""
    keys = settings.get("experiments")
    return [e for e in experiments.ALL if keys is None or e.KEY in keys]


def write_report(directory, chosen, settings):
    settings = {**settings, "machine": summary.recorded_machine(directory, settings)}
    results, claims, plot_errors = document.write(directory, chosen, settings)
    if costs := calibration.choices(results):  # for readers: the report's table holds them too
        document.write_json(os.path.join(directory, "calibration.json"), costs)
    failed = steps.read(directory)
    summary.write(directory, settings, claims, chosen, results, len(failed))
    return claims, settings, failed, plot_errors


def compare(directories, parser):
    """Prints the comparison of two runs, or of one with the reference of its size."""
    if len(directories) > 2:
        parser.error("--compare takes one run or two")
    try:
        runs = [summary.load(d) for d in directories]
        if len(directories) == 1:
            directories = [reference.directory(runs[0]["run"].get("size")), *directories]
            runs.insert(0, summary.load(directories[0]))
    except (OSError, ValueError) as error:
        parser.error(f"--compare: {error}")
    log(summary.compare(*runs, *directories)[0])
    return 0


def run(args, parser):
    if args.compare:
        return compare(args.compare, parser)
    if args.readme:
        try:
            changed = reference.rewrite(args.readme)
        except (OSError, ValueError, reference.ReadmeError) as error:
            parser.error(f"--readme: {error}")
        log(f"{reference.README}: " + ("its section rewritten from" if changed else
                                       "its section already what it is of") +
            f" {os.path.join(args.readme, 'summary.json')}")
        return 0
    chosen, names, targets = selected(args, parser)
    if args.report:
        settings = document.read_json(os.path.join(args.report, "settings.json"))
        ending(args.report, *write_report(args.report, chosen if args.only else ran(settings),
                                          settings))
        return 0
    plans = make_plan(args, chosen, names)
    skipped = []
    if targets:
        for key, parts in plans.items():
            plans[key], left_out = remote.split(parts, targets)
            skipped += left_out
    parts = [part for parts in plans.values() for part in parts]
    if args.list:
        print_plan(plans, parts, budget_of(args))
        for _, title, reason in skipped:
            log(f"not measured for a remote target: {title}: {reason}")
        return 0
    if not plan.count(parts):
        parser.error("nothing to run: the experiments chosen have no runs on these servers")
    log(f"== reproduce: size {args.size}, experiments {' '.join(e.KEY for e in chosen)}, "
        + (f"remote targets {' '.join(targets)}" if targets else f"servers {' '.join(names)}"))
    checkout = Checkout.from_environment()
    directory = verb.results_dir(checkout, "reproduce", args.results_dir)
    database, started_db = None, False
    try:
        database, started_db = verb.ready(checkout, [] if targets else parts, directory)
        return measure(args, checkout, directory, parts, chosen, names, targets, skipped,
                       database)
    finally:
        left_running(database, started_db, args.keep_db)


def measure(args, checkout, directory, parts, chosen, names, targets, skipped, database):
    db_pid = database.pid() if database.running() else None
    if db_pid is None:
        log(f"== mariadbd's CPU is not measured: no private MariaDB runs here ({database.dir})")
    if targets:
        with open(os.path.join(directory, "remote.md"), "w") as f:
            f.write(remote.section(targets, skipped))
    log("== checks")
    loads = [r.load for p in parts for g in p.groups for r in g.runs]
    with open(os.path.join(directory, "checks.txt"), "w") as f:
        f.write("\n".join(checks.system_checks(log, max(load.c for load in loads),
                                               max(load.connections for load in loads),
                                               max(load.held for load in loads))) + "\n")
    # A smoke run checks the machinery, not the figures: no waiting, one short warm-up slice.
    smoke = args.size == "smoke"
    warmup_max_s = 1 if smoke else WARMUP_MAX_S
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10 ** 6)
    settings = {"started": utc_now().isoformat(timespec="seconds"), "size": args.size,
                "command": verb.command("reproduce"), "build_dir": checkout.build_dir,
                "client": args.client, "experiments": [e.KEY for e in chosen], "systems": names,
                "remote": targets, "warmup_max_s": warmup_max_s,
                "versions": versions(checkout, names), "machine": machine.description(),
                "seed": seed, **minutes_of(budget_of(args))}
    gate = machine.QuietGate(log, idle_wait_s=0, max_attempts=1) if smoke else \
        machine.QuietGate(log)
    engine = Engine(directory, checkout, Recorder(directory, checkout, db_pid, log), gate, log,
                    targets, warmup_max_s=warmup_max_s, seed=seed)
    if not smoke:
        verb.wait_for_quiet(gate, QUIET_WAIT_S)
    started = datetime.datetime.now()
    records = []
    try:
        records = engine.run(parts, undecided(chosen), budget_of(args))
    finally:
        settings.update(run_s=round((datetime.datetime.now() - started).total_seconds()),
                        runs=len(records) or plan.count(parts), more_runs=engine.more_runs,
                        more_s=round(engine.more_s), remeasured=engine.remeasured)
        document.write_json(os.path.join(directory, "settings.json"), settings)
    log("== report")
    claims, settings, failed, plot_errors = write_report(directory, chosen, settings)
    ending(directory, claims, settings, failed, plot_errors)
    return 1 if failed or plot_errors else 0


def left_running(database, started_db, keep_db):
    """Stops the database this run started (unless --keep-db) and says what is left running."""
    if database is not None and started_db and not keep_db:
        database.stop()
    if database is None or not database.running():
        log("left running: nothing")
        return
    why = ("(--keep-db)" if started_db and keep_db else
           "(it was running before this run)" if not started_db else "(it did not stop)")
    log(f"left running: the private MariaDB in {database.dir} {why}; stop it with "
        f"{database.command('stop')}")
