"""ports-siege: siege as the siege tool runs it, from the client's own network namespace
(engine.netns, set up by the run's group: E10) whose ephemeral ports are narrowed; then who
holds the connections' TIME_WAIT, counted with `ss` on each side of the link right after the
run (a TIME_WAIT lasts 60 s on Linux: every connection the run closed is still counted), and how
many connects failed for want of a port ("Cannot assign requested address", EADDRNOTAVAIL)."""

import subprocess

from modelbench.engine.loads.base import StepFailed
from modelbench.engine.loads.siege import Siege
from modelbench.engine.measure import read

NO_PORT = "Cannot assign requested address"
SS_TIMEOUT_S = 30


def time_waits(command):
    """The TIME_WAIT sockets `ss` lists (command: its argv, with the filter)."""
    out = subprocess.run(command, capture_output=True, text=True, timeout=SS_TIMEOUT_S)
    if out.returncode != 0:
        raise StepFailed(f"{' '.join(command)}: {out.stderr.strip()}")
    return sum(1 for line in out.stdout.splitlines() if line.strip())


class PortsSiege(Siege):
    name = "ports-siege"
    local_only = "its client runs in a network namespace beside a server started for it"

    def connections(self, load):
        return 0  # its ports are its namespace's, not this machine's

    def text(self, load):
        return f"{super().text(load)} from a namespace of few ports"

    def summary(self, figures):
        return (f"{super().summary(figures)}; no port: {figures.get('no_port', '?')}, TIME_WAIT "
                f"client {figures.get('time_wait_client', '?')}, server "
                f"{figures.get('time_wait_server', '?')}")

    def run(self, attempt):
        target = attempt.target
        if target.client is None:
            raise StepFailed("ports-siege needs its group to give the client a namespace")
        super().run(attempt)
        link = target.client
        stderr = read(attempt.record["raw"][1])
        attempt.record["figures"].update(
            no_port=stderr.count(NO_PORT),
            time_wait_client=time_waits([*link.prefix, "ss", "-Htan", "state", "time-wait"]),
            time_wait_server=time_waits(["ss", "-Htan", "state", "time-wait", "src",
                                         f"{target.host}:{target.port}", "dst", link.inside]))
