"""The Scheduler on a fake clock: planned blocks first, then more blocks for the undecided only,
`blocks` at a time, at most `more`, while the time left allows, in fair shares between parts."""

import random

from modelbench.engine import blocks, plan
from modelbench.experiments.base import Context

LOAD = plan.Load("ab", "/html", 20, seconds=1)


def part_of(names, planned=2, more=4, prefix="x"):
    ctx = Context("default", names)
    return plan.Part([plan.Group([plan.Run(f"{prefix}-{s.key}", "", "X", s, LOAD)])
                      for s in ctx.servers()], planned, more)


class Clock:
    def __init__(self):
        self.now = 0.0


def scheduler(clock, undecided=blocks.no_comparisons, budget_s=0.0, run_s=1.0, log=None,
              beyond_plan=False):
    made = []

    def measure(part, number, run):
        clock.now += run_s
        made.append((number, run.base))
        return {"id": f"{run.base}-b{number}", "base": run.base, "block": number}
    found = blocks.Scheduler(measure, lambda run: 1.0, undecided, clock=lambda: clock.now,
                             budget=blocks.Budget(budget_s, beyond_plan), rng=random.Random(1),
                             log=(log.append if log is not None else lambda *_: None))
    return found, made


def test_planned_blocks_only_without_a_budget():
    clock = Clock()
    found, made = scheduler(clock, undecided=lambda records: [("c", ("x-php", "x-node"))])
    found.run([part_of(["php", "node", "async"])])
    assert [n for n, _ in made] == [1, 1, 1, 2, 2, 2] and found.more_runs == 0


def test_more_blocks_go_to_the_undecided_comparisons_only_until_decided():
    clock, log = Clock(), []

    def undecided(records):
        n = sum(1 for r in records if r["base"] == "x-php")
        return [("php against node", ("x-php", "x-node"))] if n < 6 else []
    found, made = scheduler(clock, undecided, budget_s=100, log=log)
    found.run([part_of(["php", "node", "async"])])
    extra = [(n, base) for n, base in made if n > 2]
    assert sorted({base for _, base in extra}) == ["x-node", "x-php"]
    assert max(n for n, _ in extra) == 6 and found.more_runs == 8  # two steps of two blocks
    assert any("undecided: php against node" in line for line in log)


def test_more_blocks_stop_at_the_cap():
    clock = Clock()
    found, made = scheduler(clock, lambda records: [("c", ("x-php", "x-node"))], budget_s=1000)
    found.run([part_of(["php", "node"], planned=2, more=4)])
    assert max(n for n, _ in made) == 6


def test_more_blocks_stop_when_the_time_is_out():
    clock, log = Clock(), []
    found, made = scheduler(clock, lambda records: [("c", ("x-php", "x-node"))], budget_s=9,
                            log=log)
    found.run([part_of(["php", "node"], planned=2, more=8)])
    # 4 s planned; 5 s left; a step of two blocks of two runs costs 4 s: one step, not two.
    assert max(n for n, _ in made) == 4 and "no time left" in log[-1]


def test_a_part_leaves_the_parts_after_it_their_planned_runs_and_their_share():
    clock = Clock()
    comparisons = {"x": ("x-php", "x-node"), "y": ("y-php", "y-node")}
    found, made = scheduler(clock, lambda records: list(comparisons.items()), budget_s=24)
    found.run([part_of(["php", "node"], more=8), part_of(["php", "node"], more=8, prefix="y")])
    # 8 s planned in all, 16 s left, half of it for each part: two steps of 4 s each.
    assert max(n for n, base in made if base.startswith("x")) == 6
    assert max(n for n, base in made if base.startswith("y")) == 6
    assert clock.now <= 24


def test_a_comparison_of_another_part_gets_nothing_here():
    clock = Clock()
    found, made = scheduler(clock, lambda records: [("c", ("x-php", "elsewhere"))],
                            budget_s=100)
    found.run([part_of(["php", "node"])])
    assert max(n for n, _ in made) == 2


def test_when_time_is_short_the_cheapest_comparisons_get_their_blocks():
    clock, log = Clock(), []
    undecided = [("wide", ("x-php", "x-node", "x-async")), ("narrow", ("x-php", "x-node"))]
    found, made = scheduler(clock, lambda records: undecided, budget_s=11, log=log)
    found.run([part_of(["php", "node", "async"], planned=2, more=2)])
    # 6 s planned, 5 s left: two blocks of the narrow comparison's two runs (4 s) fit, of the
    # wide one's three (6 s) not: the narrow one gets its blocks.
    extra = [base for n, base in made if n > 2]
    assert sorted(set(extra)) == ["x-node", "x-php"]
    assert "still undecided: narrow (no time for: wide)" in log[0]


def test_time_beyond_the_plan_is_had_however_long_the_planned_runs_take():
    clock, log = Clock(), []
    comparisons = {"x": ("x-php", "x-node"), "y": ("y-php", "y-node")}
    # Every run takes 3 s against its 1-s estimate: the 8 planned runs take 24 s.
    found, made = scheduler(clock, lambda records: list(comparisons.items()), budget_s=16,
                            run_s=3.0, log=log, beyond_plan=True)
    found.run([part_of(["php", "node"], more=8), part_of(["php", "node"], more=8, prefix="y")])
    # 16 s beyond the plan, half for each part; a step of two blocks of two runs costs 12 s now
    # (the estimates scaled by the host's pace): x's 8 s do not fit it, y's 8 + 8 left do.
    assert max(n for n, base in made if base.startswith("x")) == 2
    assert max(n for n, base in made if base.startswith("y")) == 4
    assert found.more_runs == 4 and found.more_s == 12.0 <= 16
    # A total of 16 s, the planned runs counted, leaves none.
    clock = Clock()
    found, made = scheduler(clock, lambda records: list(comparisons.items()), budget_s=16,
                            run_s=3.0)
    found.run([part_of(["php", "node"], more=8), part_of(["php", "node"], more=8, prefix="y")])
    assert found.more_runs == 0
