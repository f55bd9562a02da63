"""E2, hello world (docs/experiments.md says what the post measured and what runs here): `ab -c
200` against /hello directly, with both listen queues, then through nginx (BEHIND_NGINX)."""

import functools
from dataclasses import replace

from modelbench.engine import machine
from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments.base import (NO_FAILURES, SIDES, concurrency_point, cpu_per_request,
                                         figures, keys_with, nothing, part, run_table)
from modelbench.report import statistics
from modelbench.report.results import client_text
from modelbench.report.runtable import counter_rows, load_rows, pair_cpu_row, pair_row
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import (NOT_MEASURED, Claim, Side, about, all_of, at_least,
                                        at_most, interval_text, judged, needs, ratio_side)

KEY = "E2"
TITLE = "E2 — hello world"
IN_DEFAULT = True
REQUESTS = {"smoke": 2000, "default": 50000, "standard": 50000, "full": 100000}
SECONDS = {"default": 2}  # the default's are cut at 2 s: why, docs/experiments.md "E2's runs"
# Why two blocks decide failures and stalls: docs/experiments.md, E2, "What runs here".
BLOCKS = {"smoke": 1, "default": 2, "standard": 5, "full": 5}
NGINX_REQUESTS = {"smoke": 1000, "default": 20000, "standard": 20000, "full": 100000}
# Through nginx, as the post: (key, system, flags of its own, behind nginx, concurrencies).
BEHIND_NGINX = (
    ("fpm", "fpm", ("--fpm-backlog", "128"), False, (200,)),
    ("fpm-unix", "fpm", ("--fpm-listen", "unix", "--fpm-backlog", "128"), False, (200, 100)),
    ("fpm-unix-511", "fpm", ("--fpm-listen", "unix", "--fpm-backlog", "511"), False, (200,)),
    ("node-nginx", "node", (), True, (200,)), ("express-nginx", "express", (), True, (200,)),
    ("blocking-nginx", "blocking", (), True, (200,)), ("async-nginx", "async", (), True, (200,)),
    ("nginx", "nginx", (), False, (200,)))
NGINX_SIDES = (("fpm", "node-nginx", "express-nginx"), ("blocking-nginx", "async-nginx"))
POSTS_BACKLOG = 128
SERVERS_BACKLOG = 511
# A SYN retransmit waits 1 s first. Measured on 2026-12-06 over three default runs, E2's longest
# requests were 17-287 ms in the runs without one and 1,026-1,898 ms in those with: a request that
# waited for a retransmit took 0.5 s or more, the bound halfway on a log scale.
RETRANSMIT_MS = 1000
STALL_MS = 500
NO_FAILURES_CRITERION = ("failed and non-2xx requests of all the side's runs at most one in "
                         f"{1 / NO_FAILURES:,.0f}")
STALL_CRITERION = (f"the side's longest request in each run ≥ {STALL_MS} ms (it waited for a SYN "
                   f"retransmit, {RETRANSMIT_MS} ms)")
SIMILAR = 1.25  # "about as fast": within ×0.8–×1.25
EXPRESS_BELOW = 0.85
# PHP-FPM on a unix socket "answered more than half not 200 OK at -c 200, all OK at -c 100".
MORE_THAN_HALF = 0.5


def somaxconn():
    """net.core.somaxconn: the most any listen queue gets, whatever backlog a server asks."""
    return int(machine.sysctl("net.core.somaxconn"))


def base(key, backlog=None):
    return f"e2-{key}" + (f"-backlog{backlog}" if backlog else "")


def nginx_base(key, c=200):
    return f"e2n-{key}-c{c}"


def plan(ctx):
    """Two parts: every system directly, with both listen queues; then through nginx."""
    load = Load("ab", "/hello", 200, n=REQUESTS[ctx.size], seconds=SECONDS.get(ctx.size, 0))
    record = {"somaxconn": somaxconn()}
    posts = ("--backlog", str(POSTS_BACKLOG))
    direct = [Group([Run(base(s.key, backlog), f"E2 {s.key}{' '.join(('', *flags))}: "
                         f"{load.text()}", KEY, s, load, flags=flags, record=record)])
              for s in ctx.servers(needs="/hello")
              for backlog, flags in ((None, ()), (POSTS_BACKLOG, posts))]
    behind = []
    for key, system, own, front, concurrencies in BEHIND_NGINX:
        if ctx.has(system):
            server = replace(ctx.server(system, own_flags=own, key=key), behind_nginx=front)
            loads = [replace(load, c=c, n=NGINX_REQUESTS[ctx.size]) for c in concurrencies]
            behind.append(Group(
                [Run(nginx_base(key, load.c), f"E2 {key} through nginx: {load.text()}", KEY,
                     server, load, flags=posts, record=record) for load in loads]))
    return [part(ctx, groups, BLOCKS) for groups in (direct, behind) if groups]


