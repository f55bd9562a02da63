"""The run engine of reproduce, bench and stress (docs/architecture.md, "engine"). A failed run
goes to steps.tsv with its cause and the others still run."""

import contextlib
import os
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from modelbench.engine import blocks, machine, plan, server, steps, warmup
from modelbench.engine.processes import CORES
from modelbench.engine.recorder import Recorder

# A lead-in of a server that forks (Apache, PHP-FPM) at -c 100 or more: it forks again the workers
# it let go since its last run at that point.
LEAD_FORK_S = 0.5
START_S = {True: 1.5, False: 0.3}  # a real system's launcher, a model's binary


def estimate_s(run, first=False):
    """A run's seconds, its warm-up (first: its first at its point) or lead-in included."""
    tool = run.load.kind
    return tool.estimate_s(run.load) + run.wait_s + \
        (warm_estimate_s(run, first) if tool.warmed else 0.0)


def warm_estimate_s(run, first=False):
    """A run's warm-up, the mean of a default run's (2026-12-04): a real server with a worker per
    connection (Apache, PHP-FPM) forked for 11 to 16 s at -c 100 or more when it started small and
    2 to 3 s when it had grown, for 9 s or 1 s at -c 20; Node.js's JIT took 2 to 5 slices, a C++
    model 1 or 2. A lead-in: LEAD_S, plus LEAD_FORK_S for such a server."""
    if not run.warm:
        return 0.0
    system = run.server.system
    forks = system.real and system.side == "blocking" and run.load.c >= 20
    if not first:
        return warmup.LEAD_S + 0.2 + (LEAD_FORK_S if forks and run.load.c >= 100 else 0.0)
    if forks:
        return 12.0 if run.load.c >= 100 else 5.0
    return (3 if system.real else 2) * warmup.SLICE_S


def estimate_plan_s(parts):
    """The plan's planned runs and its server starts."""
    total, seen = 0.0, set()
    for part, number, run in plan.planned_runs(parts):
        group = next(g for g in part.groups if run in g.runs)
        if id(group) not in seen or group.fresh:
            seen.add(id(group))
            total += START_S[group.server.real]
        total += estimate_s(run, first=run.base not in seen)
        seen.add(run.base)
    return total


@dataclass
class Progress:
    """'== [i/N] title (x min elapsed, about y min left)', scaled by real over estimated time."""

    log: Callable
    total: int
    estimate_s: float
    started: float = field(default_factory=time.monotonic)
    done: int = 0
    done_estimate_s: float = 0.0

    def step(self, title, run_estimate_s, planned=True):
        self.done += 1
        self.total += not planned
        elapsed = time.monotonic() - self.started
        scale = elapsed / self.done_estimate_s if self.done_estimate_s > 0 else None
        left = "" if scale is None or not planned else \
            f", about {max(0.0, self.estimate_s - self.done_estimate_s) * scale / 60:.1f} min left"
        self.log(f"== [{self.done}/{self.total}] {title}   ({elapsed / 60:.1f} min elapsed{left})")
        self.done_estimate_s += run_estimate_s if planned else 0.0


def server_key(group):
    """What makes a group's server the one a later part runs on without a restart (a server that
    had been running, as the posts measured): system, variant and flags. A group with a setup
    (E6's proxy), flags that earlier runs decide, a fresh one for each run, or no server needed
    has its own."""
    if group.around is not None or group.fresh or callable(group.flags) or \
            not any(run.load.kind.needs_server for run in group.runs):
        return id(group)
    return (group.server, tuple(group.flags))


@dataclass
class Held:
    """A group's server during its part; target None: none needed, or it did not start (cause)."""

    stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    target: object = None
    flags: tuple = ()
    cause: str = ""
    last_run: str = ""
    stop_failures: list = field(default_factory=list)  # why it did not stop cleanly


