"""E5, the crossover: /html under `ab -c 20` and `-c 200` while the CPU each request costs on
the thread that serves it (`--cpu-per-request-us`) sweeps from 0 to a few milliseconds, for the
blocking model (a thread per connection, and Apache's prefork lifecycle), the async model (one
event loop) and the async cluster (a loop per core).

The single event loop spends every request's cost on its one thread, so it serves at most one
second's worth of costs per second; the blocking model spends it on many threads over every
core, and the cluster on a loop per core. Where the blocking model overtakes the single loop,
and where the cluster stops keeping up with the blocking model, are read from the measured
points: the cost at which the blocking model's requests/s over the other's reaches ×1, taken at
each cost as the median over the rounds of the ratio within a round, its logarithm interpolated
linearly between the two measured costs around it (so that it falls where the lines cross on
the plot's log scale).
"""

import math
import os
import re

from modelbench.repeats import Spread, median
from modelbench.reproduce import plots
from modelbench.reproduce.plan import E5_SERVERS
from modelbench.tables import fmt, ratio_cell, table

RUN = re.compile(r"^e5-(.+)-c(\d+)-u(\d+)$")
LINES = [s.key for s in E5_SERVERS]
# Each crossover: what it is, its label on the plot, the server the blocking model is compared
# with, and what it means that the crossover is not within the sweep.
CROSSOVERS = {"overtake": ("the blocking model overtakes the single event loop",
                           "blocking overtakes async", "async",
                           "the single event loop ahead"),
              "cluster": ("the async cluster stops keeping up with the blocking model",
                          "cluster falls behind blocking", "async-cluster",
                          "the cluster ahead")}
COLORS = {"blocking": "#c0392b", "blocking-prefork": "#c0392b", "async": "#2471a3",
          "async-cluster": "#1e8449"}


def sweep(results):
    """{concurrency: sorted costs in µs} of the E5 runs in results."""
    found = {}
    for base in results.by_base:
        match = RUN.match(base)
        if match:
            found.setdefault(int(match.group(2)), set()).add(int(match.group(3)))
    return {c: sorted(costs) for c, costs in sorted(found.items())}


def base(key, c, u):
    return f"e5-{key}-c{c}-u{u}"


def label(results, key):
    return {"blocking": "blocking", "blocking-prefork": "blocking prefork",
            "async": "async", "async-cluster": f"async cluster ×{results.cores}"}[key]


def crossing(costs, ratios):
    """The cost where the ratio first reaches 1 from below, its logarithm interpolated linearly
    between the two measured costs around it (where the two lines cross on the plot's log
    scale); the first cost when it is there from the start; None when it stays below 1 over the
    sweep."""
    points = [(u, math.log(r)) for u, r in zip(costs, ratios) if r]
    if not points:
        return None
    if points[0][1] >= 0:
        return points[0][0]
    for (u0, r0), (u1, r1) in zip(points, points[1:]):
        if r0 < 0 <= r1:
            return u0 - r0 * (u1 - u0) / (r1 - r0)
    return None


def ratio(a, b):
    return a / b if a is not None and b else None


def ratios(results, c, costs, other, round_=None):
    """The blocking model's requests/s over other's at each cost: the median over the rounds of
    the ratio within a round, or that round's alone."""
    def one(u):
        pair = [base("blocking", c, u), base(other, c, u)]
        if round_ is not None:
            return ratio(*(results.at(b, round_, "requests_per_s") for b in pair))
        return median(results.per_round(pair, "requests_per_s", ratio))
    return [one(u) for u in costs]


def crossovers(results):
    """{(crossover, concurrency): cost in ms, or None when not within the sweep} for each
    crossover whose runs are there."""
    out = {}
    for c, costs in sweep(results).items():
        for name, (_, _, other, _) in CROSSOVERS.items():
            found = ratios(results, c, costs, other)
            if any(r is not None for r in found):
                u = crossing(costs, found)
                out[(name, c)] = None if u is None else u / 1000
    return out


def round_crossovers(results, c, costs, other):
    """The crossover of every round on its own (in ms; None: not within the sweep)."""
    rounds = sorted({r for u in costs for r in results.rounds(base("blocking", c, u))})
    out = []
    for r in rounds:
        u = crossing(costs, ratios(results, c, costs, other, r))
        out.append(None if u is None else u / 1000)
    return out


def crossover_name(key):
    name, c = key
    return f"{CROSSOVERS[name][0]}, -c {c}"


def cost_text(ms):
    return "not within the sweep" if ms is None else f"{ms:.3f} ms"


