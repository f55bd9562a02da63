"""`reproduce.sh --target NAME=URL`: servers started elsewhere (scripts/serve.sh on another
machine), the only ones that run; a run that needs a local process (engine.plan.Run.local_only)
is not measured. What is measured of a remote server, and how: docs/network.md."""

import re
from dataclasses import replace

from modelbench import systems
from modelbench.report.tables import table

URL = re.compile(r"^http://([^/:\s]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})/?$")


class TargetSpecError(ValueError):
    pass


def parse(specs):
    """{server key: 'HOST:PORT'} of the NAME=URL specifications; TargetSpecError on a bad one."""
    known = {s.name for s in systems.ALL} | {f"{s.name}-cluster" for s in systems.ALL
                                             if s.cluster_flags}
    remote = {}
    for spec in specs:
        name, _, url = spec.partition("=")
        if name not in known:
            raise TargetSpecError(f"--target {spec}: '{name}' is not one of "
                                  f"{', '.join(sorted(known))}")
        match = URL.match(url)
        if match is None or not 0 < int(match.group(2)) < 65536:
            raise TargetSpecError(f"--target {spec}: '{url}' is not http://HOST:PORT")
        if name in remote:
            raise TargetSpecError(f"--target {name} is given twice")
        remote[name] = f"{match.group(1)}:{match.group(2)}"
    return remote


def system_names(remote):
    """The systems the targets are servers of."""
    return sorted({key.removesuffix("-cluster") for key in remote})


def split(parts, remote):
    """(the parts with only the remote servers' runs that a remote server can serve,
    [(base, title, reason)] of the runs left out)."""
    kept, skipped = [], {}
    for part in parts:
        groups = []
        for group in part.groups:
            if group.server.key not in remote:
                continue
            runs = []
            for run in group.runs:
                reason = run.local_only or ("it puts a proxy in front of the database of a "
                                            "server it starts" if group.around else "")
                if not reason:
                    runs.append(run)
                else:
                    skipped.setdefault(run.base, (run.base, run.title, reason))
            if runs:
                groups.append(replace(group, runs=runs))
        if groups:
            kept.append(replace(part, groups=groups))
    return kept, list(skipped.values())


def section(remote, skipped):
    """The report's section on the remote targets."""
    parts = [
        "## Remote targets", "",
        "These servers were started elsewhere and reached over the network only (`--target`). "
        "Their CPU, threads, processes and RSS are what each reports of itself in `/status` "
        "(`resources.server`: the whole server, a cluster's workers summed), read before, "
        "during and after each run: CPU per request is the difference over the requests "
        "answered; peaks are readings every 0.5 s. The real systems have no `/status`: their "
        "CPU is not measured remotely. mariadbd's CPU is measured only when the private MariaDB "
        "runs on this machine; the kernel's listen-queue counters are this machine's, while a "
        "remote server's listen queue overflows on its own.", "",
        table(["server", "URL"],
              [[key, f"`http://{address}/`"] for key, address in remote.items()]), "",
    ]
    if skipped:
        parts += ["Not measured for a remote target (they need a local process):", "",
                  table(["run", "why"], [[title, reason] for _, title, reason in skipped]), ""]
    return "\n".join(parts)
