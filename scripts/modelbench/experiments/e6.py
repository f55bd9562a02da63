"""E6, the database across a network (docs/experiments.md, with what each model pays per round
trip): /html under ab with MariaDB behind delay_proxy (tests/tools/delay_proxy), a round trip of 0
to 2 ms away. (This kernel has no netem qdisc; where `tc qdisc ... netem` works it could delay the
loopback instead.)"""

import contextlib
import os
import select
import signal
import statistics
import subprocess
from dataclasses import dataclass

from modelbench.engine.server import TargetError
from modelbench.engine.plan import Group, Load, Run, Setup
from modelbench.experiments.base import (NO_MORE, SWEEP_BLOCKS, figures, interval_columns,
                                         interval_line, nothing, part, with_interval)
from modelbench.report.plots import Panel, Plot
from modelbench.report.results import client_text
from modelbench.report.tables import fmt, table

KEY = "E6"
TITLE = "E6 — the database across a network"
IN_DEFAULT = False
DELAYS_MS = (0, 0.2, 0.5, 1, 2)
CONCURRENCIES = (20, 200)
PROXY_READY_S = 10.0
PLOT = "e6-database-latency.png"
COLORS = ("#c0392b", "#e67e22", "#2471a3", "#1e8449")
SWEEP = {"delays_ms": DELAYS_MS, "seconds": 2}
SIZES = {"smoke": {"delays_ms": (0, 2), "seconds": 1}, "default": SWEEP, "standard": SWEEP,
         "full": {**SWEEP, "seconds": 5}}


def threads(c, status):
    """The blocking server's request threads: one per client, at most its cap."""
    return min(c, status[0]["blocking"]["max_workers"])


def pool_pairs(c, status):
    """The async server's pool connections over all its workers, two per request."""
    return min(c, sum(doc["async"]["pool"]["size"] for doc in status) // 2)


@dataclass(frozen=True)
class Model:
    """A server of E6 and what one /html request pays: round_trips (k), and slots(c, its /status
    documents after a run): how many requests can wait on them at once."""

    name: str
    label: str
    system: str
    cluster: bool
    flags: tuple
    round_trips: int
    slots: object
    pays: str


MODELS = (
    Model("blocking-per-request", "blocking per-request", "blocking", False,
          ("--db-connection", "per-request"), 5, threads,
          "connect 2, authenticate 1, two queries in turn 2"),
    Model("blocking-persistent", "blocking persistent", "blocking", False,
          ("--db-connection", "persistent"), 2, threads, "two queries in turn"),
    Model("async", "async", "async", False, (), 1, pool_pairs,
          "both queries at once on two pool connections"),
    Model("async-cluster", "async cluster", "async", True, (), 1, pool_pairs,
          "both queries at once; a pool per worker"),
)


def base_id(model, c, delay):
    return f"e6-{model.name}-c{c}-rtt{delay:g}"


def plan(ctx):
    """A part per delay, a group per model: its own proxy and server, the concurrencies in turn."""
    size = SIZES[ctx.size]
    loads = [Load("ab", "/html", c, seconds=size["seconds"]) for c in CONCURRENCIES]
    parts = []
    for delay in size["delays_ms"]:
        groups = [Group([Run(base_id(model, load.c, delay), f"E6 {model.label}, database "
                             f"{delay:g} ms away: {load.text()}", KEY,
                             ctx.server(model.system, cluster=model.cluster,
                                        own_flags=model.flags, key=model.name), load,
                             record={"rtt_ms": delay}) for load in loads],
                        around=lambda checkout, prefix, d=delay:
                        delayed_database(checkout, d, prefix))
                  for model in MODELS if ctx.has(model.system)]
        if groups:
            parts.append(part(ctx, groups, SWEEP_BLOCKS, NO_MORE))
    return parts


class ProxyError(TargetError):
    """delay_proxy did not start: the group's server cannot start either."""


@contextlib.contextmanager
def delayed_database(checkout, rtt_ms, log_prefix):
    """delay_proxy in front of the database for the block, logging to LOG_PREFIX.proxy.log."""
    # The private MariaDB (scripts/lib/cli.sh exports MYSQL_TCP_PORT when DB_PORT moved it).
    database = (f"{os.environ.get('MYSQL_HOST', '127.0.0.1')}:"
                f"{os.environ.get('MYSQL_TCP_PORT', '3307')}")
    command = [checkout.binary("delay_proxy"), "--target", database, "--listen", "127.0.0.1:0",
               "--rtt-ms", f"{rtt_ms:g}"]
    log_path = log_prefix + ".proxy.log"
    with open(log_path, "w") as log:
        try:
            proxy = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log,
                                     stdin=subprocess.DEVNULL, text=True)
        except OSError as error:
            raise ProxyError(f"cannot start {command[0]}: {error}") from error
    try:
        ready = select.select([proxy.stdout], [], [], PROXY_READY_S)[0]
        line = proxy.stdout.readline() if ready else ""
        if not line.startswith("listening on "):
            raise ProxyError(f"{' '.join(command)} did not get ready (see {log_path})")
        host, _, port = line.split()[-1].rpartition(":")
        yield Setup(["--db-host", host, "--db-port", port], (proxy.pid,))
    finally:
        proxy.send_signal(signal.SIGTERM)
        try:
            rest, _ = proxy.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proxy.kill()
            rest, _ = proxy.communicate()
        with open(log_path, "a") as log:
            log.write(rest)


def bound(slots, model, delay, rate_at_zero):
    """The requests/s the round trips allow (slots ÷ (k d)), capped by what 0 ms measured."""
    return rate_at_zero if rate_at_zero is None or delay == 0 else \
        min(rate_at_zero, 1000 * slots / (model.round_trips * delay))


