"""E8, idle connections (docs/experiments.md asks, reads and gives its first run): `held` idle
keep-alive connections (each after one answered GET /hello) opened against a freshly started
server, its processes, threads, descriptors and memory read before and with them held, then a
probe while they are held: openloop's /hello latency (PROBE_RATE a second for PROBE_S, a new
connection each, as a new client would come) or ab's /html rate (ab -c HTML_C -n HTML_N), one run
each (engine.loads.idle holds them and says how opening stops short).

Why each choice:
- A fresh server per run (a group of one run, no warm-up): Apache's prefork children, once
  spawned, would stay in the next run's "before" and hide what a connection costs.
- The connections are not touched again (a request on each would be load, not idleness): they
  stay open for the server's keep-alive timeout. Apache's KeepAliveTimeout, Node's
  keepAliveTimeout and the blocking model's --keepalive-timeout are 5 s, which the opening, the
  snapshot and a PROBE_S probe fit in; the worker freed after them is the posts' point (the 151st
  client waits). The async model gets --keepalive-timeout ASYNC_KEEPALIVE_S, so that opening
  10,000 from Python cannot outlast it (its memory per connection does not depend on it); nginx
  keeps its keepalive_timeout 65 and gets --worker-connections NGINX_CONNECTIONS (1024 caps it
  otherwise). open_after_probe records how many were still open after the probe.
- The memory is the growth of every process of the system (PSS where readable: a forked worker
  counts only what it adds; else RSS) divided by the connections held when it was read (answered
  and still open), not those asked.
- The open-file limit: reproduce's checks raise the soft limit, before any server starts, to
  the most connections a run holds and 400 more (checks.open_files_needed), as far as the hard
  limit allows: the harness holds one end of each connection, the server, which inherits the
  limit, the other. The raise is this process's and its children's, and ends with them. Each run
  records both limits in force."""

import re

from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments.base import (NO_MORE, POSTS, SIDES, SWEEP_BLOCKS, interval_columns,
                                         interval_line, ms, nothing, part, server_order, style,
                                         with_interval)
from modelbench.report.plots import Panel, Plot
from modelbench.report.summary import Figure
from modelbench.report.tables import fmt, interval_cell, table
from modelbench.report.verdicts import (Claim, all_of, at_least, at_most, interval_text, judged,
                                        needs, ratio_side)

KEY = "E8"
TITLE = "E8 — idle keep-alive connections: what each costs, and a client beside them"
IN_DEFAULT = False
RUN = re.compile(r"^e8-(.+)-n(\d+)-(hello|html)$")
SYSTEMS = POSTS + ("nginx",)
WORKERS = 150  # Apache's MaxRequestWorkers and the blocking model's --max-workers
FEW_KIB = 8  # "a few KiB" an event loop holds a connection for (nginx: 2.5 MB for 10,000)
MANY_KIB = 4 * FEW_KIB  # a thread's or a process's per connection: clearly more than a few KiB
WAITS = 10  # the probe's p99 above the workers over below them: it waited
PROBE_RATE, PROBE_S = 100, 2
HTML_C, HTML_N = 10, 200
ASYNC_KEEPALIVE_S = 60
NGINX_CONNECTIONS = 11000
# What a run waits beyond its load's estimate (a --standard run, 2026-12-07; E8 took 16 minutes
# against 7 estimated before): with more held than WORKERS, the opening lasts its OPEN_S and the
# probe waits for a worker (9.5 to 13 s more on the blocking model); Apache also forks its
# children a few a second and stops them slowly (8.8 s more at 100 held, 18 to 24 at 1,000 and
# more).
CAPPED_WAIT_S = 12.0
APACHE_WAIT_S = 9.0
STANDARD = (100, 1000, 5000, 10000)
SIZES = {"smoke": (10, 200), "default": STANDARD, "standard": STANDARD, "full": STANDARD}


