"""E5, the crossover (docs/experiments.md asks and reads it): /html under ab while the CPU each
request costs (`--cpu-per-request-us`) sweeps from 0 to a few milliseconds. A part per cost: its
four servers compared in blocks."""

import math
import os
import re

from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments import calibration
from modelbench.experiments.base import (NO_MORE, SWEEP_BLOCKS, figures, interval_columns,
                                         interval_line, nothing, part, with_interval)
from modelbench.report.plots import Panel, Plot
from modelbench.report.statistics import median
from modelbench.report.summary import Figure
from modelbench.report.tables import fmt, interval_cell, table
from modelbench.report.verdicts import ratio

KEY = "E5"
TITLE = "E5 — the crossover: requests/s against the CPU each request costs"
IN_DEFAULT = False
RUN = re.compile(r"^e5-(.+)-c(\d+)-u(\d+)$")
# The models, the blocking one also with Apache's prefork lifecycle (pre-started threads, reused)
# to show what a thread per connection costs against it: (key, system, cluster, flags).
SERVERS = (("blocking", "blocking", False, ()),
           ("blocking-prefork", "blocking", False, ("--lifecycle", "prefork")),
           ("async", "async", False, ()), ("async-cluster", "async", True, ()))
LINES = [key for key, *_ in SERVERS]
COSTS_US = (0, 100, 250, 500, 1000, 2000, 4000)
SWEEP = {"costs_us": COSTS_US, "concurrencies": (20, 200), "seconds": 2}
SIZES = {"smoke": {"costs_us": (0, 1000), "concurrencies": (20,), "seconds": 1},
         "default": SWEEP, "standard": SWEEP, "full": {**SWEEP, "seconds": 5}}
# Each crossover: what it is, its label on the plot, the server the blocking model is compared
# with, and what it means that the crossover is not within the sweep.
CROSSOVERS = {"overtake": ("the blocking model overtakes the single event loop",
                           "blocking overtakes async", "async", "the single event loop ahead"),
              "cluster": ("the async cluster stops keeping up with the blocking model",
                          "cluster falls behind blocking", "async-cluster", "the cluster ahead")}
COLORS = {"blocking": "#c0392b", "blocking-prefork": "#c0392b", "async": "#2471a3",
          "async-cluster": "#1e8449"}


def plan(ctx):
    size = SIZES[ctx.size]
    loads = [Load("ab", "/html", c, seconds=size["seconds"]) for c in size["concurrencies"]]
    parts = []
    for u in size["costs_us"]:
        groups = [Group([Run(base(key, load.c, u), f"E5 {key} --cpu-per-request-us {u}: "
                             f"{load.text()}", KEY,
                             ctx.server(system, cluster=cluster, own_flags=own, key=key), load,
                             flags=("--cpu-per-request-us", str(u))) for load in loads])
                  for key, system, cluster, own in SERVERS if ctx.has(system)]
        if groups:
            parts.append(part(ctx, groups, SWEEP_BLOCKS, NO_MORE))
    return parts


def sweep(results):
    """{concurrency: sorted costs in µs} of the E5 runs."""
    found = [(int(m.group(2)), int(m.group(3))) for m in map(RUN.match, results.by_base) if m]
    return {c: sorted({u for cc, u in found if cc == c}) for c in sorted({c for c, _ in found})}


def base(key, c, u):
    return f"e5-{key}-c{c}-u{u}"


def label(results, key):
    return key.replace("-", " ") + (f" ×{results.cores}" if key == "async-cluster" else "")


def crossing(costs, ratios):
    """The cost where the ratio first reaches 1 from below, its logarithm interpolated linearly
    between the measured costs around it (where the lines cross on the plot's log scale); the
    first cost when it is there from the start; None when it stays below 1 over the sweep."""
    points = [(u, math.log(r)) for u, r in zip(costs, ratios) if r]
    if not points:
        return None
    if points[0][1] >= 0:
        return points[0][0]
    for (u0, r0), (u1, r1) in zip(points, points[1:]):
        if r0 < 0 <= r1:
            return u0 - r0 * (u1 - u0) / (r1 - r0)
    return None


