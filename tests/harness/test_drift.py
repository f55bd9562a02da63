"""Verdicts on a drifting host: a simulated host whose speed steps ×1.9 at a random moment, or
follows a slow wave, with 5 % noise on every run, measured through the real scheduling (its
blocks, their random order, the blocks added for undecided comparisons and their time budget)
and judged by the real claim, on a fake clock. Against it, the design before blocks: two rounds,
each running one server's concurrencies after the other's, judged on the rounds' lowest to
highest ratio widened to ±10 %."""

import math
import random

import pytest

from modelbench import reproduce
from modelbench.engine import blocks, plan
from modelbench.engine.engine import estimate_s
from modelbench.experiments import e1b
from modelbench.experiments.base import MORE, Context
from modelbench.report.results import Results
from modelbench.report.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

SEEDS = 200
NOISE = 0.05  # per run, log-normal
DRIFT = 1.9
BUDGET_S = 600  # E1b given ten minutes, the default's budget when the design was chosen


class Host:
    """A host whose speed (1 is its fastest) steps by DRIFT at a random moment of the first
    `span_s` seconds, either way, or follows a wave of DRIFT from its slowest to its fastest over
    a period of 2 to 30 minutes; a fake clock that each run moves on by its estimate."""

    def __init__(self, rng, shape, span_s):
        self.now = 0.0
        if shape == "step":
            at, up = rng.uniform(0, span_s), rng.random() < 0.5
            self.speed = lambda t: 1.0 if (t < at) == up else 1 / DRIFT
        else:
            period, phase = rng.uniform(120, 1800), rng.uniform(0, 2 * math.pi)
            self.speed = lambda t: DRIFT ** (0.5 * math.sin(2 * math.pi * t / period + phase)
                                             - 0.5)

    def run(self, rng, rate, seconds):
        """A run of `seconds` that would serve `rate` on the fastest host: its requests/s."""
        self.now += seconds
        return rate * self.speed(self.now - seconds / 2) * math.exp(rng.gauss(0, NOISE))


def record(run, number, requests_per_s, probe_ms):
    return {"id": f"{run.base}-b{number}", "base": run.base, "block": number,
            "server": run.server.key, "label": run.server.key, "system": run.server.system.name,
            "variant": "single", "status": "ok", "started": "",
            "figures": {"requests_per_s": requests_per_s, "complete": 1000,
                        "server_cpu_s": 1.0, "db_cpu_s": 0.5, "machine_busy_pct": 90,
                        "server_cpu_pct_core": 100, "db_cpu_pct_core": 50,
                        "client_cpu_pct_core": 30, "probe_before_ms": probe_ms}}


def php_faster(records):
    claim = {c.key: c for c in e1b.faster_claims(Results("", {r["id"]: r for r in records}))}
    return claim["E1b PHP faster"].real


def blocks_design(seed, shape, php_over_node):
    """php and node at -c 1, 20 and 200 as E1b's default plans them, through the Scheduler."""
    rng = random.Random(seed)
    ctx = Context("default", ["php", "node"])
    part = plan.Part([e1b.group(ctx, s) for s in ctx.servers(needs="/html")],
                     e1b.BLOCKS["default"], MORE["default"])
    host = Host(rng, shape, span_s=sum(estimate_s(r) for _, _, r in plan.planned_runs([part])))
    rate = {"php": 1000 * php_over_node, "node": 1000}

    def measure(part_, number, run):
        served = host.run(rng, rate[run.server.key], estimate_s(run))
        return record(run, number, served, 6.0 / host.speed(host.now))

    scheduler = blocks.Scheduler(measure, estimate_s, reproduce.undecided([e1b]),
                                 clock=lambda: host.now, budget=blocks.Budget(BUDGET_S),
                                 rng=random.Random(seed), log=lambda *_: None)
    return php_faster(scheduler.run([part]))


def previous_design(seed, shape, php_over_node):
    """Two rounds; each runs php's -c 1, 20 and 200 and then node's (the other way in round 2),
    2-s runs after warm-ups of 3 s; the per-round ratios' range widened to ±10 %."""
    rng = random.Random(seed)
    run_s = 2 + 3
    host = Host(rng, shape, span_s=2 * 6 * run_s)
    rate = {"php": 1000 * php_over_node, "node": 1000}
    ratios = []
    for order in (("php", "node"), ("node", "php")):
        at_c20 = {}
        for server in order:
            for c in (1, 20, 200):
                served = host.run(rng, rate[server], run_s)
                if c == 20:
                    at_c20[server] = served
        ratios.append(at_c20["php"] / at_c20["node"])
    middle = sorted(ratios)[len(ratios) // 2 - 1:len(ratios) // 2 + 1]
    median = sum(middle) / len(middle)
    low, high = min(min(ratios), 0.9 * median), max(max(ratios), 1.1 * median)
    return REPRODUCED if low >= e1b.FASTER else NOT_REPRODUCED if high < e1b.FASTER else \
        INCONCLUSIVE


def shares(design, shape, php_over_node):
    verdicts = [design(seed, shape, php_over_node) for seed in range(SEEDS)]
    verdicts = [v if isinstance(v, str) else v.verdict for v in verdicts]
    return {v: verdicts.count(v) / SEEDS for v in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)}


@pytest.mark.parametrize("shape", ["step", "wave"])
def test_a_true_ratio_of_1_3_is_reproduced_on_a_drifting_host(shape):
    found = shares(blocks_design, shape, 1.3)
    assert found[REPRODUCED] >= 0.95 and found[NOT_REPRODUCED] == 0, found


@pytest.mark.parametrize("shape", ["step", "wave"])
def test_two_equal_systems_are_not_called_different(shape):
    found = shares(blocks_design, shape, 1.0)
    assert found[REPRODUCED] <= 0.05, found


def test_the_design_before_blocks_fails_on_a_step():
    found = shares(previous_design, "step", 1.3)
    assert found[REPRODUCED] < 0.95, found
