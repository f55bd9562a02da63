"""E1b: /html under ab at -c 1, 20 and 200 on every system, the cluster variants (the follow-up
the post proposed) and the calibrated models (docs/experiments.md: E1, "How every run is made")."""

import itertools
import math
import os
from dataclasses import dataclass

from modelbench import systems
from modelbench.engine.loads import ab
from modelbench.engine.plan import EarlierRunsMissing, Group, Load, Run
from modelbench.experiments.base import (BLOCKS, CLUSTERS, E1_SYSTEMS, SIDES, causes,
                                         cpu_per_request, figures, first_records, interval_cells,
                                         interval_columns, interval_line, keys_with,
                                         machine_split, ms, not_runnable, part, percentile_line,
                                         real_system_of, run_table, style, with_interval)
from modelbench.report.plots import Line, Panel, Plot
from modelbench.report.results import Results, client_text
from modelbench.report.runtable import load_rows, pair_cpu_row, pair_derived_row, pair_row
from modelbench.report.statistics import median, of_blocks
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import (NOT_MEASURED, Claim, Side, all_of, at_least, at_most,
                                        interval_text, judged, needs, ratio_side, within)

KEY = "E1b"
TITLE = "E1b — /html under ApacheBench"
IN_DEFAULT = True
CONCURRENCIES = (1, 20, 200)
# A run's seconds, ab's -n from its lead-in's rate (docs/experiments.md, "How every run is made").
SECONDS = {"smoke": 1, "default": 1, "standard": 2, "full": 5}
# The models' part has BLOCKS, the real systems' one more: the calibrated models join it at block
# JOINS, once blocks 1 and 2 have given them their cost (one was too few: docs/experiments.md).
REAL_BLOCKS = {"smoke": 3, "default": 5, "standard": 9, "full": 9}
JOINS = 3
# The post's counts (-c 1 not given): --posts-counts and --full.
POSTS_N = {1: 1000, 20: 2000, 200: 20000}
FLAT_LOW, FLAT_HIGH = 0.75, 1.33  # "roughly flat": within -25 % / +33 % of the -c 20 rate
LATENCY_GROWTH = 2.0  # mean latency at -c 200 at least twice that at -c 20
CLUSTER_GAIN = 1.25  # cluster mode at least 25 % more requests/s than one worker
FASTER, FAR_FASTER = 1.1, 2.0
# More than one core can give, the machine nearly all busy; one core with a little slack.
SPREAD_CORE_PCT, ONE_CORE_PCT, BUSY_PCT = 110, 105, 90


@dataclass(frozen=True)
class PostFigures:
    """What E1's post measured at one concurrency: requests/s, ab's mean response time (ms) and
    its transfer rate (MiB/s)."""

    requests_per_s: float
    mean_ms: float
    mib_s: float


# E1's post's figures (four cores, 2011) by the real system they are of and -c; -c 1: none.
POST = {"php": {20: PostFigures(1173, 17, 21), 200: PostFigures(1146, 174, 20)},
        "node": {20: PostFigures(119, 167, 2), 200: PostFigures(114, 1750, 2)}}
POST_MACHINE = "4 cores, 2011"
POST_GAP = {c: POST["php"][c].requests_per_s / POST["node"][c].requests_per_s
            for c in (20, 200)}  # Apache+PHP ÷ Node.js: ×9.9 at -c 20


def post_change(field):
    """The post's figures from -c 20 to -c 200 ('1173→1146 and 119→114')."""
    return " and ".join(f"{getattr(POST[real][20], field):.0f}→{getattr(POST[real][200], field):.0f}"
                        for real in POST)
POST_LOOK = dict(style="points", point=12, point_size=2.2, width=2)  # open diamonds
LATENCY = (("p50_ms", "p50"), ("mean_ms", "mean"), ("p99_ms", "p99"))  # the latency plot's
SPECTRUM_C = 200  # the concurrency whose percentiles the spectrum plot draws
SPECTRUM = f"e1b-percentiles-c{SPECTRUM_C}"


