"""What the engine runs, as data: Loads (one tool's settings), Runs (a load against a server),
Groups of runs sharing one started server, and Parts run one after the other, each in blocks.

A block runs every server once at each point (a Load), in a random order (no server always first
or after the same neighbour), the points' order reversed every other block (ABBA): why,
docs/experiments.md, "Blocks". Run ids are <base>-b<block>."""

import random
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from modelbench.engine import loads
from modelbench.systems import Server


class EarlierRunsMissing(Exception):
    """A run's flags or rate depend on earlier runs that did not give them (the calibrated cost,
    the capacity an offered load is a share of)."""


@dataclass(frozen=True)
class Load:
    """One tool's settings (its module in engine.loads says what each means): a part's point."""

    tool: str
    path: str = ""
    c: int = 1
    n: int = 0
    seconds: float = 0.0
    keepalive: bool = False
    variable_length: bool = False
    delay_s: float = 1.0
    delay_ms: int = 0
    rate: float = 0.0
    share: float = 0.0  # of the server's capacity: the run's capacity(records) sets the rate
    held: int = 0  # idle keep-alive connections held through the run (engine.loads.idle)
    heavy: float = 0.0  # heavy requests beside the light ones, a share of rate (loads.mixed)
    heavy_ms: float = 0.0  # what one heavy request alone takes

    def __post_init__(self):
        if self.tool not in loads.ALL:
            raise ValueError(f"unknown tool {self.tool!r}")

    @property
    def kind(self):
        return loads.ALL[self.tool]

    @property
    def connections(self):
        return self.kind.connections(self)

    def text(self):
        return self.kind.text(self)


@dataclass(frozen=True)
class Run:
    """One measured run; base: its id without the block. flags: beyond the server's own, or
    callable(records so far) once earlier runs decide them (the calibrated cost). capacity:
    callable(records so far), the server's requests/s that a load with a share is a share of.
    warm: warm-up and lead-ins. record: extra fields (e.g. rtt_ms). wait_s: what the run waits
    on its server beyond its load's estimate, for the estimate only."""

    base: str
    title: str
    experiment: str
    server: Server
    load: Load
    flags: object = ()
    warm: bool = True
    record: dict = field(default_factory=dict)
    capacity: Optional[Callable] = None
    wait_s: float = 0.0

    def rated(self, records):
        """This run, its load at its share of the capacity that records measured (itself when
        its load has no share); capacity raises EarlierRunsMissing when they did not."""
        if not self.load.share:
            return self
        rate = round(self.load.share * self.capacity(records), 1)
        return replace(self, load=replace(self.load, rate=rate))

    @property
    def local_only(self):
        """Why the run needs a server process of this machine ('' when a remote one will do)."""
        return self.load.kind.local_only or (
            "it starts the server with flags of its own" if self.flags else "")


@dataclass
class Setup:
    """A group's setup: server flags, pids whose CPU is the run's, not other work's, the address
    the server listens on, and client: where the load tools run (engine.netns.Link; None: here)."""

    flags: list = field(default_factory=list)
    pids: tuple = ()
    listen: str = "127.0.0.1:0"
    client: object = None


@dataclass
class Group:
    """Runs against one server process, one per point. around(checkout, log prefix): a context
    manager giving a Setup around the server's life (E6's delaying proxy). joins: its first
    block (a calibrated model, whose cost the blocks before decide). fresh: a server started for
    each of its runs and stopped after it (E8: what a run leaves, a forked worker or a grown
    heap, would be the next run's "before")."""

    runs: list
    around: Optional[Callable] = None
    joins: int = 1
    fresh: bool = False

    @property
    def server(self):
        return self.runs[0].server

    @property
    def flags(self):
        return self.runs[0].flags


@dataclass
class Part:
    """Groups up together, in `blocks` blocks; `more` for undecided ones, `step` at a time."""

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
    """Block `number`'s runs in order (points reversed in even blocks); only: the bases to run."""
    out = []
    for point in reversed(part.points()) if number % 2 == 0 else part.points():
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
    """(part, block, run) of every planned run, in an order a plan could take (for estimates)."""
    rng = random.Random(0)
    return [(part, number, run) for part in parts for number in range(1, part.blocks + 1)
            for run in block(part, number, rng)]
