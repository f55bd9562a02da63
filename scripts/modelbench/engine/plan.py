"""What the engine runs, as data: a Load (one tool's settings), a Run (a load against a server of a
system, with the flags it gets), Groups of runs that share one started server, and Parts that run
one after the other, each in blocks.

The servers a part compares are up at once, each started for its part and stopped at its end. A
part runs in blocks: a block runs every server once at each point (a Load) in turn, the servers of
a point in a random order, so that the runs a claim compares are made seconds apart, on the same
host, and no server always runs first or after the same neighbour; the points' order is reversed
every other block (ABBA), so that a figure compared between two points of one server (E1b's -c 20
and -c 200) meets a drift of the host from both sides. A group can join a part at a later block
(a calibrated model, whose cost the blocks before decide). After its planned blocks a part may
run more (`more` at most, `step` at a time) for the comparisons still undecided (engine.blocks).
Run ids are <base>-b<block>."""

import random
from dataclasses import dataclass, field
from typing import Callable, Optional

from modelbench.engine import loads
from modelbench.systems import Server


@dataclass(frozen=True)
class Load:
    """One tool's settings (its module in engine.loads says what each means to it), and the
    point of a part its runs are made at."""

    tool: str
    path: str = ""
    c: int = 1
    n: int = 0
    seconds: float = 0.0
    keepalive: bool = False
    variable_length: bool = False
    delay_s: float = 1.0
    delay_ms: int = 0

    def __post_init__(self):
        if self.tool not in loads.ALL:
            raise ValueError(f"unknown tool {self.tool!r}")

    @property
    def kind(self):
        """The tool itself (engine.loads), which the engine asks about the load."""
        return loads.ALL[self.tool]

    @property
    def connections(self):
        return self.kind.connections(self)

    def text(self):
        return self.kind.text(self)


@dataclass(frozen=True)
class Run:
    """One measured run: its base id (shared by its blocks), title, experiment, server and load.
    flags: server flags beyond the server's own, or a callable(the records so far) giving them
    once earlier runs decided them (the calibrated cost). warm: warm the server up at the load's
    concurrency before its first run, and lead in before each later one. record: extra fields
    for the run's record (e.g. rtt_ms). optional: a system that may not run on this machine (a
    driver too old for its Node.js): its failure is reported as not runnable here, with its
    cause, and fails nothing else."""

    base: str
    title: str
    experiment: str
    server: Server
    load: Load
    flags: object = ()
    warm: bool = True
    record: dict = field(default_factory=dict)
    optional: bool = False

    @property
    def local_only(self):
        """Why the run needs a server process of this machine ('' when a remote one will do)."""
        if self.load.kind.local_only:
            return self.load.kind.local_only
        if self.flags:
            return "it starts the server with flags of its own"
        return ""


@dataclass
class Setup:
    """What a group's setup gives its server: extra flags, and the pids of the processes it
    started (their CPU is part of every run, not other work that pollutes it)."""

    flags: list = field(default_factory=list)
    pids: tuple = ()


@dataclass
class Group:
    """Runs against one server process, one per point. around: a context manager factory
    (checkout, log prefix) -> a Setup, set up before the server starts and torn down after it
    stops (E6's delaying proxy). joins: the first block its runs take part in."""

    runs: list
    around: Optional[Callable] = None
    joins: int = 1

    @property
    def server(self):
        return self.runs[0].server

    @property
    def flags(self):
        return self.runs[0].flags


@dataclass
class Part:
    """Groups whose servers are up together and compared in `blocks` blocks; `more`: at most this
    many blocks more for a comparison whose verdict is still undecided, `step` at a time."""

    groups: list
    blocks: int = 1
    more: int = 0
    step: int = 2

    def points(self):
        """The loads of the part's runs, in the order they first appear."""
        return list(dict.fromkeys(run.load for group in self.groups for run in group.runs))

    def runs(self):
        return [run for group in self.groups for run in group.runs]


def block(part, number, rng, only=None):
    """The runs of block `number` in the order they run: each point in turn (their order reversed
    in even blocks), the runs of the groups that have joined, shuffled; only: the bases to run (a
    block of more for undecided comparisons), all when None."""
    points = part.points()
    if number % 2 == 0:
        points.reverse()
    out = []
    for point in points:
        runs = [run for group in part.groups if group.joins <= number for run in group.runs
                if run.load == point and (only is None or run.base in only)]
        rng.shuffle(runs)
        out += runs
    return out


def count(parts):
    """The runs the plan makes at least (its planned blocks)."""
    return sum(len(group.runs) * max(0, part.blocks - group.joins + 1)
               for part in parts for group in part.groups)


def planned_runs(parts):
    """(part, block, run) of every planned run, in an order a plan could take (for estimates:
    the order within a block is drawn when the block runs)."""
    rng = random.Random(0)
    return [(part, number, run) for part in parts for number in range(1, part.blocks + 1)
            for run in block(part, number, rng)]
