"""E4 (docs/experiments.md): the deferred task (/tasks?delay_ms=: the order of three log lines)
and /json under `siege -c 500 -d 1` and `-c 1000 -d 1`, the four servers' crowds in blocks."""

from modelbench.engine.plan import Group, Load, Part, Run
from modelbench.experiments.base import (NO_FAILURES, SIDES, cpu_per_request, figures,
                                         keys_with, machine_split, ms, nothing, part,
                                         run_table)
from modelbench.report import statistics
from modelbench.report.runtable import load_rows, pair_row
from modelbench.report.tables import fmt, interval_cell
from modelbench.report.verdicts import (Claim, about, all_of, at_least, at_most, interval_text,
                                        judged, needs, ratio_side)

KEY = "E4"
TITLE = "E4 — the deferred task, and /json under siege"
IN_DEFAULT = True
DELAY_MS = {"smoke": 300, "default": 2000, "standard": 2000, "full": 2000}
# siege's seconds per run (500, 1000 users; the posts: 5 and 10 min; why: docs/experiments.md)
SIEGE_S = {"smoke": (3, 3), "default": (3, 4), "standard": (10, 10), "full": (300, 600)}
BLOCKS = {"smoke": 1, "default": 2, "standard": 5, "full": 2}
USERS = (500, 1000)
SIMILAR = 1.25  # "about 990 trans/s for both": within ×0.8–×1.25
CROWD_FASTER = 1.2  # the post: 1990 / 1437 = ×1.38
CROWD_CONCURRENCY = 10  # the post: 281 / 5.6 = ×50


def tasks_base(key):
    return f"e4-tasks-{key}"


def siege_base(key, users):
    return f"e4-siege-{key}" if users == 500 else f"e4-siege{users}-{key}"


def plan(ctx):
    tasks = Load("tasks", "/tasks", delay_ms=DELAY_MS[ctx.size])
    demo = [Group([Run(tasks_base(s.key), f"E4 {s.key}: {tasks.text()}", KEY, s, tasks,
                       warm=False)]) for s in ctx.servers(needs="/tasks")]
    loads = [Load("siege", "/json", users, seconds=seconds, delay_s=1)
             for users, seconds in zip(USERS, SIEGE_S[ctx.size])]
    crowds = [Group([Run(siege_base(s.key, load.c), f"E4 {s.key}: {load.text()}", KEY, s, load)
                      for load in loads])
              for s in ctx.servers(needs="/json")]
    # The demo is a demonstration, not a measurement: one block, its outcome in every run.
    return [Part(demo, 1), part(ctx, crowds, BLOCKS)]


def section(results):
    parts = []
    for key in keys_with(results, tasks_base):
        b = tasks_base(key)
        if not results.ok(b):
            parts += [f"**{key}**: the demo failed: {results.record(b).get('cause')}", ""]
            continue
        after = results.values(b, "task_two_after_response")
        response = statistics.every(results.values(b, "response_ms")).text(0, suffix=" ms")
        parts += [f"**{key}** — response after {response}; task two logged after the response "
                  f"arrived in {sum(after)} of {len(after)} runs:",
                  "", "```"] + results.record(b)["timeline"] + ["```", ""]
    if parts:
        delay = next((results.figure(tasks_base(k), "delay_ms") for k in
                      keys_with(results, tasks_base) if results.ok(tasks_base(k))), None)
        parts = [f"### `/tasks?delay_ms={fmt(delay, 0)}`", "",
                 "Task one is logged, task two is scheduled after the delay (a timer on the "
                 "Node.js side, a sleep of the worker on the Apache+PHP side), task three is the "
                 "response. Server lines are the server's stderr (Apache's error log for php; "
                 "UTC); client lines are this script's request.", ""] + parts
    for users in USERS:
        bases = [siege_base(k, users) for k in keys_with(results, lambda k: siege_base(k, users))]
        if not bases:
            continue
        extra = [[label] + [fmt(results.figure(b, key), digits) for b in bases]
                 for label, key, digits in (("siege transactions", "complete", 0),
                                            ("availability (%)", "availability_pct", 2),
                                            ("siege concurrency", "siege_concurrency", 2))]
        extra.append(["siege concurrency [95 % interval]"] +
                     [interval_cell(results.interval(b, "siege_concurrency"), 2) for b in bases])
        post = ("about 990 trans/s for both" if users == 500 else
                "Node.js 1437 trans/s, PHP+Apache 1990, siege concurrency 281 vs 5.6 (10 minutes)")
        parts += run_table(results, f"/json under `siege -c {users} -d 1 -t "
                           f"{results.record(bases[0]).get('seconds'):g}S`", bases,
                           load_rows(results, bases, extra), intro=f"The post: {post}.")
    if not parts:
        return ""
    return "\n".join([
        f"## {TITLE}", "",
        "siege 4.0.7 with `scripts/siegerc` (a `limit` of 1024 users; HTTP/1.1, a new connection "
        "per transaction, as the post's defaults). The mean is siege's 'Concurrency' divided by "
        "its transaction rate; siege prints single times with 10 ms resolution, so its "
        "percentiles are multiples of 10 ms. siege's 'concurrency' is the time its users spent "
        "waiting for responses over the elapsed time: the requests in flight on average.", "",
    ] + parts)


