"""E1a: the /html workload N times in one process, no HTTP, timed like `time`: PHP's CLI loop,
Node.js's loop on its pool, the models' --standalone (docs/experiments.md, E1)."""

import re

from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments import e1b
from modelbench.experiments.base import (E1_SYSTEMS, SIDES, figures, keys_with, ms, not_runnable,
                                         nothing, part, server_order)
from modelbench.report.runtable import pair_cpu_row, pair_row
from modelbench.report.tables import fmt, interval_cell, table
from modelbench.report.verdicts import (NOT_MEASURED, Claim, Side, at_most, interval_text,
                                        ratio_side, within)

KEY = "E1a"
TITLE = "E1a — the /html workload in one process, no HTTP"
IN_DEFAULT = True
ITERATIONS = {"smoke": 200, "default": 1000, "standard": 1000, "full": 1000}
# Node.js with mysql, the real system's driver, took 9.771 s to PHP's 7.410 s: "about the same"
# around that ratio, ±25 %.
POST_RATIO = 9.771 / 7.410
LOW, HIGH = POST_RATIO * 0.8, POST_RATIO * 1.25


def base(key):
    return f"e1a-{key}"


def group(ctx, server):
    load = Load("standalone", n=ITERATIONS[ctx.size])
    return Group([Run(base(server.key), f"E1a {server.key}: {load.text()}", KEY, server, load,
                      flags=e1b.run_flags(server), warm=False)])


def plan(ctx):
    """The calibrated models' loops with the cost E1b's first blocks chose (E1b runs first)."""
    return [part(ctx, [group(ctx, s) for s in ctx.servers(E1_SYSTEMS, needs="standalone") +
                       ctx.mysql_native() + ctx.calibrated_servers()])]


def section(results):
    keys = keys_with(results, base)
    if not keys:
        return ""
    bases = [base(k) for k in keys]

    def own_cpu_ms(figures):
        return 1000 * (figures["user_s"] + figures["sys_s"]) / figures["iterations"]

    rows = [[label] + [fmt(results.figure(b, key), 3, suffix=" s") for b in bases]
            for label, key in (("real", "real_s"), ("user", "user_s"), ("sys", "sys_s"))]
    rows += [
        ["real (s) [95 % interval]"] +
        [interval_cell(results.interval(b, "real_s"), 3) for b in bases],
        ["blocks"] + [str(len(results.blocks(b))) for b in bases],
        ["iterations/s"] + [fmt(results.figure(b, "iterations_per_s"), 1) for b in bases],
        ["own CPU per iteration (ms)"] + [fmt(results.figure(b, own_cpu_ms), 3) for b in bases],
        ["CPU mariadbd per iteration (ms)"] + [fmt(results.per_request_ms(b, "db"), 3)
                                               for b in bases],
        ["CPU mariadbd, % of one core (of the machine)"] + [results.cpu(b, "db") for b in bases],
        ["peak threads"] + [fmt(results.figure(b, "server_peak_threads"), 0) for b in bases],
    ]
    post = {"real": ("7.410 s", "9.771 s"), "user": ("3.653 s", "6.707 s"),
            "sys": ("2.107 s", "1.399 s"), "iterations/s": ("135.0", "102.3")}
    for row in rows:
        row += list(post.get(row[0], ("", "")))
    n = results.figure(bases[0], "iterations") or 0
    commands = "; ".join(f"{results.label(k)}: `{results.record(base(k)).get('command', '?')}`"
                         for k in keys)
    commands = re.sub(r"/\S*/(servers|bin)/", r"\1/", commands)  # no checkout directories
    return "\n".join([
        f"## {TITLE}", "",
        f"The /html workload (two queries, both tables rendered) {n:.0f} times in one process, "
        "timed like `time`: real from the start to the exit, user and sys from the process's "
        "rusage; every block runs each loop once, in a random order, and the figures are medians "
        "over the blocks. PHP opens a new connection per iteration, as the page does; Node.js "
        "fires each iteration's two queries at once on its pool; the models do as their servers. "
        f"Commands (paths shortened): {commands}.", "",
        table([""] + [results.label(k) for k in keys] + ["post: PHP", "post: Node.js + mysql"],
              rows), "",
    ])