def latency_per_rtt(results, model, c, delays):
    """Mean latency added per ms of round trip: the least-squares slope through the medians."""
    points = [(d, results.figure(base_id(model, c, d), "mean_ms")) for d in delays]
    points = [(d, ms) for d, ms in points if ms is not None]
    return None if len(points) < 2 else statistics.linear_regression(*zip(*points)).slope


def measured(results):
    """The delays, and the (model, concurrency) pairs, with a run."""
    delays = [d for d in DELAYS_MS
              if any(results.has(base_id(m, c, d)) for m in MODELS for c in CONCURRENCIES)]
    return delays, [(m, c) for m in MODELS for c in CONCURRENCIES
                    if any(results.has(base_id(m, c, d)) for d in delays)]


def section(results):
    delays, pairs = measured(results)
    if not delays:
        return ""
    parts = [
        f"## {TITLE}", "",
        "`ab -c 20` and `-c 200` against `/html` with MariaDB behind `delay_proxy`, a TCP "
        "proxy that adds a round trip of 0 to 2 ms (half each way, and the handshake to a new "
        "connection); each run has its own proxy and a server started with `--db-host` and "
        "`--db-port` of the proxy, so 0 ms includes the proxy's own costs. A cell is requests/s "
        "and the mean response time (medians over the blocks).", "",
    ]

    def cell(base):
        rate, mean = (results.figure(base, key) for key in ("requests_per_s", "mean_ms"))
        return "–" if rate is None else f"{fmt(rate, 0)} req/s, {fmt(mean, 1)} ms"

    for c in CONCURRENCIES:
        models = [m for m, cc in pairs if cc == c]
        if not models:
            continue
        rows = [[f"{d:g} ms"] + [cell(base_id(m, c, d)) for m in models] for d in delays]
        parts += [f"### {client_text(results.record(base_id(models[0], c, delays[0])))}",
                  "", table(["round trip"] + [cluster_label(m, results.cores) for m in models],
                            rows), ""]
    parts += [
        "### What each model pays per round trip", "",
        "Round trips of one /html request (k) and how many requests can wait on them at once "
        "(slots: the request threads, at most the server's cap; for async its pool connections, "
        "two per request; both from the server's /status). While the round trips rather than the "
        "CPU are the limit, c clients get at most slots ÷ (k × d) requests/s and each request "
        "waits about k × c ÷ slots round trips (Little's law); *bound* is that rate, capped by the "
        "0 ms figure, where the CPU was the limit; *added latency* is the slope of the mean "
        "response time over the delays measured, against k × c ÷ slots.", "",
    ]
    rows = []
    for m, c in pairs:
        status = next(filter(None, (results.status(base_id(m, c, d)) for d in delays)), [])
        if not status:
            continue
        slots = m.slots(c, status)
        zero, rate = (results.figure(base_id(m, c, d), "requests_per_s") for d in (0, delays[-1]))
        limit = bound(slots, m, delays[-1], zero)
        rows.append([cluster_label(m, results.cores), str(c), f"{m.round_trips} ({m.pays})",
                     str(slots), fmt(rate, 0), fmt(limit, 0),
                     "–" if rate is None or not limit else f"{rate / limit:.2f}",
                     fmt(latency_per_rtt(results, m, c, delays), 1),
                     f"{m.round_trips * c / slots:.1f}"])
    parts += [table(["server", "c", "k: round trips per request", "slots",
                     f"req/s at {delays[-1]:g} ms", "bound", "measured ÷ bound",
                     "added latency (ms per ms of round trip)", "k × c ÷ slots"], rows), ""]
    if os.path.exists(os.path.join(results.directory, PLOT)):
        parts += [f"![{PLOT}]({PLOT})", ""]
    return "\n".join(parts)


def cluster_label(model, cores):
    return f"async cluster ×{cores}" if model.cluster else model.label


def plots(results):
    delays, pairs = measured(results)
    if not delays:
        return []
    columns = ["rtt_ms"] + [column for m, c in pairs for what in ("rps", "mean")
                            for column in interval_columns(f"{m.name}_c{c}_{what}")]
    rows = [[d] + [cell for m, c in pairs for key in ("requests_per_s", "mean_ms")
                   for cell in with_interval(results, base_id(m, c, d), key)] for d in delays]
    panels = []
    for c in CONCURRENCIES:
        for what, ylabel in (("rps", "requests/s"), ("mean", "mean response (ms)")):
            lines = [interval_line(f"{m.name}_c{c}_{what}", cluster_label(m, results.cores),
                                   COLORS[MODELS.index(m)], band=True)
                     for m, cc in pairs if cc == c]
            if lines:
                panels.append(Panel(f"/html, ab -c {c}: {ylabel}", "rtt_ms", lines,
                                    xlabel="round trip to the database (ms)", ylabel=ylabel,
                                    key="below horizontal", bottom=6))
    return [Plot(PLOT.removesuffix(".png"), columns, rows, panels,
                 title="E6: /html with the database a round trip away: the medians over the "
                       "blocks, the bands their 95 % intervals", layout=(2, 2),
                 size=(1100, 800))]


def headline(results):
    delays, pairs = measured(results)
    return figures(results, [(f"E6 {m.name} -c {c} rtt {d:g} ms requests/s", base_id(m, c, d),
                              {"concurrency": c, "rtt_ms": d}) for m, c in pairs for d in delays],
                   "requests_per_s", 1)


claims = pair_rows = nothing