def keys(results):
    return keys_with(results, base, lambda k: base(k, POSTS_BACKLOG))


def section(results):
    parts = []
    for backlog, title in ((None, f"the servers' listen queue ({SERVERS_BACKLOG})"),
                           (POSTS_BACKLOG,
                            f"`--backlog {POSTS_BACKLOG}`: the posts' listen queue")):
        bases = [base(k, backlog) for k in keys(results) if results.has(base(k, backlog))]
        if bases:
            parts += run_table(results, title, bases,
                               load_rows(results, bases, counter_rows(results, bases)))
    parts += nginx_section(results)
    if not parts:
        return ""
    first = results.record(([base(k) for k in keys(results)] + nginx_bases(results))[0])
    return "\n".join([
        f"## {TITLE}", "",
        f"{client_text(first)} against `/hello` (`Hello World! 10\\n`). The post, through nginx: "
        "PHP-FPM 5042 req/s, Node.js 5356 req/s, no failures, the longest request about "
        "3.2–3.7 s in every run: a SYN sent again after the listen queue overflowed. Kernels "
        f"before 5.4 capped every listen queue at {POSTS_BACKLOG} (`net.core.somaxconn`); this "
        f"machine's is {first.get('somaxconn', '?')}, so E2 runs twice: with the servers' queue "
        f"of {SERVERS_BACKLOG} and with `--backlog {POSTS_BACKLOG}`. The kernel's counters are "
        "the deltas of `/proc/net/netstat` (TcpExt) over each run, for the whole machine.", "",
    ] + parts)


def nginx_bases(results):
    return [nginx_base(key, c) for key, _, _, _, concurrencies in BEHIND_NGINX
            for c in concurrencies if results.has(nginx_base(key, c))]


def nginx_section(results):
    bases = nginx_bases(results)
    if not bases:
        return []
    labels = [results.label(results.record(b)["server"]) +
              (f" -c {results.record(b)['concurrency']}" if not b.endswith("-c200") else "")
              for b in bases]
    post = {"fpm": "5042", "node-nginx": "5356", "express-nginx": "3529"}
    extra = [["the post's requests/s"] + [post.get(results.record(b)["server"], "")
                                          if b.endswith("-c200") else "" for b in bases]]
    share = []
    for model in ("blocking", "async"):
        direct, behind = base(model, POSTS_BACKLOG), nginx_base(f"{model}-nginx")
        d, b = (results.per_request_ms(x, "server") for x in (direct, behind))
        if d is not None and b is not None:
            share.append([model, fmt(1000 * d, 1), fmt(1000 * b, 1), fmt(1000 * (b - d), 1)])
    out = run_table(
        results, "As the post ran it: through nginx", bases,
        load_rows(results, bases, extra + counter_rows(results, bases)), labels,
        f"{client_text(results.record(bases[0]))} against `/hello` through "
        "nginx 1.22 (one worker, a new upstream connection per request, as the post's nginx 0.8), "
        f"every listen queue at {POSTS_BACKLOG}, the cap of the post's kernel: nginx's, and "
        "PHP-FPM's `listen.backlog` (`--fpm-backlog`), the setting that decides whether a burst of "
        "connections to FPM's unix socket fails (a full unix-socket queue refuses nginx's connect "
        "at once: 502; a full TCP queue drops the SYN and the client retries). `fpm-unix-511` is "
        "the other side of that setting. A system's CPU here is its whole tree, nginx included.")
    if share:
        out += ["What nginx adds to a model's CPU per /hello request (µs: directly with "
                f"`--backlog {POSTS_BACKLOG}`, behind nginx, the difference):", "",
                table(["model", "directly", "behind nginx", "nginx's share"], share), ""]
    return out


