"""bench's targets, judged by report.verdicts on intervals: crafted blocks drive each kind of
target to each verdict, and a recorded bench run is judged and rendered whole."""

import json
import os

from crafted import blocks, results

from modelbench import bench
from modelbench.report.results import Results
from modelbench.report.verdicts import INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED

def verdicts(r):
    return {text: side for text, side in bench.targets(r)}


def find(judged, *bases):
    """The Side of the one target of these runs."""
    found = [side for side in judged.values() if side.bases == bases]
    assert len(found) == 1, (bases, found)
    return found[0]


def loop(rate):
    return {"iterations": 1000, "iterations_per_s": rate, "server_cpu_s": 0.1, "db_cpu_s": 0.2}


def served(rate, server_cpu_s=0.1, db_cpu_s=0.2, client_cpu_s=0.1, **more):
    return {"requests_per_s": rate, "complete": 1000, "server_cpu_s": server_cpu_s,
            "db_cpu_s": db_cpu_s, "client_cpu_s": client_cpu_s, **more}


def throughput(server_rates, ceiling_rates):
    """blocking per-request's /html -c 20 (target ×0.80 of its ceiling) block by block."""
    r = results(*blocks(bench.cell_base("blocking-per-request", "/html", 20),
                        "blocking-per-request", *map(served, server_rates), tool="ab",
                        endpoint="/html", concurrency=20),
                *blocks(bench.html_ceiling("blocking-per-request", 20), "ceiling-per-connect",
                        *map(loop, ceiling_rates), tool="standalone"))
    return find(verdicts(r), bench.cell_base("blocking-per-request", "/html", 20),
                bench.html_ceiling("blocking-per-request", 20))


def test_a_ratio_to_the_ceiling_is_judged_on_its_interval_within_blocks():
    assert throughput([900, 920, 910], [1000, 1000, 1000]).verdict == REPRODUCED
    assert throughput([500, 520, 510], [1000, 1000, 1000]).verdict == NOT_REPRODUCED
    # The medians' ratio (0.85) is above the bound, which once made it "held"; its blocks
    # spread across it: inconclusive.
    side = throughput([700, 950, 850], [1000, 1000, 1000])
    assert side.verdict == INCONCLUSIVE and side.statistic.n == 3
    assert "95 %, 3 blocks" in side.evidence and side.evidence.startswith("×0.")
    # Paired by block: the ceiling's speed moving with the server's leaves the ratio steady.
    assert throughput([450, 900, 1800], [500, 1000, 2000]).verdict == REPRODUCED
    # One block: no interval, so no decision.
    assert throughput([900], [1000]).verdict == INCONCLUSIVE
    assert throughput([900], []).verdict == NOT_MEASURED


def test_cpu_over_the_database_must_hold_at_every_concurrency():
    def side(db_cpu_s):
        r = results(*[rec for c, db in zip(bench.CONCURRENCIES, db_cpu_s)
                      for rec in blocks(bench.cell_base("async", "/html", c), "async",
                                        *(served(2000, 0.1, db * f) for f in (1, 1.02, 0.98)),
                                        tool="ab", endpoint="/html", concurrency=c)])
        return find(verdicts(r), *(bench.cell_base("async", "/html", c)
                                   for c in bench.CONCURRENCIES))

    assert side([0.5, 0.5, 0.5]).verdict == REPRODUCED  # ×0.20 everywhere
    held = side([0.5, 0.2, 0.5])  # ×0.50 at -c 20
    assert held.verdict == NOT_REPRODUCED and "-c 20: ×0.50" in held.evidence
    assert side([0.5, 0.5, 1 / 3]).verdict == INCONCLUSIVE  # ×0.30 at -c 200, on the bound


def test_latency_at_c1_is_ms_per_request_less_ms_per_iteration_within_blocks():
    def side(server_rates):
        r = results(*blocks(bench.cell_base("async", "/html", 1), "async",
                            *map(served, server_rates), tool="ab", endpoint="/html",
                            concurrency=1),
                    *blocks(bench.ceiling_base("ceiling-async-loop", 1), "ceiling-async-loop",
                            *map(loop, (4000, 4000, 4000)), tool="standalone"))
        return find(verdicts(r), bench.cell_base("async", "/html", 1),
                    bench.ceiling_base("ceiling-async-loop", 1))

    # 0.25 ms per iteration; 0.333 ms per request: +0.083 ms, within 0.3.
    near = side([3000, 3010, 2990])
    assert near.verdict == REPRODUCED and near.evidence.startswith("0.083 ms [")
    assert side([1000, 1010, 990]).verdict == NOT_REPRODUCED  # +0.75 ms


def test_rss_is_judged_on_every_run_each_a_witness():
    def side(*rss):
        r = results(*blocks("bench-memory-async", "async-memory",
                            *({"rss_mib": v} for v in rss), tool="hold"))
        return find(verdicts(r), "bench-memory-async")

    assert side(13.2).verdict == REPRODUCED  # one run decides: the mechanism fixes it
    assert side(13.2, 16.5).verdict == INCONCLUSIVE
    assert side(17.0).verdict == NOT_REPRODUCED
    assert side(13.2).evidence == "13.2 MiB in every run [13.2 MiB–13.2 MiB, 1 runs]"


