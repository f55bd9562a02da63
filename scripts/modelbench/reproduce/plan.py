"""What reproduce.sh runs: the counts of each size and the ordered steps of the experiments.

Run ids: e1a-<server>, e1b-<server>-c<C>, e2-<server>, e3-<server>[-l], e4-tasks-<server>,
e4-siege-<server>; <server> is a model, or (E1b only) <model>-cluster: that model in its cluster
mode (its Kind's cluster flags; async-cluster).
"""

from dataclasses import dataclass, field

from modelbench.targets import KINDS

EXPERIMENTS = ("E1A", "E1B", "E2", "E3", "E4")
# The servers the experiments compare (the real peers are kinds too, not yet in the plan).
MODELS = ("blocking", "async")
CONCURRENCIES = (1, 20, 200)

# The blog's counts: standalone 1000; ab -c 20 -n 2000 and -c 200 -n 20000 (/html); ab -c 200
# -n 100000 (/hello); ab -n 1000 -c 5 (/factorial); siege -c 500 -d 1 for 5 minutes.
# pause_s lets the TIME_WAIT sockets of a run drain before the next.
SIZES = {
    "smoke": {"standalone_n": 1000, "html_n": (1000, 2000, 5000), "hello_n": 10000,
              "factorial_n": 1000, "tasks_delay_ms": 500, "siege_users": 500,
              "siege_time": "10S", "pause_s": 1},
    "default": {"standalone_n": 1000, "html_n": (500, 2000, 10000), "hello_n": 50000,
                "factorial_n": 1000, "tasks_delay_ms": 2000, "siege_users": 500,
                "siege_time": "60S", "pause_s": 5},
    "full": {"standalone_n": 1000, "html_n": (1000, 2000, 20000), "hello_n": 100000,
             "factorial_n": 1000, "tasks_delay_ms": 2000, "siege_users": 500,
             "siege_time": "5M", "pause_s": 10},
}


@dataclass
class Step:
    """One run: its id and title, the tool (standalone, ab, tasks, siege), the model and
    variant (single, cluster) of the server, and the tool's settings."""

    run_id: str
    title: str
    tool: str
    experiment: str
    model: str
    variant: str = "single"
    path: str = ""
    settings: dict = field(default_factory=dict)


def steps(size, experiments=EXPERIMENTS, models=MODELS):
    """The steps in the order they run: experiment by experiment, blocking before async."""
    s = SIZES[size]
    models = [m for m in MODELS if m in models]
    plan = []
    if "E1A" in experiments:
        for m in models:
            plan.append(Step(f"e1a-{m}", f"E1a {m}: --standalone {s['standalone_n']}",
                             "standalone", "E1a", m, settings={"n": s["standalone_n"]}))
    if "E1B" in experiments:
        variants = [(m, m, "single") for m in models]
        variants += [(f"{m}-cluster", m, "cluster") for m in models if KINDS[m].cluster_flags]
        for key, m, variant in variants:
            for c, n in zip(CONCURRENCIES, s["html_n"]):
                plan.append(Step(f"e1b-{key}-c{c}", f"E1b {key}: ab -c {c} -n {n} /html", "ab",
                                 "E1b", m, variant, "/html", {"c": c, "n": n}))
    if "E2" in experiments:
        for m in models:
            plan.append(Step(f"e2-{m}", f"E2 {m}: ab -c 200 -n {s['hello_n']} /hello", "ab",
                             "E2", m, path="/hello", settings={"c": 200, "n": s["hello_n"]}))
    if "E3" in experiments:
        n = s["factorial_n"]
        for m in models:
            plan.append(Step(f"e3-{m}", f"E3 {m}: ab -n {n} -c 5 /factorial", "ab", "E3", m,
                             path="/factorial", settings={"c": 5, "n": n}))
            plan.append(Step(f"e3-{m}-l", f"E3 {m}: ab -l -n {n} -c 5 /factorial", "ab", "E3",
                             m, path="/factorial",
                             settings={"c": 5, "n": n, "variable_length": True}))
    if "E4" in experiments:
        delay = s["tasks_delay_ms"]
        for m in models:
            plan.append(Step(f"e4-tasks-{m}", f"E4 {m}: /tasks?delay_ms={delay} demo", "tasks",
                             "E4", m, path="/tasks", settings={"delay_ms": delay}))
        for m in models:
            plan.append(Step(f"e4-siege-{m}",
                             f"E4 {m}: siege -c {s['siege_users']} -d 1 -t {s['siege_time']} "
                             "/json", "siege", "E4", m, path="/json",
                             settings={"c": s["siege_users"], "time": s["siege_time"]}))
    return plan
