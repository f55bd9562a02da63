"""heavy-openloop: openloop's light traffic (`rate` GETs of `path` a second, a new connection
each) with, beside it, a second openloop sending `heavy` of that rate as heavy requests: GET
/factorial?n=N, whose N is chosen before the run so that one heavy request alone takes about
`heavy_ms` on this server (E9, docs/experiments.md).

Choosing N: /factorial's cost grows about as N², so from a single request's time at a first N
the next guess is N·√(heavy_ms / time), three times (N capped at the servers' MAX_N); the time of
HEAVY_TRIES requests at the last N, one after the other on an idle server, is the heavy
request's own time (heavy_alone_ms, their median), and p99_per_heavy the light p99 over it.
The event loop's delay over the server's life (a fresh server per run) comes from /status where
the server reports it (the async model; Node.js's perf_hooks)."""

import math
import statistics
import subprocess

from modelbench.engine.loads.base import ParseError, StepFailed
from modelbench.engine.loads.openloop import TIMEOUT_S, Openloop, parse
from modelbench.engine.measure import read

HEAVY_PATH = "/factorial?n={n}"
FIRST_N = 2000
MAX_N = 20000  # /factorial's cap on every system
GUESSES = 3
HEAVY_TRIES = 3
STOP_GRACE_S = 30  # the heavy generator's own end after the light one's


def heavy_path(n):
    return HEAVY_PATH.format(n=n)


def time_ms(target, n, tries=1):
    """The median time of `tries` GETs of /factorial?n=n one after the other, in ms."""
    times = []
    for _ in range(tries):
        reply = target.get(heavy_path(n), timeout=TIMEOUT_S)
        if reply.status != 200:
            raise StepFailed(f"GET {heavy_path(n)} answered {reply.status or reply.error}")
        times.append(1000 * reply.seconds)
    return statistics.median(times)


def next_n(n, took_ms, heavy_ms):
    """The N whose request takes about heavy_ms, if one at n took took_ms (cost ∝ N²)."""
    return max(1, min(MAX_N, round(n * math.sqrt(heavy_ms / max(took_ms, 0.01)))))


def choose_n(target, heavy_ms):
    """(N, its request's own time in ms: the median of HEAVY_TRIES)."""
    n = FIRST_N
    for _ in range(GUESSES):
        n = next_n(n, time_ms(target, n), heavy_ms)
    return n, time_ms(target, n, HEAVY_TRIES)


def loop_delay(documents):
    """The event loop's delay figures from /status (the worst worker's), {} where none is
    reported."""
    # The async model's is in its own part of /status, Node.js's at the top.
    found = (d.get("async", d).get("event_loop_delay", {}) for d in documents)
    delays = [delay for delay in found if delay.get("samples")]
    if not delays:
        return {}
    return {"loop_delay_samples": sum(d["samples"] for d in delays),
            "loop_delay_p99_ms": round(max(d["p99_ms"] for d in delays), 2),
            "loop_delay_max_ms": round(max(d["max_ms"] for d in delays), 2)}


def heavy_figures(report, n, alone_ms):
    """The heavy generator's figures under heavy_ names (its openloop report parsed)."""
    f = parse(report)
    return {"heavy_n": n, "heavy_alone_ms": round(alone_ms, 2), "heavy_rate_asked": f["rate_asked"],
            "heavy_complete": f["complete"], "heavy_failed": f["failed"],
            "heavy_non2xx": f["non2xx"], "heavy_not_sent": f["not_sent"],
            "heavy_p50_ms": f["p50_ms"], "heavy_p99_ms": f["p99_ms"]}


class HeavyOpenloop(Openloop):
    name = "heavy-openloop"
    local_only = "the event loop's delay it reads counts from a server started for the run"
    calibration_s = 2.0  # the heavy request's size, chosen before the run

    def connections(self, load):
        return round(load.rate * (1 + load.heavy) * load.seconds)

    def text(self, load):
        return (f"{super().text(load)}, {100 * load.heavy:g} % heavy (/factorial of "
                f"{load.heavy_ms:g} ms)")

    def heading(self, record):
        return (f"{super().heading(record)}; beside it {100 * record.get('heavy', 0):g} % as many "
                f"heavy requests (/factorial, about {record.get('heavy_ms', 0):g} ms each alone)")

    def estimate_s(self, load):
        return super().estimate_s(load) + self.calibration_s

    def summary(self, figures):
        heavy = (f"; heavy n={figures['heavy_n']} ({figures['heavy_alone_ms']:.0f} ms alone), "
                 f"p99 {figures['heavy_p99_ms']:.0f} ms" if "heavy_n" in figures else "")
        delay = (f"; loop delay p99 {figures['loop_delay_p99_ms']:.1f} ms, max "
                 f"{figures['loop_delay_max_ms']:.1f} ms" if "loop_delay_p99_ms" in figures else "")
        return super().summary(figures) + heavy + delay

    def run(self, attempt):
        load, target = attempt.load, attempt.target
        attempt.record.update(heavy=load.heavy, heavy_ms=load.heavy_ms)
        heavy, n, alone_ms = None, None, None
        if load.heavy:
            n, alone_ms = choose_n(target, load.heavy_ms)
            out = attempt.raw("heavy.txt")
            command = [attempt.recorder.checkout.binary(self.binary), "--rate",
                       f"{load.rate * load.heavy:g}", "--duration", f"{load.seconds:g}",
                       "--connections", "0", "--timeout", str(TIMEOUT_S),
                       target.url(heavy_path(n))]
            attempt.record["heavy_command"] = " ".join(command)
            with open(out, "wb") as stdout, open(attempt.raw("heavy.err"), "wb") as stderr:
                heavy = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        try:
            super().run(attempt)
            code = heavy.wait(timeout=STOP_GRACE_S) if heavy else 0
        except subprocess.TimeoutExpired as error:
            raise StepFailed(f"the heavy requests' openloop still ran {STOP_GRACE_S} s after "
                             "the light one") from error
        finally:
            if heavy is not None and heavy.poll() is None:
                heavy.kill()
                heavy.wait()
        figures = attempt.record["figures"]
        if heavy is not None:
            if code != 0:
                raise StepFailed(f"the heavy requests' openloop exited with {code}")
            try:
                figures.update(heavy_figures(read(out), n, alone_ms))
            except ParseError as error:
                raise ParseError(f"the heavy requests' {error}") from error
            figures["p99_per_heavy"] = round(figures["p99_ms"] / alone_ms, 4)
        figures.update(loop_delay(attempt.status))
