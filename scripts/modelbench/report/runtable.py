"""The rows every load-run table shares (a column per base id), the kernel's listen-queue counters,
the notes under a table, and the rows of the model-against-real tables."""

from modelbench.engine import loads
from modelbench.engine.machine import speed_changed
from modelbench.engine.serverstatus import AGREE_PCT, STATUS
from modelbench.report import statistics
from modelbench.report.results import per_request_ms
from modelbench.report.tables import fmt, interval_cell


def load_rows(results, bases, extra=()):
    def row(label, key, digits=1, scale=1.0):
        return [label] + [fmt(results.figure(b, key), digits, scale) for b in bases]

    def percentile(base, key):
        value = results.figure(base, key)
        resolution = loads.ALL[results.record(base)["tool"]].resolution_ms if value == 0 else 0
        return f"<{resolution}" if resolution else fmt(value, 1)

    def per_request(who):
        return [fmt(results.per_request_ms(b, who), 3) for b in bases]

    rows = [
        ["requests/s [95 % interval]"] +
        [interval_cell(results.interval(b, "requests_per_s")) for b in bases],
        ["blocks"] + [str(len(results.blocks(b))) for b in bases],
        ["CPU load tool per request (ms) [95 % interval]"] + [interval_cell(
            results.interval(b, per_request_ms("client")), 3) for b in bases],
        ["machine speed probe before the run (ms, lower is faster), lowest–highest"] +
        [extremes(results.values(b, "probe_before_ms"), 1) for b in bases],
        row("mean response time (ms)", "mean_ms", 2),
        ["p50 / p90 / p99 (ms)"] + [
            " / ".join(percentile(b, k) for k in ("p50_ms", "p90_ms", "p99_ms")) for b in bases],
        row("longest (ms)", "max_ms"),
        row("throughput (MiB/s)", "transfer_kib_s", 2, 1 / 1024),
        row("failed requests", "failed", 0),
        row("non-2xx responses", "non2xx", 0),
        *extra,
        ["CPU server, % of one core (of the machine)"] + [results.cpu(b, "server") for b in bases],
        ["CPU server per request (ms)"] + per_request("server"),
    ]
    if any(results.figure(b, "status_cpu_s") is not None or
           results.record(b).get("figures", {}).get("server_cpu_source") == STATUS for b in bases):
        rows.append(["CPU server: its own /status (against /proc)"] +
                    [status_cell(results, b) for b in bases])
    rows += [
        ["CPU mariadbd, % of one core (of the machine)"] + [results.cpu(b, "db") for b in bases],
        ["CPU mariadbd per request (ms)"] + per_request("db"),
        ["CPU load tool, % of one core (of the machine)"] +
        [results.cpu(b, "client") for b in bases],
        row("machine busy (%)", "machine_busy_pct"),
        row("peak threads of the server", "server_peak_threads", 0),
        row("peak processes of the server", "server_peak_processes", 0),
        row("peak RSS of the server (MiB)", "server_peak_rss_mib"),
    ]
    if any(results.figure(b, "server_db_connects") is not None for b in bases):
        # Only the models count them (/status); the real systems have no such counter.
        rows.append(["database connections opened (model's /status)"] +
                    [fmt(results.figure(b, "server_db_connects"), 0)
                     if results.figure(b, "status_cpu_s") is not None else "n/a"
                     for b in bases])
    return rows


def extremes(values, digits):
    """'5.2–9.8': the lowest and the highest of the values, '–' without any."""
    values = [v for v in values if v is not None]
    return f"{min(values):,.{digits}f}–{max(values):,.{digits}f}" if values else "–"


def status_cell(results, base):
    """The server's CPU by its own /status: the only figure for a remote server; beside /proc's,
    the median of both and their difference, flagged when a block's exceeds the tolerance."""
    if results.record(base).get("figures", {}).get("server_cpu_source") == STATUS:
        return f"{fmt(results.figure(base, 'server_cpu_s'), 2)} s (remote: /status only)"
    status = results.figure(base, "status_cpu_s")
    if status is None:
        return "n/a (no /status)"
    diff = results.figure(base, "status_cpu_diff_pct")
    agree = "" if all(results.values(base, "status_cpu_agrees")) else "; **disagree**"
    return (f"{fmt(status, 2)} s vs {fmt(results.figure(base, 'server_cpu_s'), 2)} s "
            f"({'–' if diff is None else f'{diff:+.1f} %'}{agree})")


def table_notes(results, bases):
    """Notes under a table: a run's own note (a hung tool), a change of the machine's speed, /status
    disagreeing with /proc, a load tool at most of a core (then it was measured, not the server)."""
    notes = []
    for base in bases:
        for run in results.blocks(base).values():
            run_id = run["id"]
            if run.get("note"):
                notes.append(f"`{run_id}`: {run['note']}.")
            f = run["figures"]
            if speed_changed(f):
                notes.append(f"`{run_id}`: the machine's speed changed during the run (probe "
                             f"{f['probe_before_ms']} ms before, {f['probe_after_ms']} ms "
                             "after).")
            if f.get("status_cpu_agrees") == 0:
                notes.append(f"`{run_id}`: the server's /status counted {f['status_cpu_s']} s "
                             f"of CPU, /proc {f['server_cpu_s']} s: more than "
                             f"{AGREE_PCT:.0f} % apart.")
            cpu = f.get("client_cpu_pct_core")
            if cpu is not None and cpu >= 90:
                tool = run.get("tool")
                notes.append(f"`{run_id}`: {tool} used {cpu:.0f} % of a core, so {tool} rather "
                             "than the server was the limit of that run.")
    return ["", "Note: " + " ".join(notes)] if notes else []


def counter_rows(results, bases):
    rows = [[label] + [count_cell(results.values(b, key)) for b in bases]
            for label, key in (("listen queue overflows (ListenOverflows)", "listen_overflows"),
                               ("listen drops (ListenDrops)", "listen_drops"),
                               ("SYN retransmits (TCPSynRetrans)", "syn_retransmits"))]
    return rows + [["longest, lowest–highest over the blocks (ms)"] +
                   [extremes(results.values(b, "max_ms"), 0) for b in bases]]


def count_cell(values):
    """A count over the blocks: its median, and its lowest–highest when they differ."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    median = fmt(statistics.median(values), 0)
    return median if min(values) == max(values) else f"{median} ({extremes(values, 0)})"


def pair_row(results, label, model_base, real_base, key, digits=1):
    """A row of the model-against-real tables: the model's figure and the real system's over
    the blocks, and the model's over the real one's taken block by block ([] when neither ran)."""
    m, r = results.interval(model_base, key), results.interval(real_base, key)
    if m is None and r is None:
        return []
    ratio = results.ratio([model_base, real_base], key)
    return [[label, interval_cell(m, digits), interval_cell(r, digits),
             interval_cell(ratio, 2, "×")]]


def pair_cpu_row(results, label, model_base, real_base, who, digits=3):
    """The same for the CPU per request of who (server, db)."""
    return pair_row(results, label, model_base, real_base, per_request_ms(who), digits)


def pair_derived_row(label, model, real, digits):
    """The same for two Intervals of a figure derived within each block (a shape): the ratio is
    of their estimates, their blocks not being paired."""
    if model is None and real is None:
        return []
    ratio = None if model is None or real is None or not real.estimate else \
        model.estimate / real.estimate
    return [[label, interval_cell(model, digits), interval_cell(real, digits),
             "–" if ratio is None else f"×{ratio:.2f}"]]