def deferred_claim(r):
    def side(blocking_like, async_like):
        b, a = tasks_base(blocking_like), tasks_base(async_like)
        if not (r.ok(b) and r.ok(a)):
            return needs(b, a)
        delay = r.figure(a, "delay_ms")
        response = {x: statistics.every(r.values(x, "response_ms")) for x in (b, a)}
        after = {x: statistics.every(r.values(x, "task_two_after_response")) for x in (b, a)}
        verdicts = [at_most(response[a], delay / 2), at_least(after[a], 1),
                    at_least(response[b], delay), at_most(after[b], 0)]
        evidence = (f"delay {delay:.0f} ms. " + "; ".join(
            f"{name}: response after {interval_text(response[x], 0, suffix=' ms')}, task two "
            f"after it in {sum(r.values(x, 'task_two_after_response'))} of "
            f"{len(r.values(x, 'task_two_after_response'))} runs"
            for name, x in ((blocking_like, b), (async_like, a))))
        return judged(evidence, all_of(*verdicts), lambda: "the task log of the first run: " + (
            " / ".join(f"{name}: " + ", ".join(line.split("  ", 2)[-1]
                                               for line in r.record(x).get("timeline", []))
                       for name, x in ((blocking_like, b), (async_like, a)))) + ".",
            response[a], (b, a))

    return Claim("E4 deferred task",
                 "The deferred task runs after the response on the Node.js side and before it on "
                 "the Apache+PHP side (E4)",
                 "in every run: the async side answers within half the delay and logs task two "
                 "after the response; the blocking side answers after the delay, task two first",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def siege_claims(r):
    def similar_side(blocking_like, async_like):
        b, a = siege_base(blocking_like, 500), siege_base(async_like, 500)
        rate = r.ratio([a, b], "requests_per_s")
        failed = r.rate([b, a], "failed", lambda f: f.get("complete", 0) + f.get("failed", 0))
        if rate is None or failed is None:
            return needs(b, a)
        evidence = (f"{async_like} ÷ {blocking_like} within each block "
                    f"{interval_text(rate, prefix='×')} (medians "
                    f"{fmt(r.figure(b, 'requests_per_s'))} and "
                    f"{fmt(r.figure(a, 'requests_per_s'))} trans/s); failed transactions "
                    f"{failed.text()}")
        return judged(evidence, all_of(about(rate, 1.0, SIMILAR), at_most(failed, NO_FAILURES)),
                      lambda: "; ".join(
                          f"{name}: {cpu_per_request(r, x)}, siege concurrency "
                          f"{fmt(r.figure(x, 'siege_concurrency'), 1)}, {machine_split(r, x)}"
                          for name, x in ((blocking_like, b), (async_like, a))) + ".",
                      rate, (b, a))

    def crowd_side(blocking_like, async_like, key, threshold):
        """The rate: blocking ÷ async; the concurrency: async ÷ blocking."""
        b, a = siege_base(blocking_like, 1000), siege_base(async_like, 1000)
        unit = "trans/s" if key == "requests_per_s" else "siege concurrency"
        first, second = (b, a) if key == "requests_per_s" else (a, b)
        return ratio_side(
            r, first, second, key, lambda interval: at_least(interval, threshold),
            lambda interval: f"{'blocking ÷ async' if first == b else 'async ÷ blocking'} side "
            f"within each block {interval_text(interval, prefix='×')} (medians: {blocking_like} "
            f"{fmt(r.figure(b, key))}, {async_like} {fmt(r.figure(a, key))} {unit})",
            lambda: "; ".join(
                f"{name}: {fmt(r.figure(x, 'requests_per_s'))} trans/s, mean "
                f"{ms(r.figure(x, 'mean_ms'), 0)}, {cpu_per_request(r, x)}, {machine_split(r, x)}"
                for name, x in ((blocking_like, b), (async_like, a))) + ".")

    return [
        Claim("E4 siege 500",
              "Under siege -c 500 -d 1 both serve about the same transaction rate without "
              "failures (E4: about 990 trans/s each)",
              f"async side ÷ blocking side within ×{1 / SIMILAR:.1f}–×{SIMILAR}, failed "
              f"transactions at most one in {1 / NO_FAILURES:,.0f}",
              similar_side(*SIDES["real"]), similar_side(*SIDES["model"])),
        Claim("E4 siege 1000 rate",
              "At 1000 users Apache+PHP serves more transactions/s than Node.js (E4: 1990 vs "
              "1437 trans/s)",
              f"blocking side ÷ async side ×{CROWD_FASTER} or more",
              *(crowd_side(*side, "requests_per_s", CROWD_FASTER) for side in SIDES.values())),
        Claim("E4 siege 1000 concurrency",
              "At 1000 users Node.js shows a far higher siege concurrency, its requests queued "
              "in the one event loop (E4: 281 vs 5.6)",
              f"siege concurrency of the async side ÷ the blocking side's ×{CROWD_CONCURRENCY}"
              " or more",
              *(crowd_side(*side, "siege_concurrency", CROWD_CONCURRENCY)
                for side in SIDES.values())),
    ]


def claims(results):
    out = [deferred_claim(results)] if keys_with(results, tasks_base) else []
    if keys_with(results, lambda k: siege_base(k, 500)):
        out += siege_claims(results)
    return out


plots = nothing


def headline(results):
    return figures(results, [(f"E4 {k} siege -c {users} trans/s", siege_base(k, users),
                              {"concurrency": users})
                             for users in USERS
                             for k in keys_with(results, lambda k: siege_base(k, users))],
                   "requests_per_s", 1)


def pair_rows(results, model, real):
    rows = [row for users in USERS for row in pair_row(
        results, f"E4 siege -c {users} trans/s", siege_base(model, users), siege_base(real, users),
        "requests_per_s")]
    return rows + pair_row(results, "E4 siege -c 1000 concurrency", siege_base(model, 1000),
                           siege_base(real, 1000), "siege_concurrency", 2)