def ratios(results, c, costs, other, block=None):
    """The blocking model's requests/s over other's at each cost: the median over the blocks of
    the ratio within a block, or that block's alone."""
    def one(u):
        pair = [base("blocking", c, u), base(other, c, u)]
        return ratio(*(results.at(b, block, "requests_per_s") for b in pair)) \
            if block is not None else median(results.per_block(pair, "requests_per_s", ratio))
    return [one(u) for u in costs]


def crossovers(results):
    """{(crossover, concurrency): cost in ms, or None when not within the sweep}."""
    out = {}
    for c, costs in sweep(results).items():
        for name, (_, _, other, _) in CROSSOVERS.items():
            found = ratios(results, c, costs, other)
            if any(r is not None for r in found):
                out[(name, c)] = in_ms(crossing(costs, found))
    return out


def in_ms(u):
    return None if u is None else u / 1000


def crossover_text(results, c, costs, name):
    other = CROSSOVERS[name][2]
    found = ratios(results, c, costs, other)
    value = crossing(costs, found)
    # The crossover of every block on its own (in ms; None: not within the sweep).
    per_block = [in_ms(crossing(costs, ratios(results, c, costs, other, b))) for b in
                 sorted({b for u in costs for b in results.blocks(base("blocking", c, u))})]
    if value is None:
        text = f"**not within the sweep** ({CROSSOVERS[name][3]} up to {costs[-1] / 1000:g} ms)"
    elif value == costs[0]:
        text = f"**from {value / 1000:g} ms on** (the blocking model ahead from the first cost)"
    else:
        text = f"**{value / 1000:.3f} ms**"
    back = [u for u, r in zip(costs, found) if value is not None and u > value and r and r < 1]
    if back:
        text += (" (the ratio falls below ×1 again at "
                 f"{', '.join(f'{u / 1000:g}' for u in back)} ms)")
    if len(per_block) > 1:
        each = ("not within the sweep" if v is None else f"{v:.3f} ms" for v in per_block)
        found_ms = [v for v in per_block if v is not None]
        text += (f"; blocks on their own: {', '.join(each)}"
                 + (f" (lowest–highest {min(found_ms):.3f}–{max(found_ms):.3f} ms)"
                    if len(found_ms) > 1 else ""))
    return text


def rate_rows(results, c, costs):
    return [[f"{u / 1000:g}"] +
            [fmt(results.figure(base(key, c, u), "requests_per_s")) for key in LINES] +
            [interval_cell(results.ratio([base("blocking", c, u), base(other, c, u)],
                                         "requests_per_s"), 2, "×")
             for other in ("async", "async-cluster")] +
            [fmt(results.figure(base("async", c, u), "server_cpu_pct_core"), 0, suffix=" %")]
            for u in costs]


def prefork_rows(results, c, costs):
    """Blocking against prefork, at cost 0 and at the measured cost nearest the overtake."""
    overtake = crossing(costs, ratios(results, c, costs, "async"))
    nearest = None if overtake is None else min(costs, key=lambda u: abs(u - overtake))
    rows = []
    for u in [costs[0]] + ([nearest] if nearest not in (None, costs[0]) else []):
        fresh, prefork = base("blocking", c, u), base("blocking-prefork", c, u)
        fresh_ms, prefork_ms = (results.per_request_ms(b, "server") for b in (fresh, prefork))
        difference = (None if fresh_ms is None or prefork_ms is None
                      else 1000 * (fresh_ms - prefork_ms))
        rows.append([f"-c {c}, {u / 1000:g} ms", fmt(results.figure(fresh, "requests_per_s")),
                     fmt(results.figure(prefork, "requests_per_s")),
                     interval_cell(results.ratio([prefork, fresh], "requests_per_s"), 2, "×"),
                     fmt(fresh_ms, 3), fmt(prefork_ms, 3), fmt(difference, 0, suffix=" µs"),
                     fmt(results.figure(fresh, "server_peak_threads"), 0),
                     fmt(results.figure(prefork, "server_peak_threads"), 0)])
    return rows


