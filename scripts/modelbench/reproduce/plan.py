"""What reproduce.sh runs: the servers, the counts of each size, and the ordered steps of the
experiments, every one repeated in rounds.

The servers are the four systems — php (Apache+PHP), node (Node.js), and the models standing for
them, blocking and async — and, in E1b, the cluster variants node-cluster and async-cluster
(their Kind's cluster flags: one worker per core), the follow-up the first post proposed. When
the calibration runs (modelbench.reproduce.calibration), E1a and E1b also run each model with the
CPU cost that makes it spend what its real system spends (blocking-cal, async-cal,
async-cluster-cal). E5 sweeps a per-request cost over the models, the blocking one also with
Apache's prefork lifecycle (blocking-prefork).

Each experiment runs its steps once per round, rounds one after the other, and the order of the
servers turns by one place every round, so that every server's repetitions are spread over the
experiment's time and none always runs first or right after another. Run ids are
<base>-r<round>, the base being cal-<real system>, e1a-<system>, e1b-<server>-c<C>,
e2-<system>[-backlog128], e3-<system>[-l], e4-tasks-<system>, e4-siege-<system> (500 users),
e4-siege1000-<system>, e5-<server>-c<C>-u<cost in µs> or E6's e6-<server>-c<C>-rtt<ms>
(modelbench.reproduce.e6). The calibration's search for a model's cost is one step
(cal-<model>) whose runs, cal-<model>-p<N>, it chooses as it goes.
"""

from dataclasses import dataclass, field

from modelbench.targets import KINDS

EXPERIMENTS = ("CAL", "E1A", "E1B", "E2", "E3", "E4", "E5", "E6")
NAMES = {"CAL": "calibration", "E1A": "E1a", "E1B": "E1b", "E2": "E2", "E3": "E3", "E4": "E4",
         "E5": "E5", "E6": "E6"}
SYSTEMS = ("php", "node", "blocking", "async")
CONCURRENCIES = (1, 20, 200)
# Linux capped every listen queue at 128 (net.core.somaxconn) before 5.4; E2's posts ran then.
POSTS_BACKLOG = 128
# A run that opened this many connections or more is followed by the size's pause, for its
# TIME_WAIT sockets; smaller ones by a second.
PAUSE_AFTER_CONNECTIONS = 5000


@dataclass(frozen=True)
class Server:
    """A server of the plan: its key (run ids, table columns), its system (a Kind), whether it
    runs in its cluster mode, whether it runs with the calibrated cost (flags the driver adds
    once the calibration chose them), and flags of its own; real: one of the real systems rather
    than a model."""

    key: str
    system: str
    cluster: bool = False
    calibrated: bool = False
    own_flags: tuple = ()

    @property
    def flags(self):
        return (KINDS[self.system].cluster_flags if self.cluster else ()) + self.own_flags

    @property
    def real(self):
        return self.system in ("php", "node")


# Table order: each real system beside the model that stands for it, and the model calibrated.
SERVERS = {s.key: s for s in (Server("php", "php"), Server("blocking", "blocking"),
                              Server("blocking-cal", "blocking", calibrated=True),
                              Server("node", "node"), Server("async", "async"),
                              Server("async-cal", "async", calibrated=True),
                              Server("node-cluster", "node", True),
                              Server("async-cluster", "async", True),
                              Server("async-cluster-cal", "async", True, calibrated=True))}
# Each model and the real system it stands for.
PAIRS = (("blocking", "php"), ("async", "node"), ("async-cluster", "node-cluster"))

