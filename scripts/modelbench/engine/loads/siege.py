"""siege 4.0.7 -v (a line per transaction, which gives the percentiles) for `seconds`, each user
waiting up to `delay_s` between its requests, with the project's siegerc."""

import re

from modelbench.engine.loads.base import Generator, ParseError, number
from modelbench.engine.measure import read

LINE = re.compile(r"^HTTP/\d\.\d (\d{3})\s+([\d.]+) secs:\s+(\d+) bytes ==> (\w+)\s+(\S+)")
DONE = "Lifting the server siege"
# siege's message when its time ran out before its main thread had queued every user's work: it
# says "system resources exhausted", but no thread failed to start (its crew_add refuses work
# once the timer has shut the crew down).
USERS_LATE = "Unable to spawn additional threads"


class Siege(Generator):
    name = "siege"
    end_marker = DONE
    progress = False  # nothing on stderr while it runs
    overhead_s = 1.0
    resolution_ms = 10  # of its single times: 0 means under 10 ms

    def text(self, load):
        return f"siege -c {load.c} -d {load.delay_s:g} -t {load.seconds:g}S {load.path}"

    def command(self, attempt, url):
        """With siegerc: Debian's default caps users at 255, silently running 255 of -c 500."""
        load = attempt.load
        return ["siege", "-R", attempt.recorder.checkout.script("siegerc"), "-v", "-c",
                str(load.c), "-d", f"{load.delay_s:g}", "-t", f"{load.seconds:g}S", url]

    def exit_cause(self, code, stderr, load):
        text = read(stderr)
        if USERS_LATE in text and DONE in text.split(USERS_LATE)[0]:
            return (f"siege's {load.seconds:g} s were over before it had started its {load.c} "
                    "users, on a host too slow for the run (siege says 'system resources "
                    "exhausted', but that is its timer, not a limit)")
        return super().exit_cause(code, stderr, load)

    def figures(self, attempt, stdout, stderr, sampled):
        return parse(read(stdout), read(stderr), sampled["wall_s"])


def own_summary(summary_text):
    """The figures of siege's own summary (stderr)."""
    def value(label, cast=float):
        return number(rf"^{label}:\s+([\d.]+)", summary_text, label, cast)

    figures = {"complete": value("Transactions", int), "availability_pct": value("Availability"),
               "duration_s": value("Elapsed time"), "requests_per_s": value("Transaction rate"),
               "transfer_kib_s": round(value("Throughput") * 1024, 1),
               "siege_concurrency": value("Concurrency"),
               "successful": value("Successful transactions", int),
               "failed": value("Failed transactions", int),
               "max_ms": round(value("Longest transaction") * 1000, 1)}
    # siege prints response times with 10 ms resolution; its "Concurrency" (total response time
    # over elapsed time) keeps the precision, so the mean follows from Little's law.
    rate = figures["requests_per_s"]
    figures["mean_ms"] = round(1000.0 * figures["siege_concurrency"] / rate, 2) if rate else 0.0
    return figures


def summary_from_lines(transactions, summary_text, elapsed_s):
    """What siege's summary would have said, from its transaction lines and error messages."""
    times = [ms for _, ms, _ in transactions]
    failed = sum(1 for line in summary_text.splitlines() if line.startswith("[error]"))
    complete = len(transactions)
    return {"complete": complete,
            "availability_pct": round(100.0 * complete / max(complete + failed, 1), 2),
            "duration_s": round(elapsed_s, 2), "requests_per_s": round(complete / elapsed_s, 2),
            "transfer_kib_s": round(sum(size for _, _, size in transactions) / 1024 / elapsed_s, 1),
            "siege_concurrency": round(sum(times) / 1000 / elapsed_s, 2),
            "successful": sum(1 for code, _, _ in transactions if code < 400), "failed": failed,
            "max_ms": max(times), "mean_ms": round(sum(times) / complete, 2)}


def parse(transactions_text, summary_text, elapsed_s):
    """siege -v: transaction lines on stdout, the summary on stderr; when it hung without one,
    its figures from those lines over elapsed_s (until siege announced the end)."""
    transactions = [(int(m.group(1)), float(m.group(2)) * 1000, int(m.group(3)))
                    for m in map(LINE.match, transactions_text.splitlines()) if m]
    if not transactions:
        raise ParseError("siege printed no transaction lines (is -v given?)")
    if re.search(r"^Transactions:", summary_text, re.MULTILINE):
        figures = own_summary(summary_text)
    elif DONE in summary_text:
        figures = summary_from_lines(transactions, summary_text, elapsed_s)
    else:
        raise ParseError("siege printed no summary and never ended its run")
    times = sorted(ms for _, ms, _ in transactions)
    for p in (50, 90, 99):  # nearest rank: the ceil(n * p / 100)th
        figures[f"p{p}_ms"] = times[max(1, -(-len(times) * p // 100)) - 1]
    figures.update(non2xx=sum(1 for code, _, _ in transactions if not 200 <= code < 300),
                   failed_length=0, failed_other=figures["failed"])
    return figures
