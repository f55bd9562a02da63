"""What the engine runs, as data: a Load (one tool's settings), a Run (a load against a server of a
system, with the flags it gets), Groups of runs that share one started server, and Parts that run
one after the other, each in rounds.

Each part runs `rounds` times; every round runs each group of the part once, the groups' order
turned by one place per round, so that no server always runs first or right after another. A group's
runs share one server process (its system, variant and flags): with `keep_up` (the default) that
server stays up across all the part's rounds and is stopped when the part is done; without, it is
started afresh in every round. Run ids are <base>-r<round>."""

from dataclasses import dataclass, field
from typing import Callable, Optional

from modelbench.systems import Server

# The tools a Load can name: load generators, a system's own loop without HTTP, the /tasks demo,
# and connections held open for a memory snapshot.
TOOLS = ("ab", "wrk", "siege", "standalone", "tasks", "hold")


@dataclass(frozen=True)
class Load:
    """One tool's settings. ab with `seconds` and `n` is cut at seconds, n its cap (`cut`); with
    seconds alone it runs the count its warm-up's rate makes; with n alone, n requests. wrk and
    siege run `seconds`; standalone `n` iterations; tasks asks /tasks once; hold opens `c`."""

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
        if self.tool not in TOOLS:
            raise ValueError(f"unknown tool {self.tool!r}")

    @property
    def cut(self):
        return self.tool == "ab" and bool(self.seconds and self.n)

    @property
    def connections(self):
        """New connections the load opens at most (for TIME_WAIT): one per request without
        keep-alive; unknown (the cap) for a timed run."""
        return self.c if self.tool in ("standalone", "tasks", "wrk") or self.keepalive else self.n

    def text(self):
        """The load as a title says it: 'ab -c 20 -t 3 /html'."""
        if self.tool == "ab":
            flags = ("-k " if self.keepalive else "") + ("-l " if self.variable_length else "")
            limit = f"-t {self.seconds:g}" if self.seconds else f"-n {self.n}"
            return f"ab {flags}-c {self.c} {limit} {self.path}"
        return {"wrk": f"wrk -c {self.c} -d {self.seconds:g}s {self.path}",
                "siege": f"siege -c {self.c} -d {self.delay_s:g} -t {self.seconds:g}S {self.path}",
                "standalone": f"the /html workload {self.n} times, no HTTP",
                "tasks": f"/tasks?delay_ms={self.delay_ms} demo",
                "hold": f"{self.c} idle keep-alive connections after GET {self.path}"}[self.tool]


@dataclass(frozen=True)
class Run:
    """One measured run: its base id (shared by its rounds), title, experiment, server and load.
    flags: server flags beyond the server's own, or a callable(results) giving them once earlier
    runs decided them (the calibrated cost). warm: warm the server up at the load's concurrency
    first. record: extra fields for the run's record (e.g. rtt_ms). optional: a system that may
    not run on this machine (a driver too old for its Node.js): its failure is reported as not
    runnable here, with its cause, and fails nothing else."""

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
        if self.load.tool == "standalone":
            return "it runs the system's standalone loop as a local process"
        if self.load.tool == "tasks":
            return "it reads the task lines the server writes to its stderr"
        if callable(self.flags) or self.flags:
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
    """Runs against one server process, in order. around: a context manager factory
    (checkout, log prefix) -> a Setup, set up before the server starts and torn down after it
    stops (E6's delaying proxy)."""

    runs: list
    around: Optional[Callable] = None

    @property
    def server(self):
        return self.runs[0].server

    @property
    def flags(self):
        return self.runs[0].flags


@dataclass
class Part:
    groups: list
    rounds: int = 1
    keep_up: bool = True


def ordered(parts):
    """(part, round, group) in the order they run (the module's head says which)."""
    for part in parts:
        groups = [g for g in part.groups if g.runs]
        for r in range(1, part.rounds + 1):
            turn = (r - 1) % len(groups) if groups else 0
            for group in groups[turn:] + groups[:turn]:
                yield part, r, group


def count(parts):
    return sum(len(group.runs) for _, _, group in ordered(parts))
