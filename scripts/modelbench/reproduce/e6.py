"""E6, the database across a network: /html under ab with MariaDB a round trip of 0 to 2 ms away,
for the blocking server with a connection per request and with persistent connections, the async
server and its cluster. The posts' setups had the database on the same host; production never
does, and each model pays for a round trip differently.

The delay comes from delay_proxy (tests/tools/delay_proxy): a TCP proxy between the server and
MariaDB that holds every segment for half the round trip in each direction and makes a new
connection pay the handshake (the greeting arrives 2 round trips after connect()). Every run
gets its own proxy and a server started with `--db-host/--db-port` of the proxy; 0 ms goes
through the proxy too, so the baseline has its costs. (This kernel has no netem qdisc; where
`tc qdisc ... netem` works it could delay the loopback instead.)

What a /html request pays per round trip d, when the round trips and not the CPU are the limit:

  blocking per-request   connect (2 d: TCP handshake and the server's greeting), authenticate
                         (1 d), then the two queries one after the other (2 d): 5 d, on the
                         request's own thread; min(c, 150) threads at once
  blocking persistent    the two queries: 2 d
  async                  both queries at once on two pool connections: 1 d, but the pool has
                         10 connections per worker, so 5 requests per worker are in flight

so a closed loop of c clients gets at most slots / (k d) requests/s (slots: threads, or pool
connections ÷ 2 for async; k: round trips per request), and never more than it got at 0 ms,
where the CPU was the limit. The report compares that bound with what was measured.
"""

import contextlib
import os
import select
import signal
import subprocess

from modelbench.reproduce import plots
from modelbench.reproduce.results import client_text
from modelbench.tables import fmt, table

DELAYS_MS = (0, 0.2, 0.5, 1, 2)
CONCURRENCIES = (20, 200)
SIZES = {
    "smoke": {"delays_ms": (0, 2), "n": {20: 200, 200: 400}},
    "default": {"delays_ms": DELAYS_MS, "n": {20: 2000, 200: 4000}},
    "full": {"delays_ms": DELAYS_MS, "n": {20: 4000, 200: 10000}},
}
# The servers' defaults, which E6 runs them with: the blocking server's thread cap and the async
# server's pool per worker.
MAX_WORKERS = 150
POOL = 10


class Model:
    """A server of E6: its name (run ids), the plan's server key and flags, and what one /html
    request pays in round trips: k round trips, and how many requests can wait on them at once
    (slots(c, cores))."""

    def __init__(self, name, label, server, flags, round_trips, slots, pays):
        self.name, self.label, self.server, self.flags = name, label, server, flags
        self.round_trips, self.slots, self.pays = round_trips, slots, pays


