"""The load tools and their outputs: the command lines of ab 2.3, siege 4.0.7, wrk 4.1 and
slowhttptest 1.8.2 as the harness runs them, and the figures out of what they (and the servers'
--standalone mode) print."""

import json
import re


class ParseError(Exception):
    pass


def ab_command(url, concurrency, requests, percentiles_csv, keepalive=False, time_limit=None,
               variable_length=False):
    """ab -r (a socket error counts as a failed request instead of aborting the run) with its
    percentiles written to percentiles_csv (-e)."""
    command = ["ab", "-r"] + (["-k"] if keepalive else []) + ["-c", str(concurrency)]
    if time_limit:
        # Before -n: ab's -t sets the request count to 50000, whatever -n said before it.
        command += ["-t", f"{time_limit:g}"]
    command += ["-n", str(requests), "-e", percentiles_csv]
    if variable_length:
        command.append("-l")
    return command + [url]


def wrk_command(url, summary_lua, concurrency, duration_s, cores):
    """wrk: keep-alive connections, a thread per core (never more threads than connections),
    for duration_s; summary_lua (scripts/wrk-summary.lua) prints its figures as JSON. A request
    counts as timed out after 30 s, as ab's."""
    threads = max(1, min(concurrency, cores))
    return ["wrk", "-t", str(threads), "-c", str(concurrency), "-d", f"{duration_s:g}s",
            "--timeout", "30s", "--latency", "-s", summary_lua, url]


WRK_SUMMARY = "WRK_SUMMARY "


def parse_wrk(text):
    """wrk's figures (its WRK_SUMMARY line) under the names of ab's: requests, rates, latency
    in ms, failures (socket errors and timeouts) and non-2xx responses."""
    line = next((l for l in text.splitlines() if l.startswith(WRK_SUMMARY)), None)
    if line is None:
        raise ParseError("no WRK_SUMMARY line in wrk's output (is scripts/wrk-summary.lua given?)")
    try:
        s = json.loads(line[len(WRK_SUMMARY):])
    except ValueError as error:
        raise ParseError(f"wrk's summary is not JSON: {error}") from error
    seconds = s["duration_us"] / 1e6
    failed = s["connect_errors"] + s["read_errors"] + s["write_errors"] + s["timeouts"]
    return {
        "complete": s["requests"], "failed": failed, "failed_length": 0, "failed_other": failed,
        "non2xx": s["non2xx"],
        "requests_per_s": round(s["requests"] / seconds, 2) if seconds else 0.0,
        "mean_ms": round(s["mean_us"] / 1000, 3),
        "p50_ms": s["p50_us"] / 1000, "p90_ms": s["p90_us"] / 1000,
        "p99_ms": s["p99_us"] / 1000, "max_ms": s["max_us"] / 1000,
        "transfer_kib_s": round(s["bytes"] / 1024 / seconds, 1) if seconds else 0.0,
        "duration_s": round(seconds, 3),
    }


def siege_command(url, siegerc, concurrency, delay, duration):
    """siege -v (a line per transaction) with the project's siegerc: Debian's default one caps
    the users at 255 and would silently run only 255 of -c 500."""
    return ["siege", "-R", siegerc, "-v", "-c", str(concurrency), "-d", f"{delay:g}", "-t",
            duration, url]


# slowhttptest's attacks: its flag and the options each needs. Slow body sends a GET with a body
# (the servers answer POST with 405 before reading one); slow read asks for /html (32 KiB) with a
# receive window of at most 64 bytes.
SLOWHTTPTEST_MODES = {"slow headers": ["-H"], "slow body": ["-B", "-t", "GET", "-s", "8192"],
                      "slow read": ["-X", "-k", "1", "-n", "1", "-w", "1", "-y", "64", "-z", "32"]}


def slowhttptest_command(mode, url, connections, length_s, report_prefix):
    """slowhttptest MODE: `connections` connections opened within a tenth of a second (-r is per
    second), a follow-up every second, for at most length_s; its counts in REPORT_PREFIX.csv."""
    return ["slowhttptest", *SLOWHTTPTEST_MODES[mode], "-c", str(connections), "-r",
            str(10 * connections), "-i", "1", "-l", str(length_s), "-p", "3", "-g", "-o",
            report_prefix, "-u", url]


