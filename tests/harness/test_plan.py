"""Plans as data: the order of rounds, what a remote target can run, the estimates."""

from modelbench import remote, systems
from modelbench.engine import plan
from modelbench.engine.engine import estimate_plan_s, warm_estimate_s
from modelbench.experiments import e1a, e1b, e2
from modelbench.experiments.base import Context


def groups_of(names):
    ctx = Context("default", names)
    return [plan.Group([plan.Run(f"x-{s.key}", "", "X", s, plan.Load("ab", "/hello", n=10))])
            for s in ctx.servers()]


def test_rounds_turn_the_order_by_one_place():
    part = plan.Part(groups_of(["php", "node", "blocking"]), rounds=3)
    order = [(r, g.server.key) for _, r, g in plan.ordered([part])]
    assert order == [(1, "php"), (1, "node"), (1, "blocking"),
                     (2, "node"), (2, "blocking"), (2, "php"),
                     (3, "blocking"), (3, "php"), (3, "node")]
    assert plan.count([part]) == 9


def test_e1b_runs_every_concurrency_on_one_server_per_system():
    parts = e1b.plan(Context("default", ["node", "async"]))
    keys = [g.server.key for g in parts[0].groups]
    assert keys == ["node", "node-cluster", "async", "async-cluster", "node-native"]
    # mysql-native may not run on this Node.js: its runs are optional, reported, failing nothing.
    assert all(r.optional for r in parts[0].groups[-1].runs)
    assert not any(r.optional for g in parts[0].groups[:-1] for r in g.runs)
    assert [r.load.c for r in parts[0].groups[0].runs] == [1, 20, 200]
    # A cluster at -c 1 (one client, one busy worker) only beyond the default.
    assert [r.load.c for r in parts[0].groups[1].runs] == [20, 200]
    assert [r.load.c for r in e1b.plan(Context("standard", ["node"]))[0].groups[1].runs] == \
        [1, 20, 200]
    assert all(r.load.seconds == e1b.SECONDS["default"] for g in parts[0].groups for r in g.runs)
    posts = e1b.plan(Context("full", ["php"]))[0].groups[0].runs
    assert [r.load.n for r in posts] == [1000, 2000, 20000] and posts[0].load.seconds == 0


def test_the_default_repeats_the_ratios_that_flipped_between_two_runs():
    parts = e2.plan(Context("default", ["fpm", "node", "express", "async", "nginx"]))
    rounds = {r.base: part.rounds for part in parts for g in part.groups for r in g.runs}
    assert {b for b, n in rounds.items() if n == 2} == {
        "e2n-fpm-c200", "e2n-node-nginx-c200", "e2n-express-nginx-c200"}
    assert rounds["e2n-async-nginx-c200"] == rounds["e2n-fpm-unix-c100"] == rounds["e2-node"] == 1
    assert [p.rounds for p in e1a.plan(Context("default", ["php", "node"]))] == [3]


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
    parts = [plan.Part(groups_of(["blocking"]), rounds=2, keep_up=True)]
    # One start (a model's), two rounds of a 10-request run with its warm-up.
    assert 4 < estimate_plan_s(parts) < 5


def test_a_forking_real_server_is_estimated_to_warm_up_longer():
    def warm(name, c, warm=True):
        server = Context("default", [name]).servers()[0]
        return warm_estimate_s(plan.Run("x", "", "X", server, plan.Load("ab", "/html", c=c, n=10),
                                        warm=warm))
    assert warm("php", 200) > warm("php", 20) > warm("php", 1) == warm("node", 200)
    assert warm("node", 200) > warm("async", 200) > warm("async", 200, warm=False) == 0


def test_every_system_has_what_the_harness_asks_of_it():
    for system in systems.ALL:
        assert system.side in ("blocking", "async")
        assert system.real or system.stands_for in systems.names()
        assert set(system.endpoints) <= set(systems.ENDPOINTS)