MODELS = (
    Model("blocking-per-request", "blocking per-request", "blocking",
          ("--db-connection", "per-request"), 5, lambda c, cores: min(c, MAX_WORKERS),
          "connect 2, authenticate 1, two queries in turn 2"),
    Model("blocking-persistent", "blocking persistent", "blocking",
          ("--db-connection", "persistent"), 2, lambda c, cores: min(c, MAX_WORKERS),
          "two queries in turn"),
    Model("async", "async", "async", (), 1, lambda c, cores: min(c, POOL // 2),
          "both queries at once; 10 pool connections: 5 requests in flight"),
    Model("async-cluster", "async cluster", "async-cluster", (), 1,
          lambda c, cores: min(c, POOL // 2 * cores),
          "both queries at once; 10 pool connections per worker"),
)


def base_id(model, c, delay):
    return f"e6-{model.name}-c{c}-rtt{delay:g}"


def base_steps(size, servers):
    """E6's steps of one round (plan.base_steps' form): a group per server of the plan (blocking,
    async, async-cluster among servers), each delay and concurrency once."""
    s = SIZES[size]
    by_key = {server.key: server for server in servers}
    groups = []
    for model in MODELS:
        server = by_key.get(model.server)
        if server is None:
            continue
        groups.append([
            (base_id(model, c, delay),
             f"E6 {model.label}, database {delay:g} ms away: ab -c {c} -n {s['n'][c]} /html",
             "ab", server, "/html", model.flags, {"c": c, "n": s["n"][c], "rtt_ms": delay})
            for delay in s["delays_ms"] for c in CONCURRENCIES])
    return [groups] if groups else []


# ---------------------------------------------------------------------------------------------
# The delaying proxy of a run

PROXY_READY_S = 10.0


class ProxyError(Exception):
    pass


def database_address():
    """Where the servers find MariaDB when no flag says otherwise (the private one; scripts/
    lib/cli.sh exports MYSQL_TCP_PORT when DB_PORT moved it)."""
    return (f"{os.environ.get('MYSQL_HOST', '127.0.0.1')}:"
            f"{os.environ.get('MYSQL_TCP_PORT', '3307')}")


@contextlib.contextmanager
def delayed_database(checkout, rtt_ms, log_prefix):
    """delay_proxy in front of the database for the block: yields the flags that point a server
    at it. Its output (the ready line, its totals when it stops) goes to LOG_PREFIX.proxy.log."""
    command = [checkout.binary("delay_proxy"), "--target", database_address(), "--listen",
               "127.0.0.1:0", "--rtt-ms", f"{rtt_ms:g}"]
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
        yield ["--db-host", host, "--db-port", port]
    finally:
        proxy.send_signal(signal.SIGTERM)
        try:
            rest, _ = proxy.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proxy.kill()
            rest, _ = proxy.communicate()
        with open(log_path, "a") as log:
            log.write(rest)


# ---------------------------------------------------------------------------------------------
# The report


def bound(model, c, delay, cores, rate_at_zero):
    """The requests/s the round trips allow (slots ÷ (k d)), capped by what 0 ms measured; None
    when 0 ms was not measured."""
    if rate_at_zero is None:
        return None
    if delay == 0:
        return rate_at_zero
    return min(rate_at_zero, 1000 * model.slots(c, cores) / (model.round_trips * delay))


def latency_per_rtt(results, model, c, delays):
    """Mean latency added per ms of round trip: the slope of a least-squares line through the
    medians over the delays (None with fewer than two)."""
    points = [(d, results.figure(base_id(model, c, d), "mean_ms")) for d in delays]
    points = [(d, ms) for d, ms in points if ms is not None]
    if len(points) < 2:
        return None
    mean_d = sum(d for d, _ in points) / len(points)
    mean_ms = sum(ms for _, ms in points) / len(points)
    spread = sum((d - mean_d) ** 2 for d, _ in points)
    return sum((d - mean_d) * (ms - mean_ms) for d, ms in points) / spread


def measured(results, delays):
    """The models, concurrencies and delays with a run, in table order."""
    return [(m, c) for m in MODELS for c in CONCURRENCIES
            if any(results.has(base_id(m, c, d)) for d in delays)]


def delays_run(results):
    return [d for d in DELAYS_MS
            if any(results.has(base_id(m, c, d)) for m in MODELS for c in CONCURRENCIES)]


def section(results):
    delays = delays_run(results)
    if not delays:
        return ""
    pairs = measured(results, delays)
    cores = results.cores
    parts = [
        "## E6 — the database across a network",
        "",
        "`ab -c 20` and `-c 200` against `/html` with MariaDB behind `delay_proxy`, a TCP "
        "proxy that adds a round trip of 0 to 2 ms (half each way, and the handshake to a new "
        "connection); each run has its own proxy and a server started with `--db-host` and "
        "`--db-port` of the proxy, so 0 ms includes the proxy's own costs. A cell is requests/s "
        "and the mean response time (medians over the rounds).",
        "",
    ]
    for c in CONCURRENCIES:
        models = [m for m, cc in pairs if cc == c]
        if not models:
            continue
        rows = []
        for d in delays:
            row = [f"{d:g} ms"]
            for m in models:
                base = base_id(m, c, d)
                rate, mean = (results.figure(base, "requests_per_s"),
                              results.figure(base, "mean_ms"))
                row.append("–" if rate is None else f"{fmt(rate, 0)} req/s, {fmt(mean, 1)} ms")
            rows.append(row)
        parts += [f"### {client_text(results.record(base_id(models[0], c, delays[0])))}",
                  "", table(["round trip"] + [cluster_label(m, cores) for m in models], rows), ""]
    parts += [
        "### What each model pays per round trip",
        "",
        "Round trips of one /html request (k) and how many requests can wait on them at once "
        "(slots: the request threads, at most 150; for async the pool's 10 connections per "
        "worker, two per request). While the round trips rather than the CPU are the limit, c "
        "clients get at most slots ÷ (k × d) requests/s and each request waits about "
        "k × c ÷ slots round trips (Little's law); *bound* is that rate, capped by the 0 ms "
        "figure, where the CPU was the limit; *added latency* is the slope of the mean response "
        "time over the delays measured, against k × c ÷ slots.",
        "",
    ]
    rows = []
    for m, c in pairs:
        slots = m.slots(c, cores)
        zero = results.figure(base_id(m, c, 0), "requests_per_s")
        worst = delays[-1]
        rate = results.figure(base_id(m, c, worst), "requests_per_s")
        limit = bound(m, c, worst, cores, zero)
        slope = latency_per_rtt(results, m, c, delays)
        rows.append([cluster_label(m, cores), str(c), f"{m.round_trips} ({m.pays})", str(slots),
                     fmt(rate, 0), fmt(limit, 0),
                     "–" if rate is None or not limit else f"{rate / limit:.2f}",
                     fmt(slope, 1), f"{m.round_trips * c / slots:.1f}"])
    parts += [table(["server", "c", "k: round trips per request", "slots",
                     f"req/s at {delays[-1]:g} ms", "bound", "measured ÷ bound",
                     "added latency (ms per ms of round trip)", "k × c ÷ slots"], rows), ""]
    if os.path.exists(os.path.join(results.directory, PLOT)):
        parts += [f"![{PLOT}]({PLOT})", ""]
    return "\n".join(parts)


def cluster_label(model, cores):
    return f"async cluster ×{cores}" if model.server == "async-cluster" else model.label


# ---------------------------------------------------------------------------------------------
# The plot

PLOT = "e6-database-latency.png"
COLORS = ("#c0392b", "#e67e22", "#2471a3", "#1e8449")


def draw(results):
    """The plot's job [(script name, script)] for plots.draw, its data written; none without E6
    runs."""
    delays = delays_run(results)
    if not delays:
        return []
    pairs = measured(results, delays)
    lines = ["# rtt_ms " + " ".join(f"{m.name}-c{c}_rps {m.name}-c{c}_mean_ms" for m, c in pairs)]
    for d in delays:
        cells = [f"{d:g}"]
        for m, c in pairs:
            for key in ("requests_per_s", "mean_ms"):
                value = results.figure(base_id(m, c, d), key)
                cells.append("-" if value is None else str(value))
        lines.append(" ".join(cells))
    data = "plots/e6.dat"
    plots.directory(results)
    with open(os.path.join(results.directory, data), "w") as f:
        f.write("\n".join(lines) + "\n")
    panels = []
    for c in CONCURRENCIES:
        for key, offset, ylabel in (("rps", 0, "requests/s"), ("mean", 1, "mean response (ms)")):
            curves = [f"'{data}' using 1:{2 + 2 * i + offset} with linespoints lw 2 pt 7 "
                      f"lc rgb '{COLORS[MODELS.index(m)]}' title '{cluster_label(m, results.cores)}'"
                      for i, (m, cc) in enumerate(pairs) if cc == c]
            if curves:
                panels.append("\n".join([
                    f"set title '/html, ab -c {c}: {ylabel}'",
                    f"set ylabel '{ylabel}'",
                    "plot " + ", \\\n     ".join(curves)]))
    script = "\n".join([
        plots.TERMINAL.replace("900,560", "1100,800"),
        f"set output '{PLOT}'",
        "set datafile missing '-'",
        "set xlabel 'round trip to the database (ms)'",
        "set xrange [-0.1:*]",
        "set yrange [0:*]",
        "set grid",
        "set key top right",
        "set multiplot layout 2,2 title 'E6: /html with the database a round trip away'",
        *panels,
        "unset multiplot",
    ]) + "\n"
    return [("e6.gp", script)]