def section(results):
    swept = sweep(results)
    if not swept:
        return ""
    seconds = next(results.record(b).get("seconds") for b in results.by_base if RUN.match(b))
    parts = []
    for c, costs in swept.items():
        parts += [f"### -c {c}", "",
                  table(["CPU per request (ms)"] + [f"{label(results, k)} (req/s)" for k in LINES]
                        + ["blocking ÷ async", f"blocking ÷ {label(results, 'async-cluster')}",
                           "async: its loop's CPU, % of one core"], rate_rows(results, c, costs)),
                  ""]
        parts += [f"- {CROSSOVERS[name][0]}: {crossover_text(results, c, costs, name)}"
                  for name in CROSSOVERS] + [""]
    prefork = [row for c, costs in swept.items() for row in prefork_rows(results, c, costs)]
    plot = ("![e5-crossover.png](e5-crossover.png)"
            if os.path.exists(os.path.join(results.directory, "e5-crossover.png")) else "")
    return "\n".join([
        f"## {TITLE}", "",
        f"`ab -r -c C -t {fmt(seconds, 0)}` on /html, a server started for each cost and warmed "
        "up at each concurrency, while every request costs the thread that serves it "
        "`--cpu-per-request-us` of CPU (measured on the thread's CPU clock): the single event "
        "loop spends it on its one thread, the blocking model on the thread of the connection, "
        "the cluster on the loop of the worker. Requests/s are medians over the blocks; a ratio "
        "is taken within each block, its estimate shown with its 95 % interval. A crossover is "
        "the cost at which the ratio reaches ×1, its logarithm interpolated linearly between the "
        "measured costs around it, where the lines cross on the plot (from the median ratios; "
        "each block's own crossover after it).", "",
    ] + parts + [
        "What a thread per connection costs against Apache's prefork lifecycle "
        "(`--lifecycle prefork`: pre-started threads, reused), at cost 0 and at the measured "
        "cost nearest the crossover with the single loop: the server's CPU per request of both "
        "and their difference, the thread's start and end.", "",
        table(["", "blocking (req/s)", "blocking prefork (req/s)", "prefork ÷ blocking",
               "blocking: server CPU per request (ms)", "prefork: server CPU per request (ms)",
               "difference", "peak threads: blocking", "prefork"], prefork), "", plot, "",
    ])


def position(costs, u):
    """Where cost u falls on the plot's x axis, the measured costs evenly spaced; None outside."""
    for i, (low, high) in enumerate(zip(costs, costs[1:])):
        if low <= u <= high:
            return i + (u - low) / (high - low)
    return None


def plots(results):
    """A panel per concurrency; the crossovers and the calibrated costs as vertical lines."""
    swept = sweep(results)
    if not swept:
        return []
    marks = calibration.marks(results)
    costs = sorted({u for c in swept.values() for u in c})
    columns = ["cost"] + [column for c in swept for k in LINES
                          for column in interval_columns(f"{k}_c{c}")]
    rows = [[f"{u / 1000:g}"] + [cell for c in swept for k in LINES
                                 for cell in with_interval(results, base(k, c, u),
                                                           "requests_per_s")] for u in costs]
    panels = []
    for c in swept:
        found = [(CROSSOVERS[name][1], value * 1000)
                 for (name, cc), value in crossovers(results).items()
                 if cc == c and value is not None and value * 1000 > costs[0]]
        lines = [interval_line(f"{k}_c{c}", label(results, k), COLORS[k],
                               dash=2 if k == "blocking-prefork" else 1) for k in LINES]
        panel_marks = [(f"{position(costs, u):.3f}", f"{text} ({u / 1000:.2f} ms)")
                       for text, u in list(marks) + found if position(costs, u) is not None]
        panels.append(Panel(f"-c {c}", "cost", lines, xlabel="CPU per request (ms)",
                            ylabel="requests/s (log scale)", logy=True, ymin=None,
                            categories=True, dodge=0.03, marks=panel_marks, key="bottom left"))
    return [Plot("e5-crossover", columns, rows, panels,
                 title="E5: /html requests/s against the CPU per request (medians, 95 % "
                       "intervals)",
                 layout=(1, len(panels)), size=(620 * len(panels), 560))]


def headline(results):
    """Each crossover (None: not within the sweep), and each server's requests/s at each point."""
    return [Figure(f"E5 {CROSSOVERS[name][0]}, -c {c} (ms)", KEY, "blocking", "crossover_cost_ms",
                   value, against=CROSSOVERS[name][2], concurrency=c)
            for (name, c), value in crossovers(results).items()] + figures(
        results, [(f"E5 {key} -c {c} cost {u} µs requests/s", base(key, c, u),
                   {"concurrency": c, "cost_us": u})
                  for c, costs in sweep(results).items() for key in LINES for u in costs],
        "requests_per_s", 1)


claims = pair_rows = nothing
