"""wrk 4.1, keep-alive, for `seconds`; scripts/wrk-summary.lua prints its figures as JSON."""

import json

from modelbench.engine.loads.base import Generator, ParseError
from modelbench.engine.measure import read
from modelbench.engine.processes import CORES

SUMMARY = "WRK_SUMMARY "


class Wrk(Generator):
    name = "wrk"
    always_keepalive = True

    def text(self, load):
        return f"wrk -c {load.c} -d {load.seconds:g}s {load.path}"

    def heading(self, record):
        return (f"`wrk -c {record.get('concurrency')} -d {record.get('seconds'):g}s` (keep-alive, "
                "a thread per core; `--client wrk`)")

    def command(self, attempt, url):
        """A thread per core, at most one per connection; a 30 s timeout, as ab's."""
        c = attempt.load.c
        return ["wrk", "-t", str(max(1, min(c, CORES))), "-c", str(c), "-d",
                f"{attempt.load.seconds:g}s", "--timeout", "30s", "--latency", "-s",
                attempt.recorder.checkout.script("wrk-summary.lua"), url]

    def figures(self, attempt, stdout, stderr, sampled):
        return parse(read(stdout))


def parse(text):
    """wrk's figures (its WRK_SUMMARY line) under ab's names; socket errors and timeouts fail."""
    line = next((l for l in text.splitlines() if l.startswith(SUMMARY)), None)
    if line is None:
        raise ParseError("no WRK_SUMMARY line in wrk's output (is scripts/wrk-summary.lua given?)")
    try:
        s = json.loads(line[len(SUMMARY):])
    except ValueError as error:
        raise ParseError(f"wrk's summary is not JSON: {error}") from error
    seconds = s["duration_us"] / 1e6
    failed = s["connect_errors"] + s["read_errors"] + s["write_errors"] + s["timeouts"]
    return {"complete": s["requests"], "failed": failed, "failed_length": 0,
            "failed_other": failed, "non2xx": s["non2xx"],
            "requests_per_s": round(s["requests"] / seconds, 2) if seconds else 0.0,
            "mean_ms": round(s["mean_us"] / 1000, 3),
            **{f"{p}_ms": s[f"{p}_us"] / 1000 for p in ("p50", "p90", "p99", "max")},
            "transfer_kib_s": round(s["bytes"] / 1024 / seconds, 1) if seconds else 0.0,
            "duration_s": round(seconds, 3)}
