"""E9, a heavy request among light ones (docs/experiments.md asks, reads and gives its first run):
light GET /hello at RATE a second from an open loop (a new connection each), and beside it a
share of heavy requests (/factorial with an n that takes about HEAVY_MS on that server alone,
engine.loads.mixed), against a freshly started server per run. Each system's light p99 with
heavy requests is compared with its own without them, within each block.

Why each choice:
- The heavy request costs the same time on every system (its n chosen on the server), not the
  same n: PHP computes 20,000! far slower than C++, and a claim about keeping requests apart
  should not be a claim about a language's speed.
- At RATE and the largest share, heavy requests keep one core busy for a quarter of the time:
  no system is short of CPU on 2 cores, so what a light request waits for is the heavy one
  ahead of it, not the machine.
- A fresh server per run: the event loop's delay (/status) counts from the server's start, so
  each run's figures are its own (its warm-up on /hello adds no delay worth the name)."""

import re

from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments.base import (NO_MORE, POSTS, SIDES, SWEEP_BLOCKS, causes, figures,
                                         interval_columns, interval_line, keys_with, ms, nothing,
                                         part, style, with_interval)
from modelbench.report.plots import Line, Panel, Plot
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import (Claim, all_of, at_least, at_most, interval_text, judged,
                                        needs)

KEY = "E9"
TITLE = "E9 — a heavy request among light ones"
IN_DEFAULT = False
RUN = re.compile(r"^e9-(.+)-h(\d+)$")
LIGHT_PATH = "/hello"
RATE = 100  # light requests a second
HEAVY_MS = 50
# The light p99 with the largest heavy share over the heavy request's own time (the same run's):
WAITS = 0.5  # behind one loop, at least half of it: light requests waited for heavy ones
APART = 0.2  # a thread or process per request: a fifth of it at most
STANDARD = {"shares": (0.0, 0.01, 0.05), "seconds": 20}
SIZES = {"smoke": {"shares": (0.0, 0.05), "seconds": 2}, "default": STANDARD,
         "standard": STANDARD, "full": {**STANDARD, "seconds": 60}}


def base(key, share):
    return f"e9-{key}-h{round(100 * share)}"


def plan(ctx):
    """One part: a fresh group of one run per server and heavy share, three blocks."""
    size = SIZES[ctx.size]
    groups = [Group([Run(base(s.key, load.heavy), f"E9 {s.key}: {load.text()}", KEY, s, load)],
                    fresh=True)
              for s in ctx.servers(POSTS, needs="/factorial")
              for load in (Load("heavy-openloop", LIGHT_PATH, rate=RATE, seconds=size["seconds"],
                                heavy=share, heavy_ms=HEAVY_MS) for share in size["shares"])]
    return [part(ctx, groups, SWEEP_BLOCKS, NO_MORE)] if groups else []


def shares(results):
    """The heavy shares in %, ascending."""
    return sorted({int(m.group(2)) for m in map(RUN.match, results.by_base) if m})


def keys(results):
    return keys_with(results, *(lambda k, s=s: base(k, s / 100) for s in shares(results)))


def growth(results, key):
    """The Interval of key's light p99 at the largest share ÷ without heavy requests, within each
    block (None: not measured)."""
    ss = shares(results)
    if len(ss) < 2 or ss[0] != 0:
        return None
    return results.ratio([base(key, ss[-1] / 100), base(key, 0)], "p99_ms")


