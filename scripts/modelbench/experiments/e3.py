"""E3, ab's Length failures (docs/experiments.md): `ab -n 1000 -c 5` as its post ran it, against
/factorial without and with `-l`, and against /html, the post's page. One block decides."""

from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments.base import (NO_MORE, SIDES, concurrency_point, figures, nothing,
                                         part, run_table, server_order)
from modelbench.report.runtable import load_rows
from modelbench.report.tables import fmt
from modelbench.report.verdicts import Claim, all_of, at_least, at_most, judged, needs

KEY = "E3"
TITLE = "E3 — /factorial and ab's Length failures"
IN_DEFAULT = True
REQUESTS = {"smoke": 200, "default": 1000, "standard": 1000, "full": 1000}
BLOCKS = {"smoke": 1, "default": 1, "standard": 3, "full": 3}
# "970 of 1000 failed (Length)": most of the answers; with -l none, which 1,000 requests bound
# at one in a hundred.
MOST, NONE = 0.5, 0.01
SYSTEMS = ("php", "apache-fpm", "node", "blocking", "async")
# The sizes that also run the post's page, /html at -c 5 (a rate, so three blocks).
PAGE_SIZES = ("smoke", "standard", "full")
REAL = ("php", "apache-fpm", "node")
APPSERVER = "not runnable here: appserver.io needs PHP 5 with the pthreads extension; Debian 12 " \
    "has PHP 8.2 and no appserver.io"


def page_base(key):
    return f"e3-{key}-html"


def base(key, with_l=False):
    return f"e3-{key}" + ("-l" if with_l else "")


def plan(ctx):
    n = REQUESTS[ctx.size]
    plain, variable = (Load("ab", "/factorial", 5, n=n, variable_length=v) for v in (False, True))
    page = Load("ab", "/html", 5, n=n)
    groups = []
    for s in ctx.servers(SYSTEMS, needs="/factorial"):
        # Not warmed up: the verdict is a count of lengths, which a cold server answers alike,
        # and the warm-up cost up to 15 s (Apache forked to 29 children under /factorial at
        # -c 5). The /html rate run is warmed.
        runs = [Run(base(s.key, with_l), f"E3 {s.key}: {load.text()}", KEY, s, load, warm=False)
                for with_l, load in ((False, plain), (True, variable))]
        if s.system.name != "node" and ctx.size in PAGE_SIZES:
            runs.append(Run(page_base(s.key), f"E3 {s.key}: {page.text()}", KEY, s, page))
        groups.append(Group(runs))
    return [part(ctx, groups, BLOCKS, NO_MORE)]


def bases(results):
    return [b for k in server_order(results) for b in (base(k), base(k, True)) if results.has(b)]


def page_section(results):
    found = [page_base(k) for k in server_order(results) if results.has(page_base(k))]
    if not found:
        return []
    post = [["the post (its CMS page, 7724 bytes)"] +
            ["43.0 req/s" if results.record(b)["server"] == "apache-fpm" else "" for b in found]
            + ["30.6 req/s"]]
    rows = [row + [APPSERVER if i == 0 else ""] for i, row in
            enumerate(load_rows(results, found))] + post
    return run_table(results, f"`ab -r -n {results.record(found[0]).get('requests')} -c 5` "
                     "against `/html`", found, rows,
                     [results.label(results.record(b)["server"]) for b in found] +
                     ["appserver.io 1.0.1"])


def section(results):
    found = bases(results)
    if not found:
        return ""
    first = results.record(found[0])
    labels = [results.label(results.record(b)["server"]) + (" -l" if b.endswith("-l") else "")
              for b in found]
    extra = [[label] + [fmt(results.figure(b, key), 0) for b in found] for label, key in
             (("of which Length failures", "failed_length"), ("complete requests", "complete"))]
    return "\n".join([
        f"## {TITLE}", "",
        f"`ab -r -n {first.get('requests')} -c {first.get('concurrency')}` against `/factorial` "
        "(n! for a random n in 10..40, so the body length varies), then the same with `-l`. ab "
        "takes the first response's length as the reference and counts every other length as "
        "'Failed requests (Length)'; the post saw 970 of 1000. `-l` accepts varying lengths.", "",
    ] + run_table(results, f"`ab -r -n {first.get('requests')} -c 5` against `/factorial`, "
                  "without and with `-l`", found, load_rows(results, found, extra), labels)
        + page_section(results))


def claims(r):
    if not bases(r):
        return []

    def side(systems):
        plain, with_l = [base(s) for s in systems], [base(s, True) for s in systems]
        if not all(r.ok(b) for b in plain + with_l):
            return needs(*plain, *with_l)
        lengths = {p: r.rate([p], "failed_length") for p in plain}
        failed = {w: r.rate([w], "failed") for w in with_l}
        verdicts = [at_least(lengths[p], MOST) for p in plain] + \
            [at_most(failed[w], NONE) for w in with_l]
        evidence = "; ".join(f"{s}: Length failures {lengths[p].text()}, failed with -l "
                             f"{failed[w].text()}" for s, p, w in zip(systems, plain, with_l))
        fewest = min(lengths.values(), key=lambda interval: interval.estimate)
        return judged(evidence, all_of(*verdicts),
                      lambda: f"Length failures without -l {fewest.text()} (the fewest of the "
                      f"side), failed with -l: {', '.join(f.text() for f in failed.values())}: "
                      f"{r.record(plain[0]).get('command', '')}.", fewest, plain + with_l)

    return [Claim("E3 Length",
                  "ab counts responses whose length differs from the first as failed (Length); "
                  "`-l` accepts them (E3: 970 of 1000 failed)",
                  f"Length failures ≥ {MOST:.0%} of the requests without -l, and failed requests "
                  f"with -l at most one in {1 / NONE:,.0f}, for each of the side",
                  side(REAL), side(SIDES["model"]))]


def headline(results):
    return (figures(results, [(f"E3 {results.record(b)['server']} Length failures", b,
                               concurrency_point(results, b))
                              for b in bases(results) if not b.endswith("-l")],
                    "failed_length", 0) +
            figures(results, [(f"E3 {k} /html -c 5 requests/s", page_base(k),
                               concurrency_point(results, page_base(k)))
                              for k in server_order(results)], "requests_per_s", 1))


plots = pair_rows = nothing
