"""E7, latency against offered load (docs/experiments.md asks and reads it): /html offered by an
open loop (engine.loads.openloop, a new connection per request as the posts' ab made them) at
shares of each system's capacity, that capacity measured first in the same run; and the stall,
every process of a server stopped for a second in the middle of a run at half its capacity."""

import re

from modelbench.engine.loads.paused import PAUSE_S
from modelbench.engine.plan import EarlierRunsMissing, Group, Load, Run
from modelbench.experiments.base import (E1_SYSTEMS, NO_FAILURES, NO_MORE, SIDES, SWEEP_BLOCKS,
                                         PERCENTILE_LOOK, figures, interval_columns, keys_with, ms,
                                         nothing, part, percentile_line, with_interval)
from modelbench.report import statistics
from modelbench.report.plots import Line, Panel, Plot
from modelbench.report.results import probe
from modelbench.report.statistics import median
from modelbench.report.summary import Figure
from modelbench.report.tables import fmt, interval_cell, table
from modelbench.report.verdicts import (Claim, at_least, interval_text, judged, needs,
                                        ratio_side)

KEY = "E7"
TITLE = "E7 — latency against offered load (an open loop)"
IN_DEFAULT = False
RUN = re.compile(r"^e7-(.+)-s(\d+)$")
CAPACITY_C = 20  # the capacity: requests/s of ab -c 20, the posts' concurrency
STALL_POOL = 10  # keep-alive connections of the stall's run: a closed loop's few clients
STALL_SHARE = 0.5
BOUND_MS = 100  # the p99 a load is sustained under
# A server that falls behind answers its last request late, which lowers its rate over the run:
# 5 % of a 5-s run is 250 ms, beyond the bound.
KEPT_UP = 0.95
KNEE = 3  # the knee: the first share whose p99 is this many times that at the lowest share
FASTER = 1.1  # as E1b's "PHP faster"
AT_80 = 0.8
STANDARD = {"shares": (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.2), "seconds": 5, "capacity_s": 3,
            "stall_s": 10}
# The smoke run has AT_80 too: every claim is judged there.
SIZES = {"smoke": {"shares": (0.5, AT_80, 1.2), "seconds": 1, "capacity_s": 1, "stall_s": 3},
         "default": STANDARD, "standard": STANDARD, "full": {**STANDARD, "seconds": 10}}
STALL_BLOCKS = dict.fromkeys(SWEEP_BLOCKS, 1)  # a demonstration: its mechanism fixes its outcome


def capacity_base(key):
    return f"e7-{key}-capacity"


def base(key, share):
    return f"e7-{key}-s{round(100 * share)}"


def paused_base(key):
    return f"e7-{key}-paused"


def capacity_of(key):
    """The capacity(records) of a server: the median requests/s of its capacity runs so far."""
    def capacity(records):
        rates = [r["figures"]["requests_per_s"] for r in records
                 if r.get("base") == capacity_base(key) and r.get("status") == "ok"]
        if not rates:
            raise EarlierRunsMissing(f"no capacity of {key}: none of its {capacity_base(key)} "
                                     "runs succeeded")
        return median(rates)
    return capacity


def plan(ctx):
    """Three parts on the same servers: the capacity (a closed loop), the sweep, the stall. The
    sweep's and the stall's runs have no warm-up: the capacity's runs warmed each server up just
    before, and a lead-in would be a closed loop's load, not the offered one. The stall is the
    last part, so that no other run meets a server that was stopped."""
    size = SIZES[ctx.size]
    servers = ctx.servers(E1_SYSTEMS, needs="/html")
    capacity = Load("ab", "/html", CAPACITY_C, seconds=size["capacity_s"])
    sweep = [Load("openloop", "/html", seconds=size["seconds"], share=share)
             for share in size["shares"]]
    stall = Load("openloop-paused", "/html", STALL_POOL, seconds=size["stall_s"], keepalive=True,
                 share=STALL_SHARE)
    groups = (
        [Group([Run(capacity_base(s.key), f"E7 {s.key} capacity: {capacity.text()}", KEY, s,
                    capacity)]) for s in servers],
        [Group([Run(base(s.key, load.share), f"E7 {s.key}: {load.text()}", KEY, s, load,
                    warm=False, capacity=capacity_of(s.key)) for load in sweep])
         for s in servers],
        [Group([Run(paused_base(s.key), f"E7 {s.key} stall: {stall.text()}", KEY, s, stall,
                    warm=False, capacity=capacity_of(s.key))]) for s in servers])
    blocks = (SWEEP_BLOCKS, SWEEP_BLOCKS, STALL_BLOCKS)
    return [part(ctx, g, b, NO_MORE) for g, b in zip(groups, blocks) if g]