def waits_claim(results):
    ss = shares(results)

    def side(blocking_like, async_like):
        top = ss[-1] / 100 if ss and ss[-1] else None
        if top is None:
            return needs(base(blocking_like, 0.05), base(async_like, 0.05))
        bases = (base(blocking_like, top), base(async_like, top))
        threads, loop = (results.interval(b, "p99_per_heavy") for b in bases)
        if loop is None or threads is None:
            return needs(*bases)
        parts = ((at_least(loop, WAITS), f"{async_like}'s light p99 was "
                  f"{interval_text(loop, prefix='×')} a heavy request's time, under ×{WAITS}"),
                 (at_most(threads, APART), f"{blocking_like}'s was "
                  f"{interval_text(threads, prefix='×')}, over ×{APART}"))

        def evidence(key, interval):
            b = base(key, top)
            alone = ms(results.figure(b, 'heavy_alone_ms'), 0)
            grew = growth(results, key)
            return (f"{key} {interval_text(interval, prefix='×')} ("
                    f"{ms(results.figure(b, 'p99_ms'), 1)} of {alone}; "
                    f"×{fmt(grew and grew.estimate, 1)} its p99 without heavy requests)")
        return judged(
            f"light p99 with {ss[-1]} % heavy ÷ the heavy request's own time: "
            f"{evidence(async_like, loop)}, {evidence(blocking_like, threads)}",
            all_of(*(verdict for verdict, _ in parts)), lambda: causes(*parts), loop, bases)

    return Claim("E9 light waits behind heavy",
                 "Behind one event loop a light request waits for a heavy one being computed; a "
                 "thread or process per request keeps them apart (Node.js's guide, \"Don't block "
                 "the event loop\"; E4's post: Node \"will be expensive on Processor when "
                 "performing CPU intensive jobs\")",
                 f"the light /hello p99 with the largest heavy share ÷ a heavy request's own time "
                 f"on that server, medians over the blocks with their interval: the async side "
                 f"×{WAITS} or more, the blocking side ×{APART} or less",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def claims(results):
    return [waits_claim(results)] if keys(results) else []


def section(results):
    keys_, ss = keys(results), shares(results)
    if not keys_ or not ss:
        return ""
    labels = [results.label(k) for k in keys_]
    header = ["heavy share"] + labels

    def rows(cell, which=ss):
        return [[f"{s} %"] + [cell(base(k, s / 100)) for k in keys_] for s in which]

    light_rows = rows(lambda b: f"{ms(results.figure(b, 'p50_ms'), 1)} / "
                                f"{ms(results.figure(b, 'p99_ms'), 1)}")
    heavy = [s for s in ss if s]
    heavy_rows = rows(lambda b: f"n={fmt(results.figure(b, 'heavy_n'), 0)}: "
                                f"{ms(results.figure(b, 'heavy_alone_ms'), 0)} alone, p99 "
                                f"{ms(results.figure(b, 'heavy_p99_ms'), 0)}", heavy)
    delay_rows = rows(lambda b: f"{ms(results.figure(b, 'loop_delay_p99_ms'), 1)} / "
                                f"{ms(results.figure(b, 'loop_delay_max_ms'), 1)}")
    cpu_rows = rows(lambda b: fmt(results.figure(b, "server_cpu_pct_core"), 0, suffix=" %"))
    return "\n".join([
        f"## {TITLE}", "",
        f"Light `GET {LIGHT_PATH}` at {RATE} a second from an open loop (`openloop`, a new "
        "connection each, latency from each request's intended send), and beside it heavy "
        f"requests at a share of that rate: `/factorial` with the n that takes about {HEAVY_MS} "
        "ms alone on that server, chosen on it before each run. A freshly started server per "
        "run. Medians over the blocks.", "",
        "The light requests' p50 / p99:", "", table(header, light_rows), "",
        *(["The heavy request: its n, its time alone (median of 3, one after the other), and "
           "its p99 among the light ones:", "", table(header, heavy_rows), ""] if heavy else []),
        "The event loop's delay over the server's life, p99 / max (a 10-ms timer's lateness, "
        "from /status: the async model's own, Node.js's perf_hooks; – where the system has no "
        "single loop):", "",
        table(header, delay_rows), "",
        "The server's CPU, % of one core:", "", table(header, cpu_rows), "",
        "![e9-heavy.png](e9-heavy.png)", "",
    ])


def plots(results):
    """The light p99 against the heavy share, a line per system with its 95 % interval."""
    keys_, ss = keys(results), shares(results)
    if not keys_ or not ss:
        return []
    columns = ["share", "heavy"] + [c for k in keys_ for c in interval_columns(f"{k}_p99")]
    rows = [[s, HEAVY_MS] + [cell for k in keys_ for cell in with_interval(
        results, base(k, s / 100), "p99_ms")] for s in ss]
    lines = [interval_line(f"{k}_p99", results.label(k), *style(results, k, keys_))
             for k in keys_] + [Line("heavy", "a heavy request alone",
                                     "#555555", 3, 1, point=0)]
    return [Plot("e9-heavy", columns, rows,
                 [Panel("the light /hello p99", "share", lines,
                        xlabel="heavy requests, % of the light rate", ylabel="ms (log scale)",
                        logy=True, ymin=None, key="bottom right")],
                 title=f"E9: light requests beside heavy ones (about {HEAVY_MS} ms each), "
                       "medians over the blocks and 95 % intervals")]


def headline(results):
    ss = shares(results)
    out = []
    for key, what, digits in (("p99_ms", "light p99 (ms)", 1),
                              ("heavy_alone_ms", "heavy request alone (ms)", 1),
                              ("loop_delay_p99_ms", "event loop delay p99 (ms)", 1)):
        out += figures(results, [(f"E9 {k} with {s} % heavy: {what}", base(k, s / 100),
                                  {"share": s / 100}) for k in keys(results) for s in ss],
                       key, digits)
    return out


pair_rows = nothing