@dataclass
class Engine:
    """Runs plans into one results directory; remote: {server key: 'HOST:PORT'} started elsewhere;
    seed: the blocks' order (settings.json keeps it)."""

    directory: str
    checkout: object
    recorder: Recorder
    gate: machine.QuietGate = field(default_factory=machine.QuietGate)  # of a part's runs
    log: Callable = print
    remote: dict = field(default_factory=dict)
    warmup_max_s: float = warmup.MAX_S
    seed: int = 0
    remeasured: int = 0
    more_runs: int = 0
    more_s: float = 0.0  # the more_runs' real seconds
    started: list = field(default_factory=list)  # every ServerProcess, to account for at the end

    def __post_init__(self):
        steps.add(self.directory)
        self.held = {}  # server_key(group) -> Held: the servers up now
        self.references = {}  # base -> warmup.Slice of its last measured run
        self.records = []  # run()'s so far, which may decide later runs' flags

    def fail(self, run_id, cause, log_path=""):
        """A failure in steps.tsv."""
        steps.add(self.directory, steps.Step(run_id, steps.FAILED, cause, log_path))
        self.log(f"    FAILED: {cause}"
                 + (f" (log: {log_path})" if log_path else ""))

    def run(self, parts, undecided=blocks.no_comparisons, budget=blocks.Budget()):
        """The records of every part; undecided (engine.blocks) get more blocks within budget."""
        progress = Progress(self.log, plan.count(parts), estimate_plan_s(parts))
        groups = {run.base: group for part in parts for group in part.groups for run in group.runs}
        last_part = {server_key(group): i for i, part in enumerate(parts) for group in part.groups}
        measured = set()

        def measure(part, number, run):
            first = run.base not in measured
            measured.add(run.base)
            group = groups[run.base]
            held = self.held.get(server_key(group))
            if held is None:
                held = self.held[server_key(group)] = self._start(group, number)
            elif held.target is None and held.cause and not first:
                return None  # its server did not start: said once for each run
            planned = number <= part.blocks
            progress.step(f"{run.title} (block {number}/{part.blocks}"
                          f"{'' if planned else ', more'})", estimate_s(run, first), planned)
            held.last_run = f"{run.base}-b{number}"
            try:
                return self._run(run, number, held, (lambda: restart(group, number, held.last_run))
                                 if group.fresh else None)
            finally:
                if group.fresh:
                    self._stop_all([server_key(group)])

        def restart(group, number, run_id):
            """A fresh group's server again, for a run measured again: the first attempt's
            workers and heap would be the next one's "before"."""
            self._stop_all([server_key(group)])
            held = self.held[server_key(group)] = self._start(group, number)
            held.last_run = run_id
            return held

        def end_part(part):
            """Stops the servers no later part runs."""
            index = next(i for i, p in enumerate(parts) if p is part)
            self._stop_all([key for key in self.held if last_part.get(key, -1) <= index])

        scheduler = blocks.Scheduler(measure, estimate_s, undecided, budget=budget,
                                     rng=random.Random(self.seed), log=self.log, end_part=end_part)
        self.records = scheduler.records
        try:
            return scheduler.run(parts)
        finally:
            self.more_runs += scheduler.more_runs
            self.more_s += scheduler.more_s
            try:
                self._stop_all()
            finally:
                for process in self.started:  # any still running after an interruption
                    if process.running():
                        process.stop()

    def _flags(self, item):
        """A group's (or standalone run's) flags, once earlier runs decided them."""
        return tuple(item.flags(self.records) if callable(item.flags) else item.flags)

    def _start(self, group, number):
        """The group's server, started (or reached, when remote), or why it could not be."""
        key = group.server.key
        if not any(run.load.kind.needs_server for run in group.runs):
            return Held()
        if key in self.remote:
            return Held(target=server.Target(key, self.remote[key], None))
        try:
            run_flags = self._flags(group)
        except plan.EarlierRunsMissing as error:
            return Held(cause=str(error))
        return self.start(group.server, f"{group.runs[0].base}-b{number}", run_flags, group.around)

    def start(self, server_, run_id, run_flags=(), around=None):
        """Held server_ started with run_flags, logs raw/RUN_ID.server.*; around: see plan.Group."""
        held = Held(flags=(*server_.flags, *run_flags), last_run=run_id)
        prefix = os.path.join(self.directory, "raw", run_id)
        try:
            setup = held.stack.enter_context(around(self.checkout, prefix)) if around else \
                plan.Setup()
            command = server_.command(self.checkout, run_flags, setup.flags,
                                      files_dir=prefix + ".files", listen=setup.listen)
            held.target = server.start(server_.key, command, prefix, helper_pids=setup.pids,
                                       whole_status=not server_.behind_nginx, client=setup.client)
        except (server.TargetError, OSError) as error:
            held.cause = str(error)
            return held
        finally:
            if held.target is None:  # the setup, undone
                held.stack.close()
        self.started.append(held.target.process)
        held.stack.callback(lambda: self._check_stop(held))
        return held

    def _check_stop(self, held):
        """A server that does not exit 0 on SIGTERM, or leaves processes, fails its last run."""
        code, process = held.target.stop(), held.target.process
        if code is None:
            held.stop_failures.append("the server ignored SIGTERM and was killed")
        elif code != 0:
            held.stop_failures.append(f"the server exited with status {code} on SIGTERM")
        if process.left_behind:
            held.stop_failures.append("the server left processes of its tree behind, killed: "
                                      + ", ".join(process.left_behind))
        for cause in held.stop_failures:
            self.fail(held.last_run, cause, process.stderr_path)

    def _stop_all(self, keys=None):
        for key in list(self.held if keys is None else keys):
            self.held.pop(key).stack.close()

    def meta(self, run, number, attempt, flags):
        server_ = run.server
        return {"experiment": run.experiment, "server": server_.key, "label": server_.label(CORES),
                "system": server_.system.name, "calibrated": server_.calibrated,
                "variant": "cluster" if server_.cluster else "single", "base": run.base,
                "block": number, "attempt": attempt, "server_flags": " ".join(flags), **run.record}

    def _run(self, run, number, held, restart=None):
        """One run on held's server; restart(): a new server (Held) for each attempt after the
        first (a fresh group)."""
        target, flags = held.target, held.flags
        try:
            run = run.rated(self.records)
        except plan.EarlierRunsMissing as error:
            return self._failed(run, number, str(error))
        if not run.load.kind.needs_server:
            try:
                flags = (*run.server.flags, *self._flags(run))
            except plan.EarlierRunsMissing as error:
                return self._failed(run, number, str(error))
        elif target is None:
            return self._failed(run, number, held.cause or "no server")
        machine.wait_for_ports(run.load.connections, loopback=not self.remote, log=self.log)
        if not run.load.kind.measured:
            return self._attempt(run, number, 1, target, flags)

        def attempt_on(attempt):
            nonlocal target
            if attempt > 1 and restart is not None:
                again = restart()
                target = again.target
                if target is None:
                    return self._failed(run, number, again.cause or "no server")
            return self._attempt(run, number, attempt, target, flags)

        record, count = self.gate.measure(attempt_on)
        self.remeasured += count > 1
        return record

    def _failed(self, run, number, cause, meta=None):
        """A run not measured, before any attempt or in one (meta: its record's so far)."""
        run_id = f"{run.base}-b{number}"
        self.fail(run_id, cause)
        return self.recorder.failed(run_id, meta or self.meta(run, number, 1, ()), run.load, cause)

    def _attempt(self, run, number, attempt, target, flags):
        """One measurement of the run (warm-up or lead-in first): its record."""
        meta = self.meta(run, number, attempt, flags)
        load, warm, reference = run.load, None, self.references.get(run.base)
        if run.warm and load.kind.warmed:
            warm = warmup.warm_up(target, load.path, load.c, keepalive=load.kind.keepalive(load),
                                  reference=reference, max_s=self.warmup_max_s if reference is None
                                  else min(self.warmup_max_s, warmup.LEAD_MAX_S))
            meta["warmup"] = warm.as_record()
            self.log(f"    {'warm-up' if reference is None else 'lead-in'}: "
                     f"{warm.describe(target.local)}")
            if not warm.answered:
                return self._failed(run, number, f"GET {load.path} of {target.base_url} "
                                    "answered nothing during the warm-up" +
                                    (f" (server log {target.process.stderr_path})"
                                     if target.local else ""), meta)
            warmup.settle(target)
        rate = (warm.rate if warm else None) or (reference.requests_per_s if reference else None)
        record = self.record(f"{run.base}-b{number}", meta, target, load, rate=rate,
                             server=run.server, flags=flags)
        if record["status"] == "ok" and record["figures"].get("requests_per_s"):
            self.references[run.base] = warmup.measured_slice(record["figures"])
        return record

    def record(self, run_id, meta, target, load, **how):
        """One run of load on target, recorded; how: Recorder.measure's keywords."""
        record = self.recorder.measure(run_id, meta, target, load, **how)
        if record["status"] != "ok":
            self.fail(run_id, record["cause"], self.recorder.raw(run_id, "*"))
        return record