def base(key, c):
    return f"e1b-{key}-c{c}"


def load(ctx, c):
    if ctx.posts_counts or ctx.size == "full":
        return Load("ab", "/html", c, n=POSTS_N[c])
    return Load(ctx.client, "/html", c, seconds=SECONDS[ctx.size])  # ab or wrk


def concurrencies(ctx, server):
    """A cluster's -c 1 only beyond the default: one client keeps one worker busy, no claim
    reads it, and its runs took about 20 s of a default run's minutes."""
    return CONCURRENCIES[1:] if server.cluster and ctx.size == "default" else CONCURRENCIES


def group(ctx, server, joins=1):
    return Group([Run(base(server.key, c), f"E1b {server.key}: {load(ctx, c).text()}", KEY,
                      server, load(ctx, c), flags=run_flags(server))
                  for c in concurrencies(ctx, server)], joins=joins)


def choose(records, model):
    """A calibrated model's cost (experiments.calibration) from the records made before its first
    calibrated run (the same before it and after): {real, lacks_ms: {c: the real system's server
    CPU per request less the model's}, cost_us}; EarlierRunsMissing without both at one c."""
    real = systems.get(model).stands_for
    before = Results("", {r["id"]: r for r in itertools.takewhile(
        lambda r: not (r.get("calibrated") and r["system"] == model), records)})
    cpu = {(x, c): before.per_request_ms(base(x, c), "server")
           for x in (real, model) for c in CONCURRENCIES}
    gaps = {c: cpu[real, c] - cpu[model, c] for c in CONCURRENCIES
            if cpu[real, c] is not None and cpu[model, c] is not None}
    if not gaps:
        raise EarlierRunsMissing(f"no calibrated cost for {model}: E1b measured no "
                               f"{real} and {model} at the same concurrency")
    return {"real": real, "lacks_ms": {str(c): round(v, 4) for c, v in gaps.items()},
            "cost_us": max(0, round(1000 * median(gaps.values())))}


def run_flags(server):
    """A calibrated server's flags, of the records made before it starts; none else."""
    model = server.system.name
    return (lambda records: ("--cpu-per-request-us", str(choose(records, model)["cost_us"]))) \
        if server.calibrated else ()


def plan(ctx):
    """Two parts, so that a block is short and the runs a claim compares are close in time; the
    calibrated models join the real systems' at block JOINS (choose), the calibrated cluster
    beyond the default only: a default run's minutes have no room for it."""
    servers = ctx.servers(E1_SYSTEMS, clusters=True, needs="/html")
    models = [group(ctx, s) for s in servers if not s.real]
    real = [group(ctx, s) for s in servers + ctx.mysql_native() if s.real]
    real += [group(ctx, s, joins=JOINS)
             for s in ctx.calibrated_servers(clusters=ctx.size != "default")]
    return [part(ctx, groups, blocks) for groups, blocks in ((models, BLOCKS),
                                                             (real, REAL_BLOCKS)) if groups]


def keys(results):
    return keys_with(results, *[lambda k, c=c: base(k, c) for c in CONCURRENCIES])


