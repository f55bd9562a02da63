"""The posts' claims, each judged from the figures of this run.

A verdict is "reproduced" when the run's figures meet the criterion written beside the
evidence, "not reproduced" when they do not, and "not measured" when a run it needs is missing
or failed. The criteria are deliberately coarse: this is a 2-core machine shared by the load
tool, the server and mariadbd, not the blogs' hardware.
"""

from dataclasses import dataclass

from modelbench.tables import fmt

REPRODUCED, NOT_REPRODUCED, NOT_MEASURED = "reproduced", "not reproduced", "not measured"

FLAT_LOW, FLAT_HIGH = 0.75, 1.33  # "roughly flat": within -25 % / +33 % of the -c 20 rate
LATENCY_GROWTH = 2.0  # mean latency at -c 200 at least twice that at -c 20
CLUSTER_GAIN = 1.25  # cluster mode at least 25 % more requests/s than one worker
SIMILAR_LOW, SIMILAR_HIGH = 0.8, 1.25


@dataclass
class Claim:
    claim: str
    evidence: str
    verdict: str


def verdict(condition):
    return REPRODUCED if condition else NOT_REPRODUCED


def missing(*values):
    return any(v is None for v in values)


def figures(r, key, *run_ids):
    """The figure key of each run, or None when any of them is missing or failed."""
    values = [r.figure(i, key) for i in run_ids]
    return None if missing(*values) else values


def pct(value):
    return fmt(value, 0, suffix=" %")


def cores_claim(r):
    claim = ("The blocking model spreads over every core; the single event loop uses at most one "
             "(E1b: Apache 100 % on all 4 cores, node 80 %)")
    blocking_id, async_id = "e1b-blocking-c200", "e1b-async-c200"
    blocking = r.figure(blocking_id, "server_cpu_pct_core")
    single = r.figure(async_id, "server_cpu_pct_core")
    busy = r.figure(blocking_id, "machine_busy_pct")
    threads = r.figure(async_id, "server_peak_threads")
    if missing(blocking, single, busy):
        return Claim(claim, "needs E1b -c 200 for blocking and async", NOT_MEASURED)
    evidence = (f"-c 200: blocking server {pct(blocking)} of one core with the machine "
                f"{pct(busy)} busy; async server {pct(single)} of one core ({fmt(threads, 0)} "
                "thread(s)). Criterion: blocking > 100 % of a core and machine ≥ 90 % busy; "
                "async ≤ 105 %.")
    return Claim(claim, evidence, verdict(blocking > 100 and busy >= 90 and single <= 105))


def flat_throughput_claims(r):
    claims = []
    for server in ("blocking", "async", "async-cluster"):
        low, high = f"e1b-{server}-c20", f"e1b-{server}-c200"
        claim = (f"Throughput stays roughly flat from -c 20 to -c 200 while mean latency grows "
                 f"with concurrency — {r.label(server)} (E1b: 1173→1146 and 119→114 req/s, "
                 "17→174 and 167→1750 ms)")
        rate_low, rate_high = r.figure(low, "requests_per_s"), r.figure(high, "requests_per_s")
        lat_low, lat_high = r.figure(low, "mean_ms"), r.figure(high, "mean_ms")
        if missing(rate_low, rate_high, lat_low, lat_high) or rate_low <= 0 or lat_low <= 0:
            if low in r.runs or high in r.runs:
                claims.append(Claim(claim, "needs E1b -c 20 and -c 200", NOT_MEASURED))
            continue
        ratio, growth = rate_high / rate_low, lat_high / lat_low
        evidence = (f"{fmt(rate_low)} → {fmt(rate_high)} req/s (×{ratio:.2f}); mean "
                    f"{fmt(lat_low, 2)} → {fmt(lat_high, 2)} ms (×{growth:.1f}). Criterion: rate "
                    f"within ×{FLAT_LOW}–×{FLAT_HIGH}, latency ×{LATENCY_GROWTH:.0f} or more.")
        claims.append(Claim(claim, evidence, verdict(
            FLAT_LOW <= ratio <= FLAT_HIGH and growth >= LATENCY_GROWTH)))
    return claims


def cluster_claim(r):
    claim = ("Replicating the async server on every core multiplies its throughput (E1b "
             "follow-up the post proposed, not run there)")
    pairs = [(c, r.figure(f"e1b-async-c{c}", "requests_per_s"),
              r.figure(f"e1b-async-cluster-c{c}", "requests_per_s")) for c in (20, 200)]
    pairs = [(c, one, many) for c, one, many in pairs if not missing(one, many) and one > 0]
    if not pairs:
        return Claim(claim, "needs E1b for async and async cluster", NOT_MEASURED)
    gains = [many / one for _, one, many in pairs]
    evidence = "; ".join(f"-c {c}: {fmt(one)} → {fmt(many)} req/s (×{many / one:.2f})"
                         for c, one, many in pairs)
    evidence += (f" with {r.cores} workers. Criterion: ×{CLUSTER_GAIN} or more at every "
                 "concurrency measured.")
    return Claim(claim, evidence, verdict(min(gains) >= CLUSTER_GAIN))


def ratio_claim(r, claim, key, ids, needs, describe, holds):
    """A claim about one figure of two runs: ratio = second / first."""
    values = figures(r, key, *ids)
    if values is None or values[0] <= 0:
        return Claim(claim, f"needs {needs}", NOT_MEASURED)
    ratio = values[1] / values[0]
    return Claim(claim, describe(*values, ratio), verdict(holds(ratio)))