def wait_s(server, held):
    """For the estimate: what a run waits on a server with workers (the blocking side)."""
    if server.system.side != "blocking":
        return 0.0
    return (CAPPED_WAIT_S if held > WORKERS else 0.0) + (APACHE_WAIT_S if server.real else 0.0)


def base(key, held, probe="hello"):
    return f"e8-{key}-n{held}-{probe}"


def own_flags(name):
    """The flags that keep a system's connections open as long as E8 needs (the module's
    docstring says why)."""
    return {"async": ("--keepalive-timeout", str(ASYNC_KEEPALIVE_S)),
            "nginx": ("--worker-connections", str(NGINX_CONNECTIONS))}.get(name, ())


def plan(ctx):
    """One part: a fresh group of one run per server, held count and probe (/html only where
    the system serves it), in E5's to E7's three blocks: a connection's memory varies little, and
    the claims' thresholds are far apart."""
    groups = []
    for server in ctx.servers(SYSTEMS, needs="/hello"):
        server = ctx.server(server.system.name, own_flags=own_flags(server.system.name))
        for held in SIZES[ctx.size]:
            probes = [("hello", Load("idle-openloop", "/hello", rate=PROBE_RATE,
                                     seconds=PROBE_S, held=held))]
            if "/html" in server.system.endpoints:
                probes.append(("html", Load("idle-ab", "/html", c=HTML_C, n=HTML_N, held=held)))
            groups += [Group([Run(base(server.key, held, probe), f"E8 {server.key}: {load.text()}",
                                  KEY, server, load, warm=False, wait_s=wait_s(server, held))],
                             fresh=True)
                       for probe, load in probes]
    return [part(ctx, groups, SWEEP_BLOCKS, NO_MORE)] if groups else []


def counts(results):
    """The held counts asked for, ascending."""
    return sorted({int(m.group(2)) for m in map(RUN.match, results.by_base) if m})


def keys(results):
    """The server keys, in table order, with a /hello run of any count."""
    return [k for k in server_order(results) if any(results.has(base(k, n))
                                                    for n in counts(results))]


def largest(results, key):
    """The largest count whose /hello runs measured key's memory per connection (None: none)."""
    return next((n for n in reversed(counts(results))
                 if results.figure(base(key, n), "kib_per_connection") is not None), None)


def reached(results, b):
    """'10,000' or '150 of 1,000' (medians over the blocks), '–' without a run."""
    held, asked = (results.figure(b, k) for k in ("held", "held_asked"))
    if held is None:
        return "–"
    return f"{held:,.0f}" if held >= asked else f"{held:,.0f} of {asked:,.0f}"


def stops(results, keys_):
    """What stopped the opening short, a line per system and count: the first block's text, and
    the other blocks that stopped short with the counts they held ('' when none did)."""
    lines = []
    for k in keys_:
        for n in counts(results):
            short = [(number, run) for number, run in sorted(results.blocks(base(k, n)).items())
                     if run.get("stopped")]
            if not short:
                continue
            (first, run), others = short[0], short[1:]
            also = ", ".join(f"{number} ({fmt(other['figures'].get('held'), 0)} held)"
                             for number, other in others)
            lines.append(f"- {results.label(k)}, {n:,}: {run['stopped']}" +
                         (f" (block {first}; blocks {also} stopped short too)" if others else ""))
    return "\n".join(lines)


def nginx_total(results):
    """nginx's memory growth at its largest count beside the posts' 2.5 MB for 10,000 ('' when
    nginx did not run)."""
    n = largest(results, "nginx")
    if n is None:
        return ""
    b = base("nginx", n)
    grown = results.figure(b, "kib_per_connection") * results.figure(b, "held")
    return (f"nginx grew by {fmt(grown / 1024, 1)} MiB with {results.figure(b, 'held'):,.0f} "
            "connections held (the 10k posts: about 2.5 MB for 10,000).")


