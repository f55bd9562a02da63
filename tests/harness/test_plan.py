"""Plans as data: the order of blocks, what a remote target can run, the estimates."""

import random

from modelbench import remote, systems
from modelbench.engine import plan
from modelbench.engine.engine import estimate_plan_s, estimate_s, warm_estimate_s
from modelbench.experiments import e1a, e1b, e2
from modelbench.experiments.base import Context


def groups_of(names, loads=(plan.Load("ab", "/hello", n=10),)):
    ctx = Context("default", names)
    return [plan.Group([plan.Run(f"x-{s.key}-{load.c}", "", "X", s, load) for load in loads])
            for s in ctx.servers()]


def test_a_block_runs_every_server_at_each_point_in_a_random_order():
    loads = [plan.Load("ab", "/html", c, seconds=1) for c in (20, 200)]
    part = plan.Part(groups_of(["php", "node", "blocking", "async"], loads), blocks=4)
    rng = random.Random(3)
    orders = []
    for number in range(1, 5):
        runs = plan.block(part, number, rng)
        # Every server once at each point, the points one after the other, reversed every other
        # block so that a drift meets the two points of a flat claim from both sides.
        points = [run.load.c for run in runs]
        assert points == ([20] * 4 + [200] * 4 if number % 2 else [200] * 4 + [20] * 4)
        assert sorted(run.server.key for run in runs[:4]) == ["async", "blocking", "node", "php"]
        orders.append(tuple(run.server.key for run in runs[:4]))
    assert len(set(orders)) > 1  # the order is drawn, not turned
    assert plan.count([part]) == 32


def test_a_group_joins_at_its_block_and_more_blocks_run_only_the_undecided():
    loads = [plan.Load("ab", "/html", 20, seconds=1)]
    native, late = groups_of(["blocking", "async"], loads)
    late.joins = 2
    part = plan.Part([native, late], blocks=3)
    rng = random.Random(0)
    assert [r.server.key for r in plan.block(part, 1, rng)] == ["blocking"]
    assert len(plan.block(part, 2, rng)) == 2
    assert plan.count([part]) == 3 + 2
    assert [r.base for r in plan.block(part, 4, rng, only={"x-async-20"})] == ["x-async-20"]


def test_e1b_runs_every_concurrency_on_one_server_per_system():
    # Two parts, so that a block is short: the models, then the real systems.
    parts = e1b.plan(Context("default", ["node", "node4", "async"]))
    keys = [[g.server.key for g in part.groups] for part in parts]
    # The post's Node.js 4 beside today's, with the post's other driver, which runs only there.
    assert keys == [["async", "async-cluster"], ["node", "node-cluster", "node4", "node4-native"]]
    real = parts[1].groups
    assert real[-1].runs[0].server.own_flags == ("--driver", "mysql-native")
    assert [r.load.c for r in real[0].runs] == [1, 20, 200]
    # A cluster at -c 1 (one client, one busy worker) only beyond the default.
    assert [r.load.c for r in real[1].runs] == [20, 200]
    assert [r.load.c for r in e1b.plan(Context("standard", ["node"]))[0].groups[1].runs] == \
        [1, 20, 200]
    assert all(r.load.seconds == e1b.SECONDS["default"]
               for p in parts for g in p.groups for r in g.runs)
    assert parts[0].blocks == e1b.BLOCKS["default"] and parts[0].more > 0
    assert parts[1].blocks == e1b.REAL_BLOCKS["default"] == parts[0].blocks + 1
    posts = e1b.plan(Context("full", ["php"]))[0].groups[0].runs
    assert [r.load.n for r in posts] == [1000, 2000, 20000] and posts[0].load.seconds == 0


def test_the_calibrated_models_join_e1b_at_block_three_beside_their_real_systems():
    ctx = Context("default", ["php", "node", "blocking", "async"], calibrated=True)
    groups = {g.server.key: g for g in e1b.plan(ctx)[1].groups}
    assert groups["blocking-cal"].joins == groups["async-cal"].joins == e1b.JOINS == 3
    assert groups["php"].joins == 1 and callable(groups["async-cal"].flags)
    assert "async-cluster-cal" not in groups  # beyond the default only
    loops = {g.server.key for g in e1a.plan(ctx)[0].groups}
    assert {"blocking-cal", "async-cal", "php"} <= loops


def test_e2_runs_direct_and_through_nginx_in_two_parts():
    parts = e2.plan(Context("default", ["fpm", "node", "express", "async", "nginx"]))
    assert len(parts) == 2
    direct = {r.base for g in parts[0].groups for r in g.runs}
    assert direct == {"e2-node", "e2-node-backlog128", "e2-async", "e2-async-backlog128"}
    points = parts[1].points()
    assert [p.c for p in points] == [200, 100]


def test_a_remote_target_runs_only_what_needs_no_local_process():
    parts = e2.plan(Context("default", ["async"]))
    kept, skipped = remote.split(parts, {"async": "10.0.0.2:8082"})
    assert [r.base for g in kept[0].groups for r in g.runs] == ["e2-async"]
    assert [base for base, _, _ in skipped] == ["e2-async-backlog128"]
    assert "flags of its own" in skipped[0][2]


def test_target_names():
    assert remote.parse(["async-cluster=http://10.0.0.2:8082"]) == {
        "async-cluster": "10.0.0.2:8082"}
    for bad in ("apache=http://h:1", "async=http://h", "async=https://h:1"):
        try:
            remote.parse([bad])
        except remote.TargetSpecError:
            continue
        raise AssertionError(f"{bad} was accepted")


def test_estimates_add_up():
    parts = [plan.Part(groups_of(["blocking"]), blocks=2)]
    # One start (a model's), a 10-request run with its warm-up, then with a lead-in.
    run = parts[0].groups[0].runs[0]
    assert estimate_plan_s(parts) == 0.3 + estimate_s(run, first=True) + estimate_s(run)
    assert estimate_s(run, first=True) > estimate_s(run)


def test_a_forking_real_server_is_estimated_to_warm_up_longer():
    def warm(name, c, warm=True, first=True):
        server = Context("default", [name]).servers()[0]
        return warm_estimate_s(plan.Run("x", "", "X", server, plan.Load("ab", "/html", c=c, n=10),
                                        warm=warm), first)
    assert warm("php", 200) > warm("php", 20) > warm("php", 1) == warm("node", 200)
    assert warm("node", 200) > warm("async", 200) > warm("async", 200, warm=False) == 0
    # Led in: Apache forks again what it let go at -c 200 since its run before.
    assert warm("php", 200, first=False) > warm("php", 20, first=False) == \
        warm("async", 20, first=False) > 0


def test_every_system_has_what_the_harness_asks_of_it():
    for system in systems.ALL:
        assert system.side in ("blocking", "async")
        assert system.real or system.stands_for in systems.names()
        assert set(system.endpoints) <= set(systems.ENDPOINTS)