def nginx_claims(r):
    def compared(numerator, denominator, judge, names=None):
        """Requests/s through nginx; names: theirs in the text."""
        a, b = nginx_base(numerator), nginx_base(denominator)
        n, d = names or (numerator, denominator)
        return ratio_side(r, a, b, "requests_per_s", judge,
                          lambda interval: f"{n} ÷ {d} within each block "
                          f"{interval_text(interval, prefix='×')}",
                          lambda: f"{n}: {cpu_per_request(r, a)}; {d}: {cpu_per_request(r, b)}.")

    similar = functools.partial(about, centre=1.0, margin=SIMILAR)
    unix, c100, other = (nginx_base("fpm-unix"), nginx_base("fpm-unix", 100),
                         nginx_base("fpm-unix-511"))
    failing, calm, fixed = (r.rate([b], "non2xx") for b in (unix, c100, other))
    if None in (failing, calm, fixed):
        socket = needs(unix, c100, other)
    else:
        socket = judged(f"non-2xx with listen.backlog 128: {failing.text()} at -c 200, "
                        f"{calm.text()} at -c 100; with listen.backlog 511: {fixed.text()} at "
                        "-c 200",
                        all_of(at_least(failing, MORE_THAN_HALF), at_most(calm, NO_FAILURES),
                               at_most(fixed, NO_FAILURES)),
                        lambda: f"{fmt(r.figure(unix, 'failed_other'), 0)} failed connections "
                        f"and {fmt(r.figure(unix, 'non2xx'), 0)} non-2xx a run (medians) at "
                        f"-c 200 with listen.backlog 128, {fmt(r.figure(unix, 'listen_drops'), 0)}"
                        f" listen drops; {cpu_per_request(r, unix)}", failing, (unix, c100, other))
    no_model = Side("no model of it", NOT_MEASURED)
    return [
        Claim("E2n Node.js about PHP-FPM", "Through nginx, Node.js serves hello world about as "
              "fast as PHP-FPM (E2: 5356 vs 5042 req/s, +6 %)",
              f"Node.js ÷ PHP-FPM within ×{1 / SIMILAR:.1f}–×{SIMILAR} (the async side ÷ the "
              "blocking side for the models)",
              compared("node-nginx", "fpm", similar),
              compared("async-nginx", "blocking-nginx", similar)),
        Claim("E2n Express below Node.js", "Express serves clearly less than plain Node.js "
              "(E2: 3529 vs 5356 req/s, −34 %)", f"Express ÷ Node.js ×{EXPRESS_BELOW} or less",
              compared("express-nginx", "node-nginx",
                       lambda interval: at_most(interval, EXPRESS_BELOW), ("express", "node")),
              no_model),
        Claim("E2n FPM unix socket", "PHP-FPM on a unix socket answers more than half the "
              "requests non-200 at -c 200 and all of them 200 at -c 100 (E2): its "
              "listen.backlog, 128 then, decides",
              f"the share of non-2xx answers at -c 200 with listen.backlog 128 ≥ "
              f"{MORE_THAN_HALF:.0%}; at -c 100, and with 511 at -c 200, at most one in "
              f"{1 / NO_FAILURES:,.0f}", socket, no_model),
        Claim("E2n no failures", "Through nginx over TCP, no failed requests (E2)",
              NO_FAILURES_CRITERION,
              *(failures_side(r, names, nginx_base) for names in NGINX_SIDES)),
        Claim("E2n 3-s requests", "Through nginx, the longest request takes about 3 s (E2: "
              "3.2–3.7 s in every run)", STALL_CRITERION,
              *(slow_side(r, names, nginx_base, POSTS_BACKLOG) for names in NGINX_SIDES)),
    ]


def failures_side(r, names, base_of):
    """Failed and non-2xx requests over every request of the side's runs: at most NO_FAILURES."""
    bases = [base_of(s) for s in names]
    failed = r.rate(bases, lambda f: (f.get("failed") or 0) + (f.get("non2xx") or 0))
    if failed is None or not all(r.ok(b) for b in bases):
        return needs(*bases)
    evidence = (f"failed or non-2xx: {failed.text()} (" + "; ".join(
        f"{s}: {fmt(sum(v or 0 for v in r.values(b, 'failed')), 0)} failed, "
        f"{fmt(sum(v or 0 for v in r.values(b, 'non2xx')), 0)} non-2xx in "
        f"{len(r.blocks(b))} run(s)" for s, b in zip(names, bases)) + ")")
    return judged(evidence, at_most(failed, NO_FAILURES), lambda: "; ".join(
        f"{s}: {fmt(sum(v or 0 for v in r.values(b, 'failed_length')), 0)} Length and "
        f"{fmt(sum(v or 0 for v in r.values(b, 'failed_other')), 0)} connect/receive/exception "
        f"failures, {fmt(sum(v or 0 for v in r.values(b, 'non2xx')), 0)} non-2xx"
        for s, b in zip(names, bases)) + ".", failed, bases)