def crossover_text(results, c, costs, name, top_ms):
    other = CROSSOVERS[name][2]
    found = ratios(results, c, costs, other)
    value = crossing(costs, found)
    per_round = round_crossovers(results, c, costs, other)
    if value is None:
        text = f"**not within the sweep** ({CROSSOVERS[name][3]} up to {top_ms:g} ms)"
    elif value == costs[0]:
        text = f"**from {value / 1000:g} ms on** (the blocking model ahead from the first cost)"
    else:
        text = f"**{value / 1000:.3f} ms**"
    back = [u for u, r in zip(costs, found) if value is not None and u > value and r and r < 1]
    if back:
        text += (" (the ratio falls below ×1 again at "
                 f"{', '.join(f'{u / 1000:g}' for u in back)} ms)")
    if len(per_round) > 1:
        measured = [v for v in per_round if v is not None]
        spread = Spread.of(measured)
        text += (f"; rounds on their own: {', '.join(cost_text(v) for v in per_round)}"
                 + (f" (range {spread.low:.3f}–{spread.high:.3f} ms)"
                    if spread and spread.count > 1 else ""))
    return text


def rate_rows(results, c, costs):
    rows = []
    for u in costs:
        cells = [f"{u / 1000:g}"]
        for key in LINES:
            cells.append(fmt(results.figure(base(key, c, u), "requests_per_s")))
        for other in ("async", "async-cluster"):
            pair = [base("blocking", c, u), base(other, c, u)]
            spread = results.paired(pair, "requests_per_s", ratio)
            cells.append(ratio_cell(spread))
        cells.append(fmt(results.figure(base("async", c, u), "server_cpu_pct_core"), 0,
                         suffix=" %"))
        rows.append(cells)
    return rows


def nearest(costs, value_us):
    return min(costs, key=lambda u: abs(u - value_us)) if value_us is not None else None


def prefork_rows(results, c, costs):
    """What a thread per connection costs against prefork's reused threads: at cost 0 and at
    the measured cost nearest the point where the blocking model overtakes the single loop."""
    chosen = [costs[0]]
    overtake = nearest(costs, crossing(costs, ratios(results, c, costs, "async")))
    if overtake is not None and overtake not in chosen:
        chosen.append(overtake)
    rows = []
    for u in chosen:
        fresh, prefork = base("blocking", c, u), base("blocking-prefork", c, u)
        gain = results.paired([prefork, fresh], "requests_per_s", ratio)
        fresh_ms = results.per_request_ms(fresh, "server")
        prefork_ms = results.per_request_ms(prefork, "server")
        difference = (None if fresh_ms is None or prefork_ms is None
                      else 1000 * (fresh_ms - prefork_ms))
        rows.append([f"-c {c}, {u / 1000:g} ms", fmt(results.figure(fresh, "requests_per_s")),
                     fmt(results.figure(prefork, "requests_per_s")),
                     ratio_cell(gain),
                     fmt(fresh_ms, 3), fmt(prefork_ms, 3), fmt(difference, 0, suffix=" µs"),
                     fmt(results.figure(fresh, "server_peak_threads"), 0),
                     fmt(results.figure(prefork, "server_peak_threads"), 0)])
    return rows


def section(results):
    swept = sweep(results)
    if not swept:
        return ""
    command = next(results.record(b).get("command", "") for b in results.by_base
                   if RUN.match(b))
    limits = re.search(r"-t (\S+) -n (\d+)", command)
    t, n = limits.groups() if limits else ("?", "?")
    parts = []
    for c, costs in swept.items():
        top_ms = costs[-1] / 1000
        parts += [f"### -c {c}", "",
                  table(["CPU per request (ms)"] + [f"{label(results, k)} (req/s)"
                                                    for k in LINES]
                        + ["blocking ÷ async", f"blocking ÷ {label(results, 'async-cluster')}",
                           "async: its loop's CPU, % of one core"],
                        rate_rows(results, c, costs)),
                  ""]
        parts += [f"- {CROSSOVERS[name][0]}: "
                  f"{crossover_text(results, c, costs, name, top_ms)}" for name in CROSSOVERS]
        parts.append("")
    prefork = [row for c, costs in swept.items() for row in prefork_rows(results, c, costs)]
    plot = ("![e5-crossover.png](e5-crossover.png)"
            if os.path.exists(os.path.join(results.directory, "e5-crossover.png")) else "")
    return "\n".join([
        "## E5 — the crossover: requests/s against the CPU each request costs",
        "",
        f"`ab -r -c C -t {t} -n {n}` on /html (whichever limit comes first, so that a slow "
        "point takes no longer than a fast one), a freshly started server for every run, "
        "while every request costs the thread that serves it "
        "`--cpu-per-request-us` of CPU (measured on the thread's CPU clock): the single event "
        "loop spends it on its one thread, the blocking model on the thread of the connection, "
        "the cluster on the loop of the worker. Requests/s are medians over the rounds; a "
        "ratio is taken within each round, its median shown with the range. A crossover is "
        "the cost at which the ratio reaches ×1, its logarithm interpolated linearly between the "
        "measured costs around it, where the lines cross on the plot (from the median ratios; "
        "each round's own crossover after it).",
        "",
    ] + parts + [
        "What a thread per connection costs against Apache's prefork lifecycle "
        "(`--lifecycle prefork`: pre-started threads, reused), at cost 0 and at the measured "
        "cost nearest the crossover with the single loop: the server's CPU per request of both "
        "and their difference, the thread's start and end.",
        "",
        table(["", "blocking (req/s)", "blocking prefork (req/s)", "prefork ÷ blocking",
               "blocking: server CPU per request (ms)", "prefork: server CPU per request (ms)",
               "difference", "peak threads: blocking", "prefork"], prefork),
        "",
        plot,
        "",
    ])


