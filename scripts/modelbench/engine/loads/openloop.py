"""openloop (tests/tools/openloop): GET at `rate` requests/s (or `share` of the server's
capacity, which the engine turns into a rate) for `seconds`, each request at its
intended time whatever became of the ones before (an open loop), over `c` keep-alive connections
with `keepalive`, else a new connection each; its JSON report (stdout) gives the latency from the
intended send time (corrected for coordinated omission) and from the actual send."""

import json

from modelbench.engine.loads.base import Generator, ParseError
from modelbench.engine.measure import read

TIMEOUT_S = 30  # a request's deadline from its intended time, as ab's and wrk's


class Openloop(Generator):
    name = "openloop"
    binary = "openloop"

    def connections(self, load):
        return load.c if load.keepalive else round(load.rate * load.seconds)

    def text(self, load):
        pool = f"-k -c {load.c} " if load.keepalive else ""
        rate = f"{100 * load.share:g} % of capacity" if load.share else f"{load.rate:g}"
        return f"openloop {pool}--rate {rate} -d {load.seconds:g}s {load.path}"

    def heading(self, record):
        pool = (f"a pool of {record.get('concurrency')} keep-alive connections"
                if record.get("keepalive") else "a new connection per request")
        return (f"`openloop --rate {record.get('rate'):g} --duration {record.get('seconds'):g}` "
                f"(open loop, {pool}; latency from each request's intended send time)")

    def estimate_s(self, load):
        return load.seconds + self.overhead_s

    def command(self, attempt, url):
        load = attempt.load
        attempt.record.update(rate=load.rate, keepalive=load.keepalive,
                              **({"share": load.share} if load.share else {}))
        return [attempt.recorder.checkout.binary(self.binary), "--rate", f"{load.rate:g}",
                "--duration", f"{load.seconds:g}", "--connections",
                str(load.c if load.keepalive else 0), "--timeout", str(TIMEOUT_S), url]

    def figures(self, attempt, stdout, stderr, sampled):
        return parse(read(stdout))

    def summary(self, figures):
        f = figures
        return (f"{f['requests_per_s']:.1f} of {f['rate_asked']:g} req/s, p99 {f['p99_ms']:.1f} ms "
                f"from the intended send ({f['uncorrected_p99_ms']:.1f} ms from the send), failed "
                f"{f['failed']}, not sent {f['not_sent']}; CPU server "
                f"{f.get('server_cpu_pct_core', 0):.0f} % of a core")


def parse(text):
    """openloop's report under ab's names (the corrected latencies), the uncorrected beside."""
    try:
        report = json.loads(text)
        requests, corrected = report["requests"], report["latency_ms"]["corrected"]
        uncorrected = report["latency_ms"]["uncorrected"]
    except (ValueError, KeyError) as error:
        raise ParseError(f"openloop's report is not its JSON: {error}") from error
    non2xx = report["errors"]["status"]
    failed = requests["errors"] - non2xx  # as ab and wrk count: non-2xx answers apart
    return {
        "complete": requests["completed"] + non2xx, "failed": failed, "failed_length": 0,
        "failed_other": failed, "non2xx": non2xx,
        "not_sent": requests["not_sent"], "rate_asked": report["rate_per_s"],
        "requests_per_s": round(report["completed_per_s"], 2),
        "sent_per_s": round(report["sent_per_s"], 2),
        "mean_ms": corrected["mean"], "p50_ms": corrected["p50"], "p90_ms": corrected["p90"],
        "p99_ms": corrected["p99"], "p99_9_ms": corrected["p99_9"], "max_ms": corrected["max"],
        "uncorrected_mean_ms": uncorrected["mean"], "uncorrected_p50_ms": uncorrected["p50"],
        "uncorrected_p99_ms": uncorrected["p99"], "uncorrected_max_ms": uncorrected["max"],
        "duration_s": report["elapsed_s"],
        "generator_cpu_s": round(report["cpu_s"]["user"] + report["cpu_s"]["system"], 3),
    }