def section(results):
    parts = []
    for c in CONCURRENCIES:
        bases = [base(k, c) for k in keys(results) if results.has(base(k, c))]
        if bases:
            parts += run_table(results, client_text(results.record(bases[0])), bases,
                               load_rows(results, bases))
    if not parts:
        return ""
    document = next((results.figure(base(k, 20), "document_bytes") for k in keys(results)
                     if results.figure(base(k, 20), "document_bytes")), None)
    load = tool(results, [base(k, c) for k in keys(results) for c in CONCURRENCIES])
    return "\n".join([
        f"## {TITLE}", "",
        f"`{'ab -r' if load == 'ab' else load}` against `/html` (two queries, both tables, {fmt(document, 0)} bytes) on every "
        "server, each real system beside the model that stands for it, all of them up at once and "
        "run in blocks: each block runs every server at -c 1, 20 and 200 in turn, the servers of "
        "a concurrency in a random order, seconds apart; every server warmed up at a concurrency "
        "before its first run there and led in before the others (section Warm-ups). Figures are "
        "medians over the blocks; the interval of the rate is the 95 % interval of its blocks. "
        "The cluster columns are the follow-up the post proposed: Node.js with `node:cluster` and "
        f"the async model with `--workers 0`, one worker per core ({results.cores} here).", "",
    ] + parts + [
        "The post's figures (four cores, 2011), for the shape rather than the values; at -c 1 "
        "it measured 9.4 ms (PHP+Apache) and 8.9 ms (Node.js):", "", post_table(), "",
        "The plots: requests/s against -c, the median over the blocks with its 95 % interval "
        "and the post's figures (◇); p50, mean and p99 against -c, a panel per server; and "
        f"at -c {SPECTRUM_C} the response time at each percentile (ab's -e file), the band its "
        "95 % interval.", "",
        "![e1b-requests-per-s.png](e1b-requests-per-s.png)",
        "![e1b-latency.png](e1b-latency.png)", "",
    ] + ([f"![{SPECTRUM}.png]({SPECTRUM}.png)", ""]
         if os.path.exists(os.path.join(results.directory, f"{SPECTRUM}.png")) else []))


def post_table():
    """The post's figures, a column per system and -c."""
    columns = [(real, c) for real in POST for c in POST[real]]
    return table(["value"] + [f"{systems.get(real).title} -c {c}" for real, c in columns],
                 [[name] + [getattr(POST[real][c], field) for real, c in columns]
                  for name, field in (("requests/s", "requests_per_s"),
                                      ("response time (ms)", "mean_ms"),
                                      ("throughput (MiB/s)", "mib_s"))])