# ---------------------------------------------------------------------------------------------
# The plot


def position(costs, u):
    """Where cost u falls on the plot's x axis, whose measured costs are evenly spaced: the
    index of its interval plus the fraction of it; None outside the sweep."""
    for i, (low, high) in enumerate(zip(costs, costs[1:])):
        if low <= u <= high:
            return i + (u - low) / (high - low)
    return None


def draw(results, marks=()):
    """Draws e5-crossover.png, a panel per concurrency (nothing when E5 did not run); marks:
    (label, cost in µs) drawn as vertical lines, e.g. the calibrated costs. Returns the
    errors."""
    swept = sweep(results)
    if not swept:
        return []
    plot_dir = os.path.join(results.directory, "plots")
    os.makedirs(plot_dir, exist_ok=True)
    panels = []
    for c, costs in swept.items():
        data = os.path.join("plots", f"e5-c{c}.dat")
        with open(os.path.join(results.directory, data), "w") as f:
            f.write("# position cost_ms " + " ".join(f"{k}_rps" for k in LINES) + "\n")
            for i, u in enumerate(costs):
                values = [results.figure(base(k, c, u), "requests_per_s") for k in LINES]
                f.write(f"{i} {u / 1000:g} " +
                        " ".join("-" if v is None else str(v) for v in values) + "\n")
        lines = []
        for i, key in enumerate(LINES):
            dash = "dt 2" if key == "blocking-prefork" else "dt 1"
            lines.append(f"'{data}' using 1:{i + 3}:xtic(2) with linespoints lw 2 {dash} pt 7 "
                         f"lc rgb '{COLORS[key]}' title '{label(results, key)}'")
        arrows = []
        found = [(CROSSOVERS[name][1], value * 1000)
                 for (name, cc), value in crossovers(results).items()
                 if cc == c and value is not None and value * 1000 > costs[0]]
        for n, (text, u) in enumerate(list(marks) + found, 1):
            x = position(costs, u)
            if x is None:
                continue
            # A label right of its line, or left of it in the right half of the panel.
            side = "right offset -0.5,0" if x > (len(costs) - 1) / 2 else "left offset 0.5,0"
            arrows += [f"set arrow {n} from {x:.3f}, graph 0 to {x:.3f}, graph 1 nohead dt 3 "
                       "lc rgb '#555555'",
                       f"set label {n} '{text} ({u / 1000:.2f} ms)' at {x:.3f}, graph "
                       f"{0.97 - 0.06 * n:.2f} {side} font ',8'"]
        panels += [f"set title '-c {c}'", *arrows,
                   "plot " + ", \\\n     ".join(lines), "unset arrow", "unset label"]
    script = "\n".join([
        plots.TERMINAL.replace("900,560", f"{620 * len(swept)},560"),
        "set output 'e5-crossover.png'",
        "set datafile missing '-'",
        f"set multiplot layout 1,{len(swept)} title 'E5: /html requests/s against the CPU each "
        "request costs (--cpu-per-request-us)'",
        "set xlabel 'CPU per request (ms)'",
        "set ylabel 'requests/s (log scale)'",
        "set logscale y",
        "set grid",
        "set key bottom left",
        *panels,
        "unset multiplot",
    ]) + "\n"
    return plots.render(results.directory, [("e5-crossover.gp", script)])