def parse_slowhttptest(csv_text, output_text):
    """Its CSV (a row per second: connections closed, pending and connected then, and whether
    its own probe got an answer) and the end of its output: the most connected at once, the
    seconds it ran, the seconds its probe found the service unavailable, and why it ended."""
    lines = (line.split(",") for line in csv_text.splitlines()[1:])
    rows = [[int(c) for c in cells] for cells in lines
            if len(cells) == 5 and all(c.strip().isdigit() for c in cells)]
    if not rows:
        raise ParseError("slowhttptest wrote no CSV rows")
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", output_text)
    ended = re.search(r"^Exit status:\s*(.+?)\s*$", plain, re.MULTILINE)
    return {"seconds": rows[-1][0], "peak_connected": max(r[3] for r in rows),
            "unavailable_s": sum(1 for r in rows if r[4] == 0),
            "exit_status": ended.group(1) if ended else "no exit status"}


def _number(pattern, text, what, cast=float, default=None):
    match = re.search(pattern, text, re.MULTILINE)
    if match is None:
        if default is not None:
            return default
        raise ParseError(f"no '{what}' in the output")
    return cast(match.group(1))


def _percentile(sorted_values, p):
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, -(-len(sorted_values) * p // 100))  # ceil(n * p / 100)
    return sorted_values[int(rank) - 1]


def parse_ab(report_text, percentile_csv_text):
    """ab's report (stdout) and its -e file: rates, latency, failures and percentiles in ms."""
    figures = {
        "complete": _number(r"^Complete requests:\s+(\d+)", report_text, "Complete requests", int),
        "failed": _number(r"^Failed requests:\s+(\d+)", report_text, "Failed requests", int),
        "non2xx": _number(r"^Non-2xx responses:\s+(\d+)", report_text, "Non-2xx", int, 0),
        "requests_per_s": _number(r"^Requests per second:\s+([\d.]+)", report_text,
                                  "Requests per second"),
        "mean_ms": _number(r"^Time per request:\s+([\d.]+) \[ms\] \(mean\)$", report_text,
                           "Time per request"),
        "transfer_kib_s": _number(r"^Transfer rate:\s+([\d.]+)", report_text, "Transfer rate"),
        "duration_s": _number(r"^Time taken for tests:\s+([\d.]+)", report_text, "Time taken"),
    }
    # "Variable" with -l; otherwise the first response's length, the reference for Length failures.
    length = re.search(r"^Document Length:\s+(\d+) bytes", report_text, re.MULTILINE)
    if length:
        figures["document_bytes"] = int(length.group(1))
    breakdown = re.search(
        r"\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)", report_text)
    if breakdown:
        connect, receive, length, exceptions = (int(v) for v in breakdown.groups())
        figures.update(failed_length=length, failed_other=connect + receive + exceptions)
    else:
        figures.update(failed_length=0, failed_other=figures["failed"])

    # The -e file has a float per whole percent. ab 2.3 indexes one past its array for the
    # 99th percentile when fewer than 100 requests ran, so take the report's own table (whole
    # milliseconds) whenever the file's values are not ascending.
    cells = (line.partition(",") for line in percentile_csv_text.splitlines()[1:])
    from_csv = {int(percent): float(ms) for percent, _, ms in cells if percent.strip().isdigit()}
    table = {int(p): float(ms) for p, ms in
             re.findall(r"^\s+(\d+)%\s+(\d+)", report_text, re.MULTILINE)}
    ascending = all(from_csv.get(p, -1) <= from_csv.get(p + 1, -1) for p in range(0, 100))
    source = from_csv if ascending else table
    for p, name in ((50, "p50_ms"), (90, "p90_ms"), (99, "p99_ms"), (100, "max_ms")):
        if p not in source:
            raise ParseError(f"no {p}th percentile in ab's output")
        figures[name] = source[p]
    return figures


SIEGE_LINE = re.compile(r"^HTTP/\d\.\d (\d{3})\s+([\d.]+) secs:\s+(\d+) bytes ==> (\w+)\s+(\S+)")
SIEGE_DONE = "Lifting the server siege"


def _siege_summary(summary_text):
    """The figures of siege's own summary (stderr)."""
    def value(label, cast=float):
        return _number(rf"^{label}:\s+([\d.]+)", summary_text, label, cast)

    figures = {
        "complete": value("Transactions", int),
        "availability_pct": value("Availability"),
        "duration_s": value("Elapsed time"),
        "requests_per_s": value("Transaction rate"),
        "transfer_kib_s": round(value("Throughput") * 1024, 1),
        "siege_concurrency": value("Concurrency"),
        "successful": value("Successful transactions", int),
        "failed": value("Failed transactions", int),
        "max_ms": round(value("Longest transaction") * 1000, 1),
    }
    # siege prints response times with 10 ms resolution; its "Concurrency" (total response time
    # over elapsed time) keeps the precision, so the mean follows from Little's law.
    rate = figures["requests_per_s"]
    figures["mean_ms"] = round(1000.0 * figures["siege_concurrency"] / rate, 2) if rate else 0.0
    return figures


def _summary_from_lines(transactions, summary_text, elapsed_s):
    """What siege's summary would have said, from its transaction lines and error messages."""
    times = [ms for _, ms, _ in transactions]
    failed = sum(1 for line in summary_text.splitlines() if line.startswith("[error]"))
    complete = len(transactions)
    return {
        "complete": complete,
        "availability_pct": round(100.0 * complete / max(complete + failed, 1), 2),
        "duration_s": round(elapsed_s, 2),
        "requests_per_s": round(complete / elapsed_s, 2),
        "transfer_kib_s": round(sum(size for _, _, size in transactions) / 1024 / elapsed_s, 1),
        "siege_concurrency": round(sum(times) / 1000 / elapsed_s, 2),
        "successful": sum(1 for code, _, _ in transactions if code < 400),
        "failed": failed,
        "max_ms": max(times),
        "mean_ms": round(sum(times) / complete, 2),
    }


def parse_siege(transactions_text, summary_text, elapsed_s):
    """siege -v: one line per transaction on stdout, the summary on stderr. When siege hung
    after its run and printed no summary, the summary's figures come from those lines, over
    elapsed_s (the time until siege announced the end)."""
    matches = (SIEGE_LINE.match(line) for line in transactions_text.splitlines())
    transactions = [(int(m.group(1)), float(m.group(2)) * 1000, int(m.group(3)))
                    for m in matches if m]
    if not transactions:
        raise ParseError("siege printed no transaction lines (is -v given?)")
    if re.search(r"^Transactions:", summary_text, re.MULTILINE):
        figures = _siege_summary(summary_text)
    elif SIEGE_DONE in summary_text:
        figures = _summary_from_lines(transactions, summary_text, elapsed_s)
    else:
        raise ParseError("siege printed no summary and never ended its run")
    times = sorted(ms for _, ms, _ in transactions)
    for p in (50, 90, 99):
        figures[f"p{p}_ms"] = _percentile(times, p)
    figures.update(non2xx=sum(1 for code, _, _ in transactions if not 200 <= code < 300),
                   failed_length=0, failed_other=figures["failed"])
    return figures


def _time_seconds(text, label):
    minutes, seconds = _number(rf"^{label}\t(\d+m[\d.]+)s$", text, label, str).split("m")
    return int(minutes) * 60 + float(seconds)


def standalone_iterations(text):
    """The iterations a standalone loop says it ran: its 'standalone: N iterations ...' line (the
    models' --standalone and the real peers' scripts alike)."""
    return _number(r"^standalone: (\d+) iterations", text, "standalone:", int)


def parse_standalone(text):
    """A model's --standalone report: real/user/sys as `time` prints them, and iterations/s."""
    return {"iterations": standalone_iterations(text), "real_s": _time_seconds(text, "real"),
            "user_s": _time_seconds(text, "user"), "sys_s": _time_seconds(text, "sys"),
            "iterations_per_s": _number(r"^iterations/s\t([\d.]+)$", text, "iterations/s")}
