"""ab 2.3 -r (a socket error is a failed request, not the run's end), percentiles in
raw/ID.ab-percentiles.csv (-e). `seconds` and `n`: cut at seconds, n its cap; seconds alone: the
count the server's rate before makes; n alone: n requests."""

import re

from modelbench.engine.loads.base import Generator, ParseError, number
from modelbench.engine.measure import read

# A timed run gets the count its warm-up's rate makes of its length, so that ab waits for every
# request: a run cut at a time limit leaves requests in flight, whose CPU the server spends after
# the tool stopped counting (200 at -c 200). A time limit well beyond stays as a bound.
MIN_REQUESTS = 200
TIME_LIMIT_FACTOR = 3
PERCENTILES = "ab-percentiles.csv"  # raw/ID.PERCENTILES: ab -e's latency at each percent


class Ab(Generator):
    name = "ab"

    def text(self, load):
        flags = ("-k " if load.keepalive else "") + ("-l " if load.variable_length else "")
        limit = f"-t {load.seconds:g}" if load.seconds else f"-n {load.n}"
        return f"ab {flags}-c {load.c} {limit} {load.path}"

    def heading(self, record):
        c = record.get("concurrency")
        if record.get("cut"):
            return f"`ab -r -c {c} -t {record['seconds']:g} -n {record.get('requests')}`"
        if record.get("seconds"):
            return (f"`ab -r -c {c}` for about {record['seconds']:g} s (its `-n` from its "
                    "lead-in's rate)")
        return f"`ab -r -c {c} -n {record.get('requests')}`"

    def command(self, attempt, url):
        load, percentiles = attempt.load, attempt.raw(PERCENTILES)
        requests, time_limit = load.n, load.seconds
        if load.seconds and not load.n and attempt.rate:
            requests = max(MIN_REQUESTS, int(attempt.rate * load.seconds))
            time_limit = TIME_LIMIT_FACTOR * load.seconds + 5
        attempt.record.update(requests=requests, cut=bool(load.seconds and load.n))
        attempt.record["raw"].append(percentiles)
        # -t before -n: ab's -t sets the request count to 50000, whatever -n said before it.
        return ["ab", "-r", *(["-k"] if load.keepalive else []), "-c", str(load.c),
                *(["-t", f"{time_limit:g}"] if time_limit else []), "-n", str(requests),
                "-e", percentiles, *(["-l"] if load.variable_length else []), url]

    def figures(self, attempt, stdout, stderr, sampled):
        return parse(read(stdout), read(attempt.raw(PERCENTILES)))


def parse(report, percentiles):
    """ab's figures from its report (stdout) and its -e file (percentiles)."""
    figures = {
        "complete": number(r"^Complete requests:\s+(\d+)", report, "Complete requests", int),
        "failed": number(r"^Failed requests:\s+(\d+)", report, "Failed requests", int),
        "non2xx": number(r"^Non-2xx responses:\s+(\d+)", report, "Non-2xx", int, 0),
        "requests_per_s": number(r"^Requests per second:\s+([\d.]+)", report,
                                 "Requests per second"),
        "mean_ms": number(r"^Time per request:\s+([\d.]+) \[ms\] \(mean\)$", report,
                          "Time per request"),
        "transfer_kib_s": number(r"^Transfer rate:\s+([\d.]+)", report, "Transfer rate"),
        "duration_s": number(r"^Time taken for tests:\s+([\d.]+)", report, "Time taken")}
    # "Variable" with -l; otherwise the first response's length, the reference for Length failures.
    length = re.search(r"^Document Length:\s+(\d+) bytes", report, re.MULTILINE)
    if length:
        figures["document_bytes"] = int(length.group(1))
    breakdown = re.search(
        r"\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)", report)
    if breakdown:
        connect, receive, length, exceptions = (int(v) for v in breakdown.groups())
        figures.update(failed_length=length, failed_other=connect + receive + exceptions)
    else:
        figures.update(failed_length=0, failed_other=figures["failed"])

    # Without the -e file's spectrum, the report's own table (whole ms).
    table = {int(p): float(ms) for p, ms in re.findall(r"^\s+(\d+)%\s+(\d+)", report, re.M)}
    source = spectrum(percentiles) or table
    for p, name in ((50, "p50_ms"), (90, "p90_ms"), (99, "p99_ms"), (100, "max_ms")):
        if p not in source:
            raise ParseError(f"no {p}th percentile in ab's output")
        figures[name] = source[p]
    return figures


def spectrum(percentiles):
    """{percent: ms} of ab's -e file, 0 to 100; {} when it has not them all in ascending order:
    ab 2.3 indexes one past its array for the 99th when fewer than 100 requests ran."""
    cells = (line.partition(",") for line in percentiles.splitlines()[1:])
    found = {int(percent): float(ms) for percent, _, ms in cells if percent.strip().isdigit()}
    ascending = all(found.get(p, -1) <= found.get(p + 1, -1) for p in range(0, 100))
    return found if ascending else {}