def pooled(r, bases, key):
    """The Interval of a figure over the runs of all the bases."""
    runs = [run for b in bases for run in r.blocks(b).values()]
    return statistics.of_blocks([run["figures"].get(key) for run in runs], unit="runs")


def slow_side(r, names, base_of, queue, overflowed=False):
    """The side's longest request in each run at least STALL_MS (and, with overflowed, its listen
    queue overflowing in each run); queue: its listen queue, for the cause."""
    bases = [base_of(s) for s in names]
    longest = pooled(r, bases, "max_ms")
    if longest is None or not all(r.ok(b) for b in bases):
        return needs(*bases)
    overflows = pooled(r, bases, "listen_overflows")
    evidence = (f"longest request of each of the side's runs "
                f"{interval_text(longest, 0, suffix=' ms')}"
                + (f", listen queue overflows in each {interval_text(overflows, 0)}"
                   if overflowed else "") + " (" + "; ".join(
                       f"{s}: longest {'/'.join(fmt(v, 0) for v in r.values(b, 'max_ms'))} ms, "
                       f"overflows {'/'.join(fmt(v, 0) for v in r.values(b, 'listen_overflows'))}"
                       f", SYN retransmits "
                       f"{'/'.join(fmt(v, 0) for v in r.values(b, 'syn_retransmits'))}"
                       for s, b in zip(names, bases)) + ")")
    verdicts = [at_least(longest, STALL_MS)] + ([at_least(overflows, 1)] if overflowed else [])

    def cause():
        counts = [v for b in bases for v in r.values(b, "listen_overflows") if v is not None]
        if counts and max(counts) == 0:
            return ("the listen queue never overflowed (0 ListenOverflows in every run): a queue "
                    f"of {queue} held ab's 200 connections, so no SYN had to be sent again.")
        return (f"the listen queue overflowed ({'/'.join(fmt(v, 0) for v in counts)} "
                "ListenOverflows in the side's runs), and clients sent SYNs again (TCPSynRetrans "
                "above); no request waited for a retransmit's 1 s in most runs: the longest took "
                f"{interval_text(longest, 0, suffix=' ms')}.")
    return judged(evidence, all_of(*verdicts), cause, longest, bases)


def claims(r):
    nginx = nginx_claims(r) if nginx_bases(r) else []
    if not keys(r):
        return nginx
    cap = r.record(next(base(k) for k in keys(r))).get("somaxconn", SERVERS_BACKLOG)
    posts = functools.partial(base, backlog=POSTS_BACKLOG)
    sides = SIDES.values()  # real, model
    retransmit = ("The longest /hello request at -c 200 takes about 3 s: a SYN retransmit after "
                  "the listen queue overflowed (E2: 3.2–3.7 s)")
    return [
        Claim("E2 no failures", "Hello world at -c 200: no failed requests (E2)",
              NO_FAILURES_CRITERION, *(failures_side(r, names, base) for names in sides)),
        Claim("E2 3-s requests", retransmit + f", with the servers' listen queue "
              f"({SERVERS_BACKLOG}; somaxconn {cap})", STALL_CRITERION,
              *(slow_side(r, names, base, min(SERVERS_BACKLOG, cap)) for names in sides)),
        Claim(f"E2 3-s requests, backlog {POSTS_BACKLOG}",
              retransmit + f", with the posts' listen queue: --backlog {POSTS_BACKLOG}, the cap "
              "of kernels before 5.4",
              f"the side's longest request in each run ≥ {STALL_MS} ms (a SYN retransmit), and "
              "at least one listen queue overflow in each",
              *(slow_side(r, names, posts, POSTS_BACKLOG, True) for names in sides)),
    ] + nginx


plots = nothing


def headline(results):
    return figures(results, [(f"E2 {k} requests/s", base(k), concurrency_point(results, base(k)))
                             for k in keys(results)] +
                   [(f"E2 {results.record(b)['server']} through nginx -c "
                     f"{results.record(b)['concurrency']} requests/s", b,
                     concurrency_point(results, b)) for b in nginx_bases(results)],
                   "requests_per_s", 1)


def pair_rows(results, model, real):
    return (pair_row(results, "E2 /hello requests/s", base(model), base(real), "requests_per_s") +
            pair_cpu_row(results, "E2 server CPU per /hello request (ms)", base(model),
                         base(real), "server"))