def cores_claim(r):
    def side(blocking_like, async_like):
        b, a = base(blocking_like, 200), base(async_like, 200)
        spread_cpu, busy = r.interval(b, "server_cpu_pct_core"), r.interval(b, "machine_busy_pct")
        single = r.interval(a, "server_cpu_pct_core")
        if None in (spread_cpu, busy, single):
            return needs(b, a)
        verdicts = {"spread": at_least(spread_cpu, SPREAD_CORE_PCT),
                    "busy": at_least(busy, BUSY_PCT), "single": at_most(single, ONE_CORE_PCT)}
        evidence = (f"-c 200: {blocking_like} {interval_text(spread_cpu, 0, suffix=' %')} of one "
                    f"core, machine {interval_text(busy, 0, suffix=' %')} busy; {async_like} "
                    f"{interval_text(single, 0, suffix=' %')} of one core "
                    f"({fmt(r.figure(a, 'server_peak_threads'), 0)} thread(s))")
        return judged(evidence, all_of(*verdicts.values()), lambda: causes(
            (all_of(verdicts["spread"], verdicts["busy"]),
             f"{blocking_like} got no more of the {r.cores} cores (100 % each): "
             f"{machine_split(r, b)}"),
            (verdicts["single"], f"{async_like} used more than one core: "
             f"{fmt(r.figure(a, 'server_peak_threads'), 0)} thread(s) in "
             f"{fmt(r.figure(a, 'server_peak_processes'), 0)} process(es)")), spread_cpu, (b, a))

    return Claim("E1b cores",
                 "The Apache+PHP side spreads over every core; one Node.js process uses at most "
                 "one (E1b: Apache 100 % on all 4 cores, node 80 %)",
                 f"-c 200: the blocking side ≥ {SPREAD_CORE_PCT} % of one core with the machine "
                 f"≥ {BUSY_PCT} % busy; the async side ≤ {ONE_CORE_PCT} %",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def flat_claim(r, real, model, name):
    def side(server):
        low, high = base(server, 20), base(server, 200)
        rate, growth = (r.ratio([high, low], key) for key in ("requests_per_s", "mean_ms"))
        if rate is None or growth is None:
            return needs(low, high)
        evidence = (f"-c 200 ÷ -c 20 within each block: requests/s "
                    f"{interval_text(rate, prefix='×')}, mean latency "
                    f"{interval_text(growth, 1, prefix='×')} (medians "
                    f"{fmt(r.figure(low, 'requests_per_s'))} → "
                    f"{fmt(r.figure(high, 'requests_per_s'))} req/s, "
                    f"{ms(r.figure(low, 'mean_ms'))} → {ms(r.figure(high, 'mean_ms'))})")
        verdict_rate = within(rate, FLAT_LOW, FLAT_HIGH)
        verdict_latency = at_least(growth, LATENCY_GROWTH)
        return judged(evidence, all_of(verdict_rate, verdict_latency), lambda: causes(
            (verdict_rate, f"requests/s {'rose' if rate.estimate > 1 else 'fell'} "
             f"×{rate.estimate:.2f}: at -c 20 {machine_split(r, low)}; at -c 200 "
             f"{machine_split(r, high)}; {cpu_per_request(r, low)} at -c 20, "
             f"{cpu_per_request(r, high)} at -c 200; {fmt(r.figure(high, 'failed'), 0)} "
             f"failed, longest {ms(r.figure(high, 'max_ms'), 0)}, "
             f"{fmt(r.figure(high, 'server_peak_processes'), 0)} process(es) and "
             f"{fmt(r.figure(high, 'server_peak_threads'), 0)} thread(s) at -c 200"),
            (verdict_latency, f"mean latency grew only ×{growth.estimate:.1f} while the rate "
             f"changed ×{rate.estimate:.2f}")), rate, (low, high))

    return Claim(f"E1b flat: {name}",
                 f"Throughput stays roughly flat from -c 20 to -c 200 while mean latency grows — "
                 f"{name} (E1b: {post_change('requests_per_s')} req/s, {post_change('mean_ms')} ms)",
                 f"requests/s at -c 200 ÷ at -c 20 within ×{FLAT_LOW}–×{FLAT_HIGH}; mean "
                 f"latency ×{LATENCY_GROWTH:.0f} or more", side(real), side(model))


def cluster_claim(r):
    def side(single, cluster):
        measured = {c: g for c in (20, 200) if (g := r.ratio(
            [base(cluster, c), base(single, c)], "requests_per_s")) is not None}
        if not measured:
            return needs(base(single, 20), base(cluster, 20))
        evidence = "; ".join(
            f"-c {c}: cluster ÷ one worker within each block {interval_text(g, prefix='×')} "
            f"(medians {fmt(r.figure(base(single, c), 'requests_per_s'))} → "
            f"{fmt(r.figure(base(cluster, c), 'requests_per_s'))} req/s)"
            for c, g in measured.items())
        verdicts = {c: at_least(g, CLUSTER_GAIN) for c, g in measured.items()}

        def cause_at(c):
            alone = base(single, c)
            idle = 100 - (r.figure(alone, "machine_busy_pct") or 0)
            return (f"-c {c}: with one worker {machine_split(r, alone)}, so {idle:.0f} % of "
                    f"the machine was left for more workers; with {r.cores} workers "
                    f"{machine_split(r, base(cluster, c))}")
        return judged(evidence, all_of(*verdicts.values()),
                      lambda: causes(*((v, cause_at(c)) for c, v in verdicts.items())),
                      min(measured.values(), key=lambda g: g.estimate),
                      [base(x, c) for c in measured for x in (single, cluster)])

    return Claim("E1b cluster",
                 "Replicating the single event loop on every core multiplies its throughput "
                 "(E1b follow-up the post proposed, not run there)",
                 f"cluster ÷ one worker ×{CLUSTER_GAIN} or more at -c 20 and -c 200",
                 side(*CLUSTERS["real"]), side(*CLUSTERS["model"]))


def faster_claims(r):
    def side(blocking_like, async_like, threshold):
        b, a = base(blocking_like, 20), base(async_like, 20)
        return ratio_side(
            r, b, a, "requests_per_s", lambda interval: at_least(interval, threshold),
            lambda interval: f"-c 20: {blocking_like} ÷ {async_like} within each block "
            f"{interval_text(interval, prefix='×')} (medians {fmt(r.figure(b, 'requests_per_s'))} "
            f"and {fmt(r.figure(a, 'requests_per_s'))} req/s)",
            lambda: f"{blocking_like}: {cpu_per_request(r, b)}, {machine_split(r, b)}; "
            f"{async_like}: {cpu_per_request(r, a)}, {machine_split(r, a)}.")

    return [
        Claim("E1b PHP faster",
              f"Apache+PHP serves /html faster than one Node.js process (E1b: "
              f"{POST['php'][20].requests_per_s:.0f} vs {POST['node'][20].requests_per_s:.0f} "
              "req/s at -c 20, the direction)",
              f"requests/s of the blocking side ÷ the async side's at -c 20: ×{FASTER} or more",
              side(*SIDES["real"], FASTER), side(*SIDES["model"], FASTER)),
        Claim("E1b PHP far faster", f"... and far faster (E1b: ×{POST_GAP[20]:.1f} at -c 20)",
              f"the same ratio ×{FAR_FASTER:.0f} or more",
              side(*SIDES["real"], FAR_FASTER), side(*SIDES["model"], FAR_FASTER)),
    ]


def driver_claim(r):
    """mysql-native against mysql under ab, both on Node.js 4 (node4), the real side only."""
    native, mysql = base("node4-native", 20), base("node4", 20)
    real = not_runnable(r, native) or ratio_side(
        r, native, mysql, "requests_per_s", lambda interval: at_most(interval, 1.0),
        lambda interval: f"Node.js 4, -c 20: with mysql-native ÷ with mysql within each block "
        f"{interval_text(interval, prefix='×')} (medians "
        f"{fmt(r.figure(native, 'requests_per_s'))} and {fmt(r.figure(mysql, 'requests_per_s'))} "
        "req/s)",
        lambda: f"mysql-native: {cpu_per_request(r, native)}; mysql: {cpu_per_request(r, mysql)}.")
    return Claim("E1b mysql-native",
                 "Under ab, Node.js with mysql-native is slower still than with mysql (E1b)",
                 "requests/s with mysql-native ÷ with mysql at -c 20 at most ×1", real,
                 Side("the models have no second driver", NOT_MEASURED))


def claims(results):
    if not keys(results):
        return []
    return ([cores_claim(results)] +
            [flat_claim(results, real, model, name) for real, model, name in (
                ("php", "blocking", "Apache+PHP"), ("node", "async", "Node.js"),
                ("node-cluster", "async-cluster", "Node.js cluster"))] +
            [cluster_claim(results)] + faster_claims(results) + [driver_claim(results)])


def tool(results, bases):
    """The load tool the runs of bases ran under, as their records say ('ab'; 'ab, wrk')."""
    return ", ".join(sorted({results.record(b).get("tool", "?") for b in bases
                             if results.has(b)}))


def post_of(results, k):
    """The real system of the post a server is or stands for ('php', 'node'); None for the
    others and the cluster variants, which the post did not run."""
    _, real, cluster = real_system_of(first_records(results)[k])
    return None if cluster or real not in POST else real


def post_cells(c, field):
    """A row's cells of the post's figure at -c c: a column per real system, None where none."""
    return [getattr(POST[real][c], field) if c in POST[real] else None for real in POST]


def log_range(values):
    """1, 2 or 5 times a power of ten below and above the positive values: a log axis that
    panels share."""
    values = [v for v in values if v is not None and v > 0]
    steps = [m * 10 ** e for e in range(math.floor(math.log10(min(values))),
                                        math.ceil(math.log10(max(values))) + 1) for m in (1, 2, 5)]
    return max(v for v in steps if v <= min(values)), min(v for v in steps if v >= max(values))


def real_and_models(results, keys_, lines, **panel):
    """Two panels: the real systems' lines and the models' (lines(keys): those of the servers)."""
    def real(k):
        system = real_system_of(first_records(results)[k])[0]
        return system is None or system.real
    return [Panel(which, lines=lines(group), **panel)
            for which, group in (("the real systems", [k for k in keys_ if real(k)]),
                                 ("the models", [k for k in keys_ if not real(k)])) if group]


def plots(results):
    measured = [k for k in keys(results)
                if any(results.figure(base(k, c), "requests_per_s") for c in CONCURRENCIES)]
    if not measured:
        return []
    load = tool(results, [base(k, c) for k in measured for c in CONCURRENCIES])
    x = dict(x="c", xlabel=f"concurrent clients ({load} -c)", categories=True)
    return [requests_plot(results, measured, load, x), latency_plot(results, measured, load, x),
            *spectrum_plot(results, measured)]


def requests_plot(results, measured, load, x):
    """requests/s against -c, the real systems beside the models on one scale, the post's
    figures in the colour of the servers that are or stand for its systems."""
    columns = ["c"] + [col for k in measured for col in interval_columns(f"{k}_rps")] + \
        [f"post_{real}_rps" for real in POST]
    rows = [[str(c)] + [cell for k in measured
                        for cell in with_interval(results, base(k, c), "requests_per_s")]
            + post_cells(c, "requests_per_s") for c in CONCURRENCIES]
    top = 1.05 * max(v for row in rows for v in row[1:] if v is not None)

    def lines(keys_):
        out = [interval_line(f"{k}_rps", results.label(k), *style(results, k, measured))
               for k in keys_]
        # The post's figures in the colour of the servers that are or stand for its systems.
        for real in POST:
            k = next((k for k in keys_ if post_of(results, k) == real), None)
            if k is not None:
                out.append(Line(f"post_{real}_rps", f"{systems.get(real).title}, the post's "
                                f"({POST_MACHINE})", style(results, k, measured)[0],
                                **POST_LOOK))
        return out
    panels = real_and_models(results, measured, lines, ylabel="requests/s", ymax=f"{top:.0f}",
                             dodge=0.06, key="below", **x)
    for panel in panels:  # the same height, the taller key under it
        panel.bottom = max(len(p.lines) for p in panels) + 5
    return Plot("e1b-requests-per-s", columns, rows, panels,
                title=f"E1b: /html under {load}, requests per second: the median over the "
                      "blocks and its 95 % interval",
                layout=(1, len(panels)), size=(600 * len(panels), 620))


def latency_plot(results, measured, load, x):
    """A panel per server: p50, mean and p99 against -c on one log scale, the post's means."""
    columns = ["c"] + [col for k in measured for _, what in LATENCY
                       for col in interval_columns(f"{k}_{what}")] + \
        [f"post_{real}_mean" for real in POST]
    rows = [[str(c)] + [cell for k in measured for key, _ in LATENCY
                        for cell in with_interval(results, base(k, c), key)]
            + post_cells(c, "mean_ms") for c in CONCURRENCIES]
    low, high = log_range([v for row in rows for v in row[1:]])
    across = min(5, len(measured))
    down = -(-len(measured) // across)
    panels = []
    for i, k in enumerate(measured):
        lines = [percentile_line(f"{k}_{what}", what) for _, what in LATENCY]
        if post_of(results, k):
            lines.append(Line(f"post_{post_of(results, k)}_mean", "the post's mean", "#000000",
                              **POST_LOOK))
        # The axes' labels once, at the left and under the bottom of each column; every panel
        # keeps room for the x label, so that the graphs of a row are as high.
        bottom_row = i >= len(measured) - across
        panels.append(Panel(results.label(k), lines=lines, logy=True, ymin=low, ymax=high,
                            ylabel="ms (log scale)" if i % across == 0 else "", dodge=0.1,
                            key="off", bottom=3, **dict(x, xlabel=x["xlabel"] * bottom_row)))
    # One key, in a panel with every kind of line.
    keyed = next((p for p in panels if len(p.lines) > len(LATENCY)), panels[0])
    keyed.key = "top left font ',9' samplen 2 spacing 0.9"
    return Plot("e1b-latency", columns, rows, panels,
                title=f"E1b: /html under {load}, response time: medians over the blocks and "
                      f"their 95 % intervals; ◇ the post's mean ({POST_MACHINE})",
                layout=(down, across), size=(300 * across, 290 * down + 40))


def spectrum(results, b):
    """ab -e's {percent: ms} of each of b's successful runs that kept it."""
    out = []
    for run in results.blocks(b).values():
        try:
            with open(os.path.join(results.directory, "raw", f"{run['id']}.{ab.PERCENTILES}"),
                      errors="replace") as f:
                found = ab.spectrum(f.read())
        except OSError:
            continue
        if found:
            out.append(found)
    return out


def spectrum_plot(results, measured):
    """The response time at each percentile at -c SPECTRUM_C (ab's runs only: its -e file)."""
    spectra = {k: found for k in measured if (found := spectrum(results, base(k, SPECTRUM_C)))}
    if not spectra:
        return []
    columns = ["percent"] + [col for k in spectra for col in interval_columns(k)]
    rows = []
    for percent in range(101):
        rows.append([percent])
        for found in spectra.values():
            values = [one.get(percent) for one in found]
            rows[-1] += interval_cells(median(values), of_blocks(values))
    # The medians' range: a band wider than the graph is cut at its edge.
    low, high = log_range([v for row in rows for v in row[1::3]])

    def lines(keys_):
        return [interval_line(k, results.label(k), *style(results, k, measured), style="lines",
                              band=True) for k in keys_]
    panels = real_and_models(results, list(spectra), lines, x="percent",
                             xlabel="% of the requests answered within", ylabel="ms (log scale)",
                             logy=True, ymin=low, ymax=high, key="top left")
    return [Plot(SPECTRUM, columns, rows, panels,
                 title=f"E1b: /html under ab -c {SPECTRUM_C}, response time at each percentile: "
                       "the median over the blocks, the band its 95 % interval",
                 layout=(1, len(panels)), size=(600 * len(panels), 560))]


def headline(results):
    return [figure for key, what, digits in (("requests_per_s", "requests/s", 1),
                                             ("p50_ms", "p50 (ms)", 2), ("p99_ms", "p99 (ms)", 2))
            for figure in figures(results, [(f"E1b {k} -c {c} {what}", base(k, c),
                                             {"concurrency": c})
                                            for k in keys(results) for c in CONCURRENCIES],
                                  key, digits)]


def pair_rows(results, model, real):
    rows = [row for c in CONCURRENCIES for row in pair_row(
        results, f"/html requests/s, -c {c}", base(model, c), base(real, c), "requests_per_s")]
    for low, high in zip(CONCURRENCIES, CONCURRENCIES[1:]):
        rows += pair_derived_row(
            f"shape: requests/s -c {high} ÷ -c {low}",
            *(results.ratio([base(x, high), base(x, low)], "requests_per_s")
              for x in (model, real)), 2)
    for c in CONCURRENCIES:
        for who, name in (("server", "server"), ("db", "mariadbd")):
            rows += pair_cpu_row(results, f"{name} CPU per /html request, -c {c} (ms)",
                                 base(model, c), base(real, c), who)
    for key, name in (("server_peak_threads", "threads"), ("server_peak_processes", "processes")):
        rows += pair_row(results, f"peak {name}, -c 200", base(model, 200), base(real, 200), key, 0)
    return rows