# The posts' counts: standalone 1000; ab -c 20 -n 2000 and -c 200 -n 20000 (/html); ab -c 200
# -n 100000 (/hello); ab -n 1000 -c 5 (/factorial); siege -c 500 -d 1 for 5 minutes and -c 1000
# for 10. pause_s lets the TIME_WAIT sockets of a large run drain before the next. wrk_s: the
# length of a wrk run (--client wrk), which runs for a time rather than a count.
SIZES = {
    "smoke": {"standalone_n": 200, "html_n": (100, 400, 1000), "hello_n": 2000,
              "factorial_n": 200, "tasks_delay_ms": 300, "siege_time": "3S",
              "siege1000_time": "3S", "pause_s": 1, "repeats": 1, "wrk_s": 2},
    "default": {"standalone_n": 1000, "html_n": (500, 2000, 10000), "hello_n": 20000,
                "factorial_n": 1000, "tasks_delay_ms": 2000, "siege_time": "15S",
                "siege1000_time": "15S", "pause_s": 5, "repeats": 3, "wrk_s": 5},
    "full": {"standalone_n": 1000, "html_n": (1000, 2000, 20000), "hello_n": 100000,
             "factorial_n": 1000, "tasks_delay_ms": 2000, "siege_time": "5M",
             "siege1000_time": "10M", "pause_s": 10, "repeats": 3, "wrk_s": 15},
}
SIEGE_USERS = {"e4-siege": 500, "e4-siege1000": 1000}
# The real system each model is calibrated against.
CALIBRATED_AGAINST = {"blocking": "php", "async": "node"}
# The calibration's load: ab -c 20 on /html, as E1b's headline, this many requests per run.
CALIBRATION_C = 20
CALIBRATION_N = {"smoke": 300, "default": 2000, "full": 2000}
# E5's lines: the blocking model also with Apache's prefork lifecycle (pre-started threads,
# reused), to show what a thread per connection costs against it.
E5_SERVERS = (SERVERS["blocking"],
              Server("blocking-prefork", "blocking", own_flags=("--lifecycle", "prefork")),
              SERVERS["async"], SERVERS["async-cluster"])
# E5's runs: ab -c C -t E5_TIME_S -n e5_n, whichever ends first, so a slow point takes no longer
# than a fast one.
E5_SIZES = {
    "smoke": {"costs_us": (0, 1000), "concurrencies": (20,), "n": 400, "time_s": 2},
    "default": {"costs_us": (0, 100, 250, 500, 1000, 2000, 4000), "concurrencies": (20, 200),
                "n": 4000, "time_s": 4},
    "full": {"costs_us": (0, 100, 250, 500, 1000, 2000, 4000), "concurrencies": (20, 200),
             "n": 4000, "time_s": 8},
}


@dataclass
class Step:
    """One run: its id, the id it shares with its repetitions (base) and its round, a title, the
    tool (standalone, ab, tasks, siege), the server and the flags it gets beyond its own, the
    path and the tool's settings."""

    run_id: str
    base: str
    round: int
    title: str
    tool: str
    experiment: str
    server: Server
    path: str = ""
    flags: tuple = ()
    settings: dict = field(default_factory=dict)

    @property
    def pause(self):
        """Whether the size's pause follows: a siege run, or ab with many connections."""
        return self.tool == "siege" or self.settings.get("n", 0) >= PAUSE_AFTER_CONNECTIONS


def servers_of(systems, with_clusters=False, calibrated=False):
    """The plan's servers of these systems, in table order (with their cluster variants; with
    calibrated, also the models calibrated against a real system among them)."""
    return [s for s in SERVERS.values()
            if s.system in systems and (with_clusters or not s.cluster)
            and (not s.calibrated or calibrated and CALIBRATED_AGAINST[s.system] in systems)]


def calibrated_models(systems):
    """The models the calibration can calibrate: those whose real system is among systems."""
    return [m for m, real in CALIBRATED_AGAINST.items() if m in systems and real in systems]