def shares(results):
    """The sweep's shares in %, ascending."""
    return sorted({int(m.group(2)) for m in map(RUN.match, results.by_base) if m})


def keys(results):
    return keys_with(results, capacity_base)


def held(figures):
    """Whether a sweep run kept up with its offered rate (KEPT_UP of it answered, over the time
    to its last answer), kept its p99 under the bound and lost no more than NO_FAILURES."""
    scheduled = figures["complete"] + figures["failed"] + figures["not_sent"]
    lost = figures["failed"] + figures["non2xx"] + figures["not_sent"]
    return figures["requests_per_s"] >= KEPT_UP * figures["rate_asked"] and \
        figures["p99_ms"] <= BOUND_MS and lost <= NO_FAILURES * scheduled


def sustained(results, key, block):
    """The highest rate offered key in that block under which it held, that share and every one
    below it (0.0: none); None when a share's run is missing from the block."""
    best = 0.0
    for share in shares(results):
        run = results.blocks(base(key, share / 100)).get(block)
        if run is None:
            return None
        if not held(run["figures"]):
            break
        best = run["figures"]["rate_asked"]
    return best


def sustained_interval(results, key):
    """The Interval of key's sustained rate over its blocks (None: none)."""
    blocks = sorted(results.blocks(base(key, shares(results)[0] / 100)))
    values = [sustained(results, key, b) for b in blocks]
    return statistics.of_blocks(values, unit="blocks")


def sustained_ratio(results, a, b):
    """The Interval of a's sustained rate over b's, within each block both ran every share."""
    firsts = [results.blocks(base(k, shares(results)[0] / 100)) for k in (a, b)]
    pairs = []
    for block in sorted(set(firsts[0]) & set(firsts[1])):
        x, y = sustained(results, a, block), sustained(results, b, block)
        if x is not None and y:
            probes = [p for p in (probe(firsts[0][block]), probe(firsts[1][block])) if p]
            pairs.append((x / y, sum(probes) / len(probes) if probes else None))
    return statistics.of_blocks([v for v, _ in pairs], probes=[p for _, p in pairs])


def knee(results, key):
    """The first share (%) whose median p99 is KNEE times that at the lowest; None: none."""
    found = [(s, results.figure(base(key, s / 100), "p99_ms")) for s in shares(results)]
    found = [(s, p99) for s, p99 in found if p99 is not None]
    if not found:
        return None
    return next((s for s, p99 in found[1:] if p99 > KNEE * found[0][1]), None)


def cell(results, b):
    """'p50 / p99 / p99.9 / max' of a sweep run, medians over its blocks (ms)."""
    values = [results.figure(b, k) for k in ("p50_ms", "p99_ms", "p99_9_ms", "max_ms")]
    if values[0] is None:
        return "–"
    return " / ".join(fmt(v, 1 if v < 10 else 0) for v in values)


def capacity_row(results, key):
    """key's capacity, sustained rate, knee, and threads and processes at the highest share."""
    sustained_rate, knee_share = sustained_interval(results, key), knee(results, key)
    highest = base(key, shares(results)[-1] / 100)
    return [results.label(key),
            interval_cell(results.interval(capacity_base(key), "requests_per_s"), 0),
            fmt(sustained_rate and sustained_rate.estimate, 0),
            fmt(knee_share, 0, suffix=" %") if knee_share else "none",
            fmt(results.figure(highest, "server_peak_threads"), 0),
            fmt(results.figure(highest, "server_peak_processes"), 0)]