def section(results):
    keys_, ns = keys(results), counts(results)
    if not keys_ or not ns:
        return ""
    header = ["system"] + [f"{n:,}" for n in ns]

    def rows(cell):
        return [[results.label(k)] + [cell(k, n) for n in ns] for k in keys_]

    reached_rows = rows(lambda k, n: f"{reached(results, base(k, n))} "
                                     f"({fmt(results.figure(base(k, n), 'open_after_probe'), 0)})")
    memory_rows = rows(lambda k, n: interval_cell(results.interval(base(k, n),
                                                                   "kib_per_connection"), 1))
    shape_rows = rows(lambda k, n: " / ".join(fmt(results.figure(base(k, n), f"held_{what}"), 0)
                                              for what in ("processes", "threads", "fds")))
    probe_rows = rows(lambda k, n: f"{fmt(results.figure(base(k, n), 'p50_ms'), 1)} / "
                                   f"{fmt(results.figure(base(k, n), 'p99_ms'), 1)}")
    html_rows = rows(lambda k, n: fmt(results.figure(base(k, n, "html"), "requests_per_s"), 0))
    measures = sorted({run["figures"].get("memory_measure", "").upper() for k in keys_ for n in ns
                       for run in results.blocks(base(k, n)).values()} - {""})
    stopped, nginx = stops(results, keys_), nginx_total(results)
    return "\n".join([
        f"## {TITLE}", "",
        "Idle keep-alive connections, each after one answered `GET /hello`, held against a "
        "freshly started server, then a probe while they are held: `openloop` at "
        f"{PROBE_RATE} /hello a second for {PROBE_S} s (a new connection each, as a new client "
        f"comes), or `ab -c {HTML_C} -n {HTML_N} /html`, one run each. The connections are not "
        "touched again, so each stays open for its server's keep-alive timeout: 5 s for Apache, "
        f"Node.js and the blocking model, {ASYNC_KEEPALIVE_S} s for the async model, 65 s for "
        f"nginx. Apache and the blocking model have {WORKERS} workers. Medians over the blocks; "
        "intervals 95 %.", "",
        "Connections held (of those asked; in brackets, still open after the probe):", "",
        table(header, reached_rows), "",
        *(["Where fewer were held, what stopped the opening:", "", stopped, ""]
          if stopped else []),
        f"Memory per held connection, KiB ({' or '.join(measures) or 'none measured'} of every "
        "process of the system, its growth over the connections held):", "",
        table(header, memory_rows), "",
        *([nginx, ""] if nginx else []),
        "Processes / threads / descriptors with them held:", "",
        table(header, shape_rows), "",
        "The probe's /hello p50 / p99 (ms, from each request's intended send) while they are "
        "held:", "",
        table(header, probe_rows), "",
        f"/html requests/s of `ab -c {HTML_C}` while they are held:", "",
        table(header, html_rows), "",
        "![e8-idle.png](e8-idle.png)", "",
    ])


