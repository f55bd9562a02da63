"""When each run is made: planned blocks, then, while time allows, more for comparisons whose
verdict straddles its bound (Kalibera and Jones, "Rigorous benchmarking in reasonable time").
A Scheduler knows nothing of servers or verdicts: measure(part, block, run) -> a record (None:
skipped); undecided(records) -> [(name, bases[, rank: lower first, 0 by default])];
estimate(run) -> seconds (the harness's tests give it a simulated host and a fake clock). The time
for more blocks is shared as docs/experiments.md says ("Time where the answer is undecided"), the
estimates scaled by real over estimated time so far."""

import random
import time
from dataclasses import dataclass, field
from typing import Callable

from modelbench.engine import plan


def no_comparisons(records):
    return []


@dataclass(frozen=True)
class Budget:
    """Real seconds that blocks for undecided comparisons may take. beyond_plan: that many for
    those blocks alone, however long the planned runs take (a plan that grew, or a host slower
    than the estimates, cannot leave them none). Otherwise a total for the whole run, less the
    time so far and the planned runs still to come at their scaled estimates."""
    seconds: float = 0.0
    beyond_plan: bool = False


@dataclass
class Scheduler:
    measure: Callable
    estimate: Callable
    undecided: Callable = no_comparisons
    clock: Callable = time.monotonic
    budget: Budget = Budget()
    rng: random.Random = field(default_factory=random.Random)
    log: Callable = print
    end_part: Callable = lambda part: None
    records: list = field(default_factory=list)
    more_runs: int = 0  # runs made beyond the planned blocks
    more_s: float = 0.0  # their real seconds

    def run(self, parts):
        """Runs every part, planned blocks then more: the records in the order made."""
        self.started = self.clock()
        self.estimated_done = 0.0
        totals = [sum(self.estimate(run) for _, _, run in plan.planned_runs([p])) for p in parts]
        for i, part in enumerate(parts):
            try:
                for number in range(1, part.blocks + 1):
                    for run in plan.block(part, number, self.rng):
                        self._one(part, number, run)
                self._more(part, totals[i], sum(totals[i + 1:]))
            finally:
                self.end_part(part)
        return self.records

    def scale(self):
        """Real seconds per estimated second, over the runs made so far (1 before any)."""
        return (self.clock() - self.started) / self.estimated_done if self.estimated_done else 1.0

    def _one(self, part, number, run):
        record = self.measure(part, number, run)
        if record is not None:
            self.records.append(record)
        self.estimated_done += self.estimate(run)

    def spare(self, rest_s):
        """Real seconds left for more blocks, rest_s the estimate of the planned runs to come."""
        if self.budget.beyond_plan:
            return self.budget.seconds - self.more_s
        return self.budget.seconds - (self.clock() - self.started) - self.scale() * rest_s

    def _more(self, part, own_s, rest_s):
        if part.more <= 0 or self.budget.seconds <= 0:
            return
        spare = self.spare(rest_s)
        share = spare * own_s / (own_s + rest_s) if own_s + rest_s else spare
        runs = {run.base: run for run in part.runs()}
        started, number = self.clock(), part.blocks
        while number < part.blocks + part.more:
            comparisons = [(c[0], c[1], c[2] if len(c) > 2 else 0)
                           for c in self.undecided(self.records) if c[1] and set(c[1]) <= set(runs)]
            if not comparisons:
                return
            cells, names, left = self.fitting(part, comparisons, runs,
                                              share - (self.clock() - started))
            if not cells:
                self.log(f"== no time left for more blocks for: {'; '.join(dict.fromkeys(left))}")
                return
            last = min(number + part.step, part.blocks + part.more)
            self.log(f"== blocks {number + 1}–{last} of {', '.join(sorted(cells))}, still "
                     f"undecided: {'; '.join(names)}"
                     + (f" (no time for: {'; '.join(left)})" if left else ""))
            while number < last:
                number += 1
                for run in plan.block(part, number, self.rng, only=cells):
                    begun = self.clock()
                    self._one(part, number, run)
                    self.more_runs += 1
                    self.more_s += self.clock() - begun

    def fitting(self, part, comparisons, runs, time_s):
        """What fits in time_s for `step` blocks, by rank then cost: (bases, names, left out)."""
        def cost(bases):
            return self.scale() * part.step * sum(self.estimate(runs[b]) for b in bases)
        cells, names, left = set(), [], []
        for name, bases, _ in sorted(comparisons, key=lambda c: (c[2], cost(set(c[1])))):
            if cost(cells | set(bases)) <= time_s:
                cells |= set(bases)
                names.append(name)
            else:
                left.append(name)
        return cells, list(dict.fromkeys(names)), left