def section(results):
    keys_ = keys(results)
    if not keys_ or not shares(results):
        return ""
    labels = [results.label(k) for k in keys_]
    capacity_rows = [capacity_row(results, k) for k in keys_]
    sweep_rows = [[f"{s} %"] + [f"{fmt(results.figure(b, 'rate_asked'), 0)}: {cell(results, b)}"
                                for b in (base(k, s / 100) for k in keys_)]
                  for s in shares(results)]
    lost_rows = [[f"{s} %"] + [lost_text(results, base(k, s / 100)) for k in keys_]
                 for s in shares(results)]
    stall_rows = [[results.label(k)] + [fmt(results.figure(paused_base(k), key), 0) for key in (
        "rate_asked", "p99_ms", "uncorrected_p99_ms", "max_ms", "uncorrected_max_ms")]
        + [fmt(results.figure(paused_base(k), "p50_ms"), 1)]
        for k in keys_ if results.ok(paused_base(k))]
    record = next(results.record(base(k, s / 100)) for k in keys_ for s in shares(results))
    return "\n".join([
        f"## {TITLE}", "",
        "Every tool of E1 to E6 is a closed loop: a client waits for its answer before it asks "
        "again, so while a server stalls the load stops and the stall all but vanishes from the "
        "percentiles (coordinated omission). Here `openloop` sends each request at its planned "
        f"time, a new connection each, for {fmt(record.get('seconds'), 0)} s per run, whatever "
        "became of the ones before, and a request's latency counts from that planned time. Each "
        f"system's capacity is its requests/s under `ab -c {CAPACITY_C}` (median of the "
        "capacity part's blocks, with its 95 % interval), measured first in this run; the offered "
        "loads are shares of it. Latencies are medians over the blocks.", "",
        table(["system", f"capacity, ab -c {CAPACITY_C} (req/s)",
               f"sustained with p99 ≤ {BOUND_MS} ms (req/s)",
               f"knee (p99 ×{KNEE} that at the lowest share)",
               f"peak threads at {shares(results)[-1]} %", "peak processes"], capacity_rows), "",
        "Offered requests/s: p50 / p99 / p99.9 / max (ms), at each share of the capacity:", "",
        table(["offered"] + labels, sweep_rows), "",
        "Requests lost (failed, non-2xx, or not sent within the generator's caps):", "",
        table(["offered"] + labels, lost_rows), "",
        "![e7-latency.png](e7-latency.png)", "",
        f"**The stall.** Every process of the server stopped (SIGSTOP) for {PAUSE_S:g} s in the "
        f"middle of a run at {100 * STALL_SHARE:.0f} % of its capacity over {STALL_POOL} "
        "keep-alive connections, as a closed loop's few clients would hold them: the latency from "
        "the planned send (corrected) against from the actual send (uncorrected), one run each. "
        f"Uncorrected, only the {STALL_POOL} requests on the wire when the server stopped wait "
        "for it (the others are sent once a connection is free), so its p99 sees the stall only "
        f"where {STALL_POOL} requests are more than 1 % of the run's.",
        "",
        table(["system", "offered (req/s)", "p99 corrected (ms)", "p99 uncorrected (ms)",
               "max corrected (ms)", "max uncorrected (ms)", "p50 corrected (ms)"], stall_rows),
        "",
    ])


def lost_text(results, b):
    values = [results.figure(b, k) for k in ("failed", "non2xx", "not_sent")]
    if values[0] is None:
        return "–"
    return "0" if not any(values) else " + ".join(
        f"{fmt(v, 0)} {what}" for v, what in zip(values, ("failed", "non-2xx", "not sent")) if v)