def base_steps(size, experiment, systems, calibrated=False):
    """An experiment's steps of one round, as parts that run one after the other (each in its
    rounds), a part as groups of one server's steps: [[[(base, title, tool, server, path, flags,
    settings)]]]. calibrated: E1a and E1b also run the calibrated models."""
    s = SIZES[size]
    if experiment == "CAL":
        n = CALIBRATION_N[size]
        return [[[(f"cal-{SERVERS[real].key}",
                   f"calibration {real}: ab -c {CALIBRATION_C} -n {n} /html, CPU per request",
                   "ab", SERVERS[real], "/html", (), {"c": CALIBRATION_C, "n": n})]
                 for real in (CALIBRATED_AGAINST[m] for m in calibrated_models(systems))]]
    if experiment == "E6":
        # Imported here: e6 draws its plot with the plots module, which reads this one.
        from modelbench.reproduce import e6
        return e6.base_steps(size, servers_of(systems, with_clusters=True))
    if experiment == "E1A":
        n = s["standalone_n"]
        return [[[(f"e1a-{v.key}", f"E1a {v.key}: the /html workload {n} times, no HTTP",
                   "standalone", v, "", (), {"n": n})]
                 for v in servers_of(systems, calibrated=calibrated)]]
    if experiment == "E1B":
        return [[[(f"e1b-{v.key}-c{c}", f"E1b {v.key}: ab -c {c} -n {n} /html", "ab", v,
                   "/html", (), {"c": c, "n": n}) for c, n in zip(CONCURRENCIES, s["html_n"])]
                 for v in servers_of(systems, with_clusters=True, calibrated=calibrated)]]
    if experiment == "E5":
        e5 = E5_SIZES[size]
        n, t = e5["n"], e5["time_s"]
        return [[[(f"e5-{v.key}-c{c}-u{u}",
                   f"E5 {v.key} --cpu-per-request-us {u}: ab -c {c} -t {t} -n {n} /html", "ab",
                   v, "/html", ("--cpu-per-request-us", str(u)),
                   {"c": c, "n": n, "time_limit": t})
                  for c in e5["concurrencies"] for u in e5["costs_us"]]
                 for v in E5_SERVERS if v.system in systems]]
    if experiment == "E2":
        n = s["hello_n"]
        backlog = ("--backlog", str(POSTS_BACKLOG))
        return [[[(f"e2-{v.key}", f"E2 {v.key}: ab -c 200 -n {n} /hello", "ab", v, "/hello",
                   (), {"c": 200, "n": n}),
                  (f"e2-{v.key}-backlog{POSTS_BACKLOG}",
                   f"E2 {v.key} --backlog {POSTS_BACKLOG}: ab -c 200 -n {n} /hello", "ab", v,
                   "/hello", backlog, {"c": 200, "n": n})] for v in servers_of(systems)]]
    if experiment == "E3":
        n = s["factorial_n"]
        return [[[(f"e3-{v.key}", f"E3 {v.key}: ab -n {n} -c 5 /factorial", "ab", v,
                   "/factorial", (), {"c": 5, "n": n}),
                  (f"e3-{v.key}-l", f"E3 {v.key}: ab -l -n {n} -c 5 /factorial", "ab", v,
                   "/factorial", (), {"c": 5, "n": n, "variable_length": True})]
                 for v in servers_of(systems)]]
    delay = s["tasks_delay_ms"]
    parts = [[[(f"e4-tasks-{v.key}", f"E4 {v.key}: /tasks?delay_ms={delay} demo", "tasks", v,
                "/tasks", (), {"delay_ms": delay})] for v in servers_of(systems)]]
    for prefix, users in SIEGE_USERS.items():
        duration = s["siege_time" if users == 500 else "siege1000_time"]
        parts.append([[(f"{prefix}-{v.key}",
                        f"E4 {v.key}: siege -c {users} -d 1 -t {duration} /json", "siege", v,
                        "/json", (), {"c": users, "time": duration})]
                      for v in servers_of(systems)])
    return parts


def steps(size, experiments=EXPERIMENTS, systems=SYSTEMS, repeats=None):
    """The steps in the order they run: experiment by experiment (E4: the demo, then each siege),
    each in `repeats` rounds (the size's by default) with the servers' order turned by one
    place every round. The calibration's rounds measure the real systems; then one step per
    model searches its cost."""
    repeats = repeats or SIZES[size]["repeats"]
    calibrated = "CAL" in experiments and bool(calibrated_models(systems))
    plan = []
    for experiment in (e for e in EXPERIMENTS if e in experiments):
        for groups in base_steps(size, experiment, systems, calibrated):
            if not groups:  # e.g. the calibration without a model and its real system
                continue
            for r in range(1, repeats + 1):
                turn = (r - 1) % len(groups)
                for group in groups[turn:] + groups[:turn]:
                    for base, title, tool, server, path, flags, settings in group:
                        plan.append(Step(f"{base}-r{r}", base, r,
                                         f"{title} (round {r}/{repeats})", tool,
                                         NAMES[experiment], server, path, flags, settings))
        if experiment == "CAL":
            n = CALIBRATION_N[size]
            plan += [Step(f"cal-{m}", f"cal-{m}", 1,
                          f"calibration {m}: its cost, searched until its CPU per request over "
                          f"mariadbd's is {CALIBRATED_AGAINST[m]}'s", "calibrate",
                          NAMES[experiment], SERVERS[m], "/html", (),
                          {"c": CALIBRATION_C, "n": n}) for m in calibrated_models(systems)]
    return plan