def test_failed_requests_of_a_cost_system_are_a_rate():
    def side(failed):
        r = results(*blocks(bench.cost_base("apache", "hello-k"), "cost-apache",
                            *(served(5000, complete=50000, failed=f) for f in failed)))
        return find(verdicts(r), *(bench.cost_base("apache", case) for case in bench.COST_CASES))

    assert side([10, 12, 8]).verdict == REPRODUCED  # 30 of 150,000: 0.02 %
    assert side([150, 140, 160]).verdict == NOT_REPRODUCED  # 0.3 %
    assert side([90, 110, 100]).verdict == INCONCLUSIVE  # 0.2 % on the nose
    assert "300 of 150,000 requests" in side([90, 110, 100]).evidence


def test_cost_ratio_and_the_difference_over_the_floors():
    def cost(key, case, *us):
        return blocks(bench.cost_base(key, case), f"cost-{key}",
                      *({"complete": 1000, "iterations": 1000, "server_cpu_s": u / 1000}
                        for u in us))

    r = results(*cost("async", "hello-k", 12, 12.5, 11.5), *cost("nginx", "hello-k", 10, 10, 10),
                *cost("async", "html", 180, 170, 175), *cost("async", "floor", 100, 95, 98),
                *cost("apache", "html", 700, 690, 680), *cost("apache", "floor", 400, 410, 390))
    judged = verdicts(r)
    ratio = find(judged, bench.cost_base("async", "hello-k"), bench.cost_base("nginx", "hello-k"))
    assert ratio.verdict == NOT_REPRODUCED
    # (180 - 100) - (700 - 400) = -220 µs and the like: less than Apache+PHP adds.
    extra = find(judged, *(bench.cost_base(key, case) for key, case in (
        ("async", "html"), ("async", "floor"), ("apache", "html"), ("apache", "floor"))))
    assert extra.verdict == REPRODUCED and extra.evidence.startswith("-2")
    assert all(side.verdict == NOT_MEASURED for text, side in judged.items()
               if text.startswith("/html -c 20: cluster"))


def test_the_report_says_holds_and_leaves_out_targets_whose_runs_were_not_made():
    r = results(*blocks("bench-memory-async", "async-memory", {"rss_mib": 13.2}, tool="hold",
                        endpoint="/hello", concurrency=1000))
    settings = {"command": "scripts/bench.sh --only memory", "started": "2026-12-06 18:00",
                "seconds": 1.0, "blocks": 1, "run_s": 30}
    report = bench.render(bench.summaries(r), settings, 0, r)
    targets = report.split("## Targets")[1]
    assert "| RSS of async, 1 worker with 1000 idle keep-alive connections ≤ 16 MiB | 13.2 MiB " \
           "in every run [13.2 MiB–13.2 MiB, 1 runs] | holds |" in targets
    assert "ab -c 20" not in targets and "nginx" not in targets  # not run: not listed


def recorded():
    """A real `bench.sh --quick --blocks 2` on the 2-core development machine (2026-12-06): its
    records but /json's and wrk's, their figures trimmed to those the report reads. Its memory
    part stopped after async's run."""
    with open(os.path.join(os.path.dirname(__file__), "data", "bench-runs.json")) as f:
        return Results("/nonexistent", {run["id"]: run for run in json.load(f)})


def test_a_recorded_run_is_judged_and_rendered_whole():
    r = recorded()
    judged = dict(bench.targets(r))
    assert len(judged) == 3 + 4 + 4 + 3 + 4 + 7 + 4 + 6
    assert [text for text, side in judged.items() if side.verdict == NOT_MEASURED] == [
        f"RSS of {bench.LABELS[s]} with 150 live workers ≤ 64 MiB"
        for s in ("blocking-per-request", "blocking-persistent")]
    # A server's block b over its ceiling's: the geometric mean of the two blocks' ratios.
    server, ceiling = bench.cell_base("async", "/html", 20), bench.html_ceiling("async", 20)
    ratios = [r.at(server, b, "requests_per_s") / r.at(ceiling, b, "iterations_per_s")
              for b in (1, 2)]
    side = find(judged, server, ceiling)
    assert abs(side.statistic.estimate - (ratios[0] * ratios[1]) ** 0.5) < 1e-9
    assert side.verdict == INCONCLUSIVE  # two blocks far apart
    assert find(judged, *(bench.cell_base("async", "/html", c)
                          for c in bench.CONCURRENCIES)).verdict == NOT_REPRODUCED
    assert find(judged, bench.cost_base("prefork", "hello"),
                bench.cost_base("nginx", "hello")).verdict == REPRODUCED
    settings = {"command": "scripts/bench.sh --quick --blocks 2", "started": "2026-12-06 18:26",
                "seconds": 1.0, "blocks": 2, "run_s": 730}
    report = bench.render(bench.summaries(r), settings, 0, r)
    for heading in ("## Ceilings", "## Servers under ab and wrk", "## Server CPU per request "
                    "against nginx and Apache+PHP", "## Memory", "## Targets"):
        assert heading in report
    cells = [line.rsplit("|", 2)[1].strip() for line in
             report.split("## Targets")[1].splitlines() if line.startswith("| ")][1:]
    assert len(cells) == len(judged) - 2  # the memory runs not made are left out
    assert set(cells) == {"holds", "**does not hold**", "inconclusive"}