def sustained_claim(results):
    def side(blocking_like, async_like):
        if not shares(results):
            return needs(base(blocking_like, 0.5), base(async_like, 0.5))
        interval = sustained_ratio(results, blocking_like, async_like)
        bases = [base(k, s / 100) for k in (blocking_like, async_like) for s in shares(results)]
        if interval is None:
            return needs(base(blocking_like, shares(results)[0] / 100),
                         base(async_like, shares(results)[0] / 100))
        return judged(
            f"{blocking_like} ÷ {async_like} within each block "
            f"{interval_text(interval, prefix='×')} (medians "
            f"{fmt(sustained_interval(results, blocking_like).estimate, 0)} and "
            f"{fmt(sustained_interval(results, async_like).estimate, 0)} req/s; capacities "
            f"{fmt(results.figure(capacity_base(blocking_like), 'requests_per_s'), 0)} and "
            f"{fmt(results.figure(capacity_base(async_like), 'requests_per_s'), 0)} req/s)",
            at_least(interval, FASTER), lambda: (
                f"{blocking_like}: knee at {fmt(knee(results, blocking_like), 0)} %, "
                f"{async_like}: at {fmt(knee(results, async_like), 0)} % of capacity."),
            interval, bases)

    return Claim("E7 sustained",
                 "Read as users see it, Apache+PHP serves more /html load than Node.js (E1's "
                 "post, ×10 the requests/s at -c 20): it sustains a higher offered rate with its "
                 f"p99 under {BOUND_MS} ms",
                 f"the highest offered rate with p99 ≤ {BOUND_MS} ms (that share and every one "
                 f"below it), blocking side ÷ async side within each block: ×{FASTER} or more",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def at_80_claim(results):
    def side(blocking_like, async_like):
        b, a = base(blocking_like, AT_80), base(async_like, AT_80)
        return ratio_side(
            results, b, a, "p99_ms", lambda interval: at_least(interval, 1.0),
            lambda interval: f"p99 at {100 * AT_80:.0f} % of capacity, {blocking_like} ÷ "
            f"{async_like} within each block {interval_text(interval, prefix='×')} (medians "
            f"{ms(results.figure(b, 'p99_ms'), 1)} and {ms(results.figure(a, 'p99_ms'), 1)})",
            lambda: f"{blocking_like} at {fmt(results.figure(b, 'rate_asked'), 0)} req/s kept a "
                    f"lower p99 than {async_like} at {fmt(results.figure(a, 'rate_asked'), 0)}.")

    return Claim("E7 p99 at 80 %",
                 f"At {100 * AT_80:.0f} % of its capacity the one event loop keeps its latency "
                 "better than a thread or process per connection at 80 % of its own (this "
                 "project's question, not the posts')",
                 "p99 of the blocking side ÷ the async side's at that share, within each block: "
                 "×1 or more", side(*SIDES["real"]), side(*SIDES["model"]))


def claims(results):
    return [sustained_claim(results), at_80_claim(results)] if keys(results) else []


def plots(results):
    """A panel per system on one scale: the percentiles against the offered share, the bound
    drawn; p99's 95 % interval as a band (the others' would cover each other: three blocks give
    wide intervals on a log scale)."""
    keys_ = [k for k in keys(results) if any(results.ok(base(k, s / 100))
                                             for s in shares(results))]
    if not keys_:
        return []
    what = (("p50_ms", "p50"), ("p99_ms", "p99"), ("p99_9_ms", "p99.9"), ("max_ms", "max"))
    columns = ["share", "bound"] + [column for k in keys_ for _, label in what
                                    for column in interval_columns(f"{k}_{label}")]
    rows = [[s, BOUND_MS] + [cell for k in keys_ for key, *_ in what
                             for cell in with_interval(results, base(k, s / 100), key)]
            for s in shares(results)]
    medians = [v for row in rows for v in row[2::3] if v]
    panels = []
    for k in keys_:
        lines = [percentile_line(f"{k}_{label}", label, band=True) if label == "p99" else
                 Line(f"{k}_{label}", label, *PERCENTILE_LOOK[label]) for _, label in what]
        lines.append(Line("bound", f"{BOUND_MS} ms", "#555555", 3, 1, point=0))
        panels.append(Panel(results.label(k), "share", lines, xlabel="offered, % of capacity",
                            ylabel="latency, ms (log scale)", logy=True,
                            ymin=min(medians) / 2 if medians else None,
                            ymax=max(medians) * 2 if medians else None, key="top left"))
    columns_n = min(3, len(panels))
    rows_n = -(-len(panels) // columns_n)
    return [Plot("e7-latency", columns, rows, panels,
                 title="E7: /html latency from the planned send against offered load: the "
                       "medians over the blocks, the band p99's 95 % interval",
                 layout=(rows_n, columns_n), size=(420 * columns_n, 360 * rows_n + 40))]


def headline(results):
    out = figures(results, [(f"E7 {k} capacity (req/s)", capacity_base(k),
                             {"concurrency": CAPACITY_C}) for k in keys(results)],
                  "requests_per_s", 1)
    out += [Figure(f"E7 {k} sustained with p99 ≤ {BOUND_MS} ms (req/s)", KEY, k,
                   "sustained_requests_per_s", interval.estimate, interval, digits=1)
            for k in keys(results)
            if shares(results) and (interval := sustained_interval(results, k))]
    for key, which in (("p99_ms", "corrected"), ("uncorrected_p99_ms", "uncorrected")):
        out += figures(results, [(f"E7 {k} stall p99 {which} (ms)", paused_base(k),
                                  {"concurrency": STALL_POOL, "share": STALL_SHARE})
                                 for k in keys(results)], key, 1, metric=f"stall_{key}")
    for key, what in (("p50_ms", "p50"), ("p99_ms", "p99")):
        out += figures(results, [(f"E7 {k} at {s} % {what} (ms)", base(k, s / 100),
                                  {"share": s / 100}) for k in keys(results)
                                 for s in shares(results)], key, 1)
    return out


pair_rows = nothing
