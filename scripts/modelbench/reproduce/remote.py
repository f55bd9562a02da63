"""Remote targets: `reproduce.sh --target NAME=URL` runs the experiments against servers started
elsewhere (scripts/serve.sh on another machine) instead of starting its own. NAME is a server of
the plan (php, node, blocking, async, node-cluster, async-cluster); only the servers named run.

Nothing of a remote server is ours: it is not started or stopped, its /proc is out of reach, and
its CPU, threads and memory come from its own /status (modelbench.serverstatus), which only the
C++ servers have. A step that needs a local process is not measured for a remote target, and the
report says so: the standalone loop (E1a), the /tasks demo (it reads the server's task log on its
stderr), and every run whose server is started with flags of the step (E2 with --backlog 128, E6
behind the delaying proxy).

remote.tsv in the results directory lists the targets and the steps not measured, for the
report.
"""

import os
import re

from modelbench.reproduce.plan import SERVERS
from modelbench.tables import table

URL = re.compile(r"^http://([^/:\s]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})/?$")
FILE = "remote.tsv"


class TargetSpecError(ValueError):
    pass


def parse(specs):
    """{server key: 'HOST:PORT'} of the NAME=URL specifications; TargetSpecError on a bad one."""
    remote = {}
    for spec in specs:
        name, _, url = spec.partition("=")
        if name not in SERVERS:
            raise TargetSpecError(f"--target {spec}: '{name}' is not one of "
                                  f"{', '.join(SERVERS)}")
        match = URL.match(url)
        if match is None or not 0 < int(match.group(2)) < 65536:
            raise TargetSpecError(f"--target {spec}: '{url}' is not http://HOST:PORT")
        if name in remote:
            raise TargetSpecError(f"--target {name} is given twice")
        remote[name] = f"{match.group(1)}:{match.group(2)}"
    return remote


def systems(remote):
    """The systems (kinds) the targets are servers of."""
    return sorted({SERVERS[key].system for key in remote})


def not_measured(step):
    """Why the step cannot run against a remote server, or '' when it can."""
    if step.tool == "standalone":
        return "it runs the server's standalone loop as a local process"
    if step.tool == "tasks":
        return "it reads the task lines the server writes to its stderr"
    if step.tool == "calibrate":
        return "it starts the model with each cost it tries"
    if step.experiment == "E6":
        return "it puts the delaying proxy between a server it starts and the database"
    if step.flags:
        return f"it starts the server with {' '.join(step.flags)}"
    return ""


def split(steps, remote):
    """(steps to run, [(base, title, reason)] of those not measured) for the remote targets:
    only the servers named, and none of the steps that need a local process."""
    run, skipped, seen = [], [], set()
    for step in steps:
        if step.server.key not in remote:
            continue
        reason = not_measured(step)
        if not reason:
            run.append(step)
        elif step.base not in seen:
            seen.add(step.base)
            skipped.append((step.base, step.title.split(" (round")[0], reason))
    return run, skipped


def write(directory, remote, skipped):
    with open(os.path.join(directory, FILE), "w") as f:
        for key, address in remote.items():
            f.write(f"target\t{key}\thttp://{address}/\n")
        for base, title, reason in skipped:
            f.write(f"not measured\t{base}\t{title}\t{reason}\n")


def section(directory):
    """The report's section on the remote targets ('' when the run had none)."""
    path = os.path.join(directory, FILE)
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    targets = [[r[1], f"`{r[2]}`"] for r in rows if r[0] == "target"]
    skipped = [[r[2], r[3]] for r in rows if r[0] == "not measured"]
    parts = [
        "## Remote targets",
        "",
        "These servers were started elsewhere and reached over the network only (`--target`). "
        "Their CPU, threads, processes and RSS are what each reports of itself in `/status` "
        "(`resources.server`: the whole server, a cluster's workers summed), read before, "
        "during and after each run: CPU per request is the difference over the requests "
        "answered; peaks are readings every 0.5 s. The real peers have no `/status`: their "
        "CPU is not measured remotely. mariadbd's CPU is measured only when the private MariaDB "
        "runs on this machine; the kernel's listen-queue counters are this machine's, while a "
        "remote server's listen queue overflows on its own.",
        "",
        table(["server", "URL"], targets),
        "",
    ]
    if skipped:
        parts += ["Not measured for a remote target (they need a local process):", "",
                  table(["step", "why"], skipped), ""]
    return "\n".join(parts)