def blocking_faster_claim(r):
    return ratio_claim(
        r, "Apache+PHP serves /html far faster than one Node.js process (E1b: 1173 vs 119 req/s "
        "at -c 20)", "requests_per_s", ("e1b-async-c20", "e1b-blocking-c20"),
        "E1b -c 20 for blocking and async",
        lambda single, blocking, ratio: (
            f"-c 20: blocking {fmt(blocking)} vs async {fmt(single)} req/s (×{ratio:.2f}). "
            "Criterion: blocking ×2 or more."),
        lambda ratio: ratio >= 2)


def standalone_claim(r):
    return ratio_claim(
        r, "Run in one process without HTTP, the two models take about as long (E1a: PHP 7.4 s, "
        "Node.js 7.5–9.8 s real)", "real_s", ("e1a-blocking", "e1a-async"), "E1a for both",
        lambda blocking, single, ratio: (
            f"real: blocking {fmt(blocking, 3)} s, async {fmt(single, 3)} s (×{ratio:.2f}). "
            f"Criterion: within ×{SIMILAR_LOW}–×{SIMILAR_HIGH}."),
        lambda ratio: SIMILAR_LOW <= ratio <= SIMILAR_HIGH)


def hello_claims(r):
    ids = [i for i in ("e2-blocking", "e2-async") if r.ok(i)]
    no_failures = "Hello world at -c 200: no failed requests (E2)"
    retransmit = ("Hello world at -c 200: the longest request takes about 3 s, a SYN retransmit "
                  "after the listen queue overflowed (E2: 3.2–3.7 s)")
    if not ids:
        return [Claim(no_failures, "needs E2", NOT_MEASURED),
                Claim(retransmit, "needs E2", NOT_MEASURED)]
    failures = {i: (r.figure(i, "failed"), r.figure(i, "non2xx")) for i in ids}
    longest = {i: r.figure(i, "max_ms") for i in ids}

    def name(run_id):
        return run_id.split("-", 1)[1]

    return [
        Claim(no_failures,
              "; ".join(f"{name(i)}: {f} failed, {n} non-2xx" for i, (f, n) in failures.items())
              + ". Criterion: 0 and 0 for every server.",
              verdict(all(f == 0 and n == 0 for f, n in failures.values()))),
        Claim(retransmit,
              "; ".join(f"{name(i)}: longest {fmt(ms, 0)} ms" for i, ms in longest.items())
              + ". Criterion: some server's longest request ≥ 1000 ms (a 1 s SYN retransmit).",
              verdict(any(ms >= 1000 for ms in longest.values()))),
    ]


def length_claim(r):
    claim = ("ab counts responses whose length differs from the first as failed (Length); `-l` "
             "accepts them (E3: 970 of 1000 failed)")
    plain = [i for i in ("e3-blocking", "e3-async") if r.ok(i)]
    with_l = [i for i in ("e3-blocking-l", "e3-async-l") if r.ok(i)]
    if not plain or not with_l:
        return Claim(claim, "needs E3 with and without -l", NOT_MEASURED)
    parts = [f"{i[3:]}: {r.figure(i, 'failed_length')} of {r.figure(i, 'complete')} Length "
             "failures" for i in plain]
    parts += [f"{i[3:]}: {r.figure(i, 'failed')} failed" for i in with_l]
    evidence = "; ".join(parts) + (". Criterion: Length failures > 0 without -l, 0 failed "
                                   "with -l.")
    return Claim(claim, evidence, verdict(
        all(r.figure(i, "failed_length") > 0 for i in plain) and
        all(r.figure(i, "failed") == 0 for i in with_l)))


def deferred_task_claim(r):
    claim = ("The deferred task runs after the response in the async model and before it in the "
             "blocking one (E4)")
    blocking, single = r.runs.get("e4-tasks-blocking"), r.runs.get("e4-tasks-async")
    if not (r.ok("e4-tasks-blocking") and r.ok("e4-tasks-async")):
        return Claim(claim, "needs the E4 /tasks demo for both", NOT_MEASURED)
    b, a = blocking["figures"], single["figures"]
    evidence = (f"delay {b['delay_ms']} ms. blocking: response after {b['response_ms']:.0f} ms, "
                f"task two {'after' if b['task_two_after_response'] else 'before'} it; async: "
                f"response after {a['response_ms']:.0f} ms, task two "
                f"{'after' if a['task_two_after_response'] else 'before'} it. Criterion: async "
                "answers within half the delay and logs task two later; blocking answers after "
                "the delay, task two first.")
    return Claim(claim, evidence, verdict(
        a["task_two_after_response"] == 1 and a["response_ms"] < a["delay_ms"] / 2 and
        b["task_two_after_response"] == 0 and b["response_ms"] >= b["delay_ms"]))


def siege_claim(r):
    claim = ("Under siege -c 500 -d 1 both models serve about the same transaction rate without "
             "failures (E4: about 990 trans/s each)")
    ids = ("e4-siege-blocking", "e4-siege-async")
    rates = figures(r, "requests_per_s", *ids)
    if rates is None or rates[0] <= 0:
        return Claim(claim, "needs E4 siege for both", NOT_MEASURED)
    blocking, single = rates
    failed = figures(r, "failed", *ids)
    ratio = single / blocking
    evidence = (f"blocking {fmt(blocking)} trans/s ({failed[0]} failed), async {fmt(single)} "
                f"trans/s ({failed[1]} failed), ×{ratio:.2f}. Criterion: within "
                f"×{SIMILAR_LOW}–×{SIMILAR_HIGH} and 0 failed.")
    return Claim(claim, evidence, verdict(
        SIMILAR_LOW <= ratio <= SIMILAR_HIGH and failed == [0, 0]))


def evaluate(r):
    return ([standalone_claim(r), cores_claim(r)] + flat_throughput_claims(r) +
            [cluster_claim(r), blocking_faster_claim(r)] + hello_claims(r) +
            [length_claim(r), deferred_task_claim(r), siege_claim(r)])