def own_ms(r, b, n):
    """Own CPU (user and sys, medians over the blocks) per iteration in ms."""
    return 1000 * (r.figure(b, "user_s") + r.figure(b, "sys_s")) / n


def claims(results):
    def side(blocking_like, async_like):
        b, a = base(blocking_like), base(async_like)

        def cause():
            def split(b_, name):
                n = results.figure(b_, "iterations")
                real, own = 1000 * results.figure(b_, "real_s") / n, own_ms(results, b_, n)
                return (f"{name} {real:.2f} ms per iteration: own CPU {own:.2f} ms, mariadbd "
                        f"{ms(results.per_request_ms(b_, 'db'))}, waiting "
                        f"{max(0.0, real - own):.2f} ms")
            slower = ("async" if results.figure(a, "real_s") > results.figure(b, "real_s")
                      else "blocking")
            return (f"the {slower} side is slower: {split(b, blocking_like)}; "
                    f"{split(a, async_like)}.")
        return ratio_side(
            results, a, b, "real_s", lambda interval: within(interval, LOW, HIGH),
            lambda interval: f"real time, {async_like} ÷ {blocking_like} within each block "
            f"{interval_text(interval, prefix='×')} (medians "
            f"{fmt(results.figure(b, 'real_s'), 3)} s and "
            f"{fmt(results.figure(a, 'real_s'), 3)} s)", cause)

    if not any(results.has(base(k)) for k in SIDES["real"] + SIDES["model"]):
        return []
    return [driver_claim(results), Claim(
        "E1a standalone",
        "Run in one process without HTTP, Node.js with the mysql driver takes about a third "
        "longer than PHP (E1a: 9.771 s vs 7.410 s real, ×1.32; ×1.02 with mysql-native)",
        f"real time of the async side ÷ the blocking side's within ×{LOW:.2f}–×{HIGH:.2f} "
        f"(×{POST_RATIO:.2f} ±25 %)", side(*SIDES["real"]), side(*SIDES["model"]))]


def driver_claim(r):
    """mysql-native against mysql, both on Node.js 4 (node4), the real side only: the models have
    no such driver."""
    native, mysql = base("node4-native"), base("node4")

    def own(b):
        return f"own CPU {own_ms(r, b, r.figure(b, 'iterations') or 1):.2f} ms per iteration"
    real = not_runnable(r, native) or ratio_side(
        r, native, mysql, "real_s", lambda interval: at_most(interval, 0.9),
        lambda interval: f"Node.js 4: real time with mysql-native ÷ with mysql within each block "
        f"{interval_text(interval, prefix='×')} (medians {fmt(r.figure(native, 'real_s'), 3)} s "
        f"and {fmt(r.figure(mysql, 'real_s'), 3)} s)",
        lambda: f"mysql-native: {own(native)}; mysql: {own(mysql)}.")
    return Claim("E1a mysql-native",
                 "Node.js with mysql-native runs the workload faster than with mysql (E1a: "
                 "7.533 s vs 9.771 s real)",
                 "real time with mysql-native ÷ with mysql ×0.9 or less", real,
                 Side("the models have no second driver", NOT_MEASURED))


plots = nothing


def headline(results):
    return figures(results, [(f"E1a {k} real (s)", base(k), {}) for k in server_order(results)],
                   "real_s")


def pair_rows(results, model, real):
    return (pair_row(results, "E1a real time (s)", base(model), base(real), "real_s", 3) +
            pair_cpu_row(results, "E1a mariadbd CPU per iteration (ms)", base(model), base(real),
                         "db"))