def memory_claim(results):
    def side(blocking_like, async_like):
        nb, na = largest(results, blocking_like), largest(results, async_like)
        if nb is None or na is None:
            return needs(base(blocking_like, counts(results)[-1] if counts(results) else 0),
                         base(async_like, counts(results)[-1] if counts(results) else 0))
        b, a = base(blocking_like, nb), base(async_like, na)
        many, few = (results.interval(x, "kib_per_connection") for x in (b, a))
        return judged(
            f"{blocking_like} {interval_text(many, suffix=' KiB')} per connection with "
            f"{results.figure(b, 'held'):,.0f} held, {async_like} "
            f"{interval_text(few, suffix=' KiB')} with {results.figure(a, 'held'):,.0f}",
            all_of(at_least(many, MANY_KIB), at_most(few, FEW_KIB)),
            lambda: f"{blocking_like}: {fmt(many.estimate, 1)} KiB, {async_like}: "
                    f"{fmt(few.estimate, 1)} KiB per connection.", many, (b, a))

    return Claim("E8 memory per connection",
                 "A thread or process per connection costs memory with each idle connection; "
                 "the event loop holds one for a few KiB (the 10k posts: nginx's 2.5 MB for "
                 "10,000)",
                 f"memory per held connection at the largest count measured: the blocking side "
                 f"{MANY_KIB} KiB or more, the async side {FEW_KIB} KiB or less",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def around_workers(results):
    """(the largest count up to WORKERS, the smallest above): None where there is none."""
    ns = counts(results)
    return (next((n for n in reversed(ns) if n <= WORKERS), None),
            next((n for n in ns if n > WORKERS), None))


def probe_claim(results):
    below, above = around_workers(results)

    def side(blocking_like, async_like):
        if below is None or above is None:
            return needs(base(blocking_like, WORKERS), base(blocking_like, WORKERS + 1))
        control = results.ratio([base(async_like, above), base(async_like, below)], "p99_ms")
        return ratio_side(
            results, base(blocking_like, above), base(blocking_like, below), "p99_ms",
            lambda interval: at_least(interval, WAITS),
            lambda interval: f"{blocking_like}'s probe p99 with {above:,} held ÷ with "
                             f"{below:,}, within each block {interval_text(interval, prefix='×')}"
                             f" ({ms(results.figure(base(blocking_like, above), 'p99_ms'), 1)} "
                             f"and {ms(results.figure(base(blocking_like, below), 'p99_ms'), 1)}"
                             f"; {async_like}'s {interval_text(control, prefix='×')})",
            lambda: f"{blocking_like}'s probe did not wait with {above:,} connections held.")

    return Claim("E8 probe waits",
                 f"Once idle connections outnumber its workers ({WORKERS}, KeepAliveTimeout 5 s) "
                 "the thread or process per connection makes a new client wait",
                 f"the blocking side's probe p99 with the first count above {WORKERS} held ÷ "
                 f"with the last count up to it, within each block: ×{WAITS} or more",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def claims(results):
    return [memory_claim(results), probe_claim(results)] if keys(results) else []


def plots(results):
    """Memory per connection and the probe's p99 against the connections held (log scales),
    a line per system with its 95 % interval as a band."""
    keys_ = [k for k in keys(results) if largest(results, k) is not None]
    if not keys_:
        return []
    figures_ = (("kib", "kib_per_connection"), ("p99", "p99_ms"))
    columns = ["held"] + [c for k in keys_ for what, _ in figures_
                          for c in interval_columns(f"{k}_{what}")]
    rows = [[n] + [cell for k in keys_ for _, key in figures_
                   for cell in with_interval(results, base(k, n), key)] for n in counts(results)]

    def lines(what):
        return [interval_line(f"{k}_{what}", results.label(k), *style(results, k, keys_),
                              band=True) for k in keys_]
    panels = [Panel("memory per held connection", "held", lines("kib"),
                    xlabel="idle connections asked for", ylabel="KiB (log scale)", logx=True,
                    logy=True, ymin=None),
              Panel("the probe's /hello p99", "held", lines("p99"),
                    xlabel="idle connections asked for", ylabel="ms (log scale)", logx=True,
                    logy=True, ymin=None)]
    return [Plot("e8-idle", columns, rows, panels,
                 title="E8: idle keep-alive connections, medians over the blocks and their 95 % "
                       "intervals",
                 layout=(1, 2), size=(1100, 440))]


def headline(results):
    out = []
    for k in keys(results):
        for n in counts(results):
            b = base(k, n)
            for key, name, digits in (("kib_per_connection", "KiB per connection", 2),
                                      ("held", "connections held", 0),
                                      ("p99_ms", "probe p99 (ms)", 1)):
                interval = results.interval(b, key)
                if interval is not None:
                    out.append(Figure(f"E8 {k} with {n:,} asked: {name}", KEY, k, key,
                                      round(interval.estimate, digits), interval, concurrency=n,
                                      digits=digits))
    return out


pair_rows = nothing
