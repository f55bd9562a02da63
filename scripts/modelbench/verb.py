"""What the verbs share (docs/architecture.md, "verbs"), and their way out, `run`: exit status 0
when all went well, 1 when a step or preparing failed, 2 on bad arguments (argparse), 128 + the
signal's number after SIGINT or SIGTERM (130, 143)."""

import os
import resource
import signal
import sys

from modelbench import prepare
from modelbench.engine import server
from modelbench.engine.processes import CORES
from modelbench.engine.recorder import utc_now


class VerbError(Exception):
    """Ends a verb with status 1, its message on stderr."""


def add_results_dir(parser, verb):
    parser.add_argument("--results-dir", metavar="DIR",
                        help=f"write there instead of results/{verb}-<UTC time>/")


def results_dir(checkout, verb, chosen):
    """The run's results directory (with raw/), made and shown."""
    directory = os.path.abspath(chosen or os.path.join(
        checkout.root, "results", f"{verb}-{utc_now():%Y%m%dT%H%M%SZ}"))
    os.makedirs(os.path.join(directory, "raw"), exist_ok=True)
    print(f"== results: {directory}", flush=True)
    return directory


def command(verb):
    return f"scripts/{verb}.sh " + " ".join(sys.argv[2:])


def open_files(needed):
    """Raises the soft open-file limit, which what this process starts inherits, to needed when
    the hard limit allows: (whether it is enough now, the check's text, its fix)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    soft_text, hard_text = ("unlimited" if v == resource.RLIM_INFINITY else v for v in (soft, hard))
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return True, f"open files: soft limit {soft_text} (these runs need about {needed}).", ""
    if hard != resource.RLIM_INFINITY and hard < needed:
        return False, (f"open files: hard limit {hard_text} is below the {needed} these runs "
                       "need; the load tools and the servers would fail with 'Too many open "
                       "files'."), "ulimit -Hn 65536 (as root, or nofile in limits.conf)"
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return True, (f"open files: soft limit {soft_text} is below the {needed} these runs need; "
                  f"raised to {needed} for this run's processes only (hard limit {hard_text})."), ""


def ready(checkout, parts, directory, open_files_needed=0, needs=(), build_targets=()):
    """prepare.ready for needs, build_targets and the plan's systems (and the delay proxy of its
    setups, the binaries of its load tools), then the open files: (the Database, whether this
    started it)."""
    groups = [group for part in parts for group in part.groups]
    binaries = {run.load.kind.binary for group in groups for run in group.runs} - {None}
    database, started = prepare.ready(
        checkout, {*needs, *(["build"] if binaries else []),
                   *(need for group in groups for need in group.server.system.needs)},
        [*build_targets, *sorted(binaries),
         *(["delay_proxy"] if any(group.around for group in groups) else [])], directory)
    enough, text, fix = open_files(open_files_needed)
    if not enough:
        raise VerbError(f"{text} Fix: {fix}")
    return database, started


def wait_for_quiet(gate, max_s):
    busy, waited = gate.wait_for_quiet(max_s)
    print(f"== measuring: other work kept {busy:.0f} % of the {CORES} cores busy (waited "
          f"{waited:.0f} s)", flush=True)


def run(verb, body):
    """body()'s exit status, or the way out: a failure's message, or a signal's (a second one
    does not cut short the stopping of what body started)."""
    signals = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    received = []

    def interrupt(number, frame):
        for each in signals:
            signal.signal(each, signal.SIG_IGN)
        received.append(number)
        raise KeyboardInterrupt

    for number in signals:
        signal.signal(number, interrupt)
    try:
        return body()
    except (prepare.PrepareError, server.TargetError, VerbError) as error:
        print(f"{verb}.sh: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # A reader that left early (`| head`): what body started has stopped; nothing to say.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except KeyboardInterrupt:
        number = received[0] if received else signal.SIGINT
        print(f"\n{verb}.sh: interrupted by {signal.Signals(number).name}", file=sys.stderr)
        return 128 + number
    finally:
        for number, handler in signals.items():
            signal.signal(number, handler)
