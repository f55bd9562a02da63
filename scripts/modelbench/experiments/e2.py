"""E2: hello world, `ab -c 200` against /hello. First every system directly, with the servers'
listen queue (511) and with the posts' (128: Linux capped every queue at net.core.somaxconn =
128 before 5.4); then as the post ran it, through nginx: PHP-FPM on a TCP port (and on a unix
socket, at -c 200 and -c 100, with FPM's listen.backlog at the post's 128 and at 511), Node.js,
Express, the models, and nginx's own /hello, every listen queue at 128. The post: PHP-FPM 5042
req/s, Node.js 5356, Express 3529, no failures, the longest request about 3.2–3.7 s in every
run (a SYN sent again after the listen queue overflowed); PHP-FPM on a unix socket answered more
than half the requests non-200 at -c 200, none at -c 100. The kernel's counters
(ListenOverflows, ListenDrops, TCPSynRetrans) are read around every run."""

from dataclasses import replace

from modelbench.engine import machine
from modelbench.engine.plan import Group, Load, Part, Run
from modelbench.experiments.base import (SIDES, cpu_per_request, figures, keys_with, nothing,
                                         run_table)
from modelbench.report.results import client_text
from modelbench.report.runtable import counter_rows, load_rows, pair_derived_row, pair_row
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import (NOT_MEASURED, Claim, Side, all_of, at_least, at_most,
                                        judged, needs, ratio_side, spread_text, within)

KEY = "E2"
TITLE = "E2 — hello world"
IN_DEFAULT = True
REQUESTS = {"smoke": 2000, "default": 50000, "standard": 50000, "full": 100000}
SECONDS = {"default": 3}  # the default's are cut at 3 s: why, docs/experiments.md "E2's runs"
# A verdict here is a count of failures or a longest request, not a rate: one round by default;
# the real systems' rates compared through nginx get two, as a ratio of one round flipped
# between two runs (the models' stood far from their bound).
ROUNDS = {"smoke": 1, "default": 1, "standard": 3, "full": 3}
RATE_ROUNDS = {"smoke": 1, "default": 2, "standard": 3, "full": 3}
NGINX_REQUESTS = {"smoke": 1000, "default": 20000, "standard": 20000, "full": 100000}
# Through nginx, as the post: (key, system, flags of its own, behind nginx, concurrencies).
BEHIND_NGINX = (
    ("fpm", "fpm", ("--fpm-backlog", "128"), False, (200,)),
    ("fpm-unix", "fpm", ("--fpm-listen", "unix", "--fpm-backlog", "128"), False, (200, 100)),
    ("fpm-unix-511", "fpm", ("--fpm-listen", "unix", "--fpm-backlog", "511"), False, (200,)),
    ("node-nginx", "node", (), True, (200,)), ("express-nginx", "express", (), True, (200,)),
    ("blocking-nginx", "blocking", (), True, (200,)), ("async-nginx", "async", (), True, (200,)),
    ("nginx", "nginx", (), False, (200,)))
NGINX_REAL = ("fpm", "node-nginx", "express-nginx")
NGINX_MODELS = ("blocking-nginx", "async-nginx")
POSTS_BACKLOG = 128
SERVERS_BACKLOG = 511
RETRANSMIT_MS = 1000  # a SYN retransmit waits 1 s first
SIMILAR_LOW, SIMILAR_HIGH = 0.8, 1.25
EXPRESS_BELOW = 0.85


def somaxconn():
    """net.core.somaxconn: the most any listen queue gets, whatever backlog a server asks."""
    return int(machine.sysctl("net.core.somaxconn"))


def base(key, backlog=None):
    return f"e2-{key}" + (f"-backlog{backlog}" if backlog else "")


def nginx_base(key, c=200):
    return f"e2n-{key}-c{c}"


def plan(ctx):
    load = Load("ab", "/hello", 200, n=REQUESTS[ctx.size], seconds=SECONDS.get(ctx.size, 0))
    record = {"somaxconn": somaxconn()}
    posts = ("--backlog", str(POSTS_BACKLOG))
    groups = []
    for s in ctx.servers(needs="/hello"):
        groups += [Group([Run(base(s.key), f"E2 {s.key}: {load.text()}", KEY, s, load,
                              record=record)]),
                   Group([Run(base(s.key, POSTS_BACKLOG), f"E2 {s.key} --backlog "
                              f"{POSTS_BACKLOG}: {load.text()}", KEY, s, load, flags=posts,
                              record=record)])]
    rates, counts = [], []
    for key, system, own, front, concurrencies in BEHIND_NGINX:
        if ctx.has(system):
            server = replace(ctx.server(system, own_flags=own, key=key), behind_nginx=front)
            loads = [replace(load, c=c, n=NGINX_REQUESTS[ctx.size]) for c in concurrencies]
            (rates if key in NGINX_REAL else counts).append(Group(
                [Run(nginx_base(key, load.c), f"E2 {key} through nginx: {load.text()}", KEY,
                     server, load, flags=posts, record=record) for load in loads]))
    return [Part(groups, ROUNDS[ctx.size]), Part(rates, RATE_ROUNDS[ctx.size]),
            Part(counts, ROUNDS[ctx.size])]


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
        """numerator's requests/s over denominator's through nginx; names: theirs in the text."""
        a, b = nginx_base(numerator), nginx_base(denominator)
        n, d = names or (numerator, denominator)
        return ratio_side(r, a, b, "requests_per_s", judge,
                          lambda spread: f"{n} ÷ {d} {spread_text(spread, prefix='×')}",
                          lambda: f"{n}: {cpu_per_request(r, a)}; {d}: {cpu_per_request(r, b)}.")

    def similar(spread):
        return within(spread, SIMILAR_LOW, SIMILAR_HIGH)

    unix, c100, other = (nginx_base("fpm-unix"), nginx_base("fpm-unix", 100),
                         nginx_base("fpm-unix-511"))
    failing, calm, fixed = (r.spread(b, "non2xx") for b in (unix, c100, other))
    if None in (failing, calm, fixed):
        socket = needs(unix, c100, other)
    else:
        socket = judged(f"listen.backlog 128: {failing.text(0)} non-2xx at -c 200, "
                        f"{calm.text(0)} at -c 100; listen.backlog 511: {fixed.text(0)} at -c 200",
                        all_of(at_least(failing, 1), at_most(calm, 0), at_most(fixed, 0)),
                        lambda: f"{fmt(r.figure(unix, 'failed_other'), 0)} failed connections; "
                        f"{cpu_per_request(r, unix)}", failing)
    no_model = Side("no model of it", NOT_MEASURED)
    return [
        Claim("E2n Node.js about PHP-FPM", "Through nginx, Node.js serves hello world about as "
              "fast as PHP-FPM (E2: 5356 vs 5042 req/s, +6 %)",
              f"Node.js ÷ PHP-FPM within ×{SIMILAR_LOW}–×{SIMILAR_HIGH} (the async side ÷ the "
              "blocking side for the models)",
              compared("node-nginx", "fpm", similar),
              compared("async-nginx", "blocking-nginx", similar)),
        Claim("E2n Express below Node.js", "Express serves clearly less than plain Node.js "
              "(E2: 3529 vs 5356 req/s, −34 %)", f"Express ÷ Node.js ×{EXPRESS_BELOW} or less",
              compared("express-nginx", "node-nginx", lambda spread: at_most(spread, EXPRESS_BELOW),
                       ("express", "node")), no_model),
        Claim("E2n FPM unix socket", "PHP-FPM on a unix socket answers many requests non-200 at "
              "-c 200 and none at -c 100 (E2): its listen.backlog, 128 then, decides",
              "non-2xx > 0 at -c 200 and 0 at -c 100 with listen.backlog 128; 0 with 511",
              socket, no_model),
        Claim("E2n no failures", "Through nginx over TCP, no failed requests (E2)",
              "0 failed and 0 non-2xx in every run of the side",
              failures_side(r, NGINX_REAL, nginx_base), failures_side(r, NGINX_MODELS, nginx_base)),
        Claim("E2n 3-s requests", "Through nginx, the longest request takes about 3 s (E2: "
              "3.2–3.7 s)", f"the side's longest request ≥ {RETRANSMIT_MS} ms",
              slow_side(r, NGINX_REAL, nginx_base, POSTS_BACKLOG),
              slow_side(r, NGINX_MODELS, nginx_base, POSTS_BACKLOG)),
    ]


def failures_side(r, names, base_of):
    """No failed and no non-2xx request in any of the side's runs (base_of(name) of each)."""
    bases = [base_of(s) for s in names]
    worst, non2xx = (r.paired(bases, key, max) for key in ("failed", "non2xx"))
    if worst is None or non2xx is None:
        return needs(*bases)
    evidence = "; ".join(f"{s}: {spread_text(r.spread(b, 'failed'), 0)} failed, "
                         f"{spread_text(r.spread(b, 'non2xx'), 0)} non-2xx"
                         for s, b in zip(names, bases))
    return judged(evidence, all_of(at_most(worst, 0), at_most(non2xx, 0)), lambda: "; ".join(
        f"{s}: {fmt(r.figure(b, 'failed_length'), 0)} Length and "
        f"{fmt(r.figure(b, 'failed_other'), 0)} connect/receive/exception failures, "
        f"{fmt(r.figure(b, 'non2xx'), 0)} non-2xx" for s, b in zip(names, bases)) + ".", worst)


def slow_side(r, names, base_of, queue, overflowed=False):
    """The side's longest request at least a SYN retransmit's second (and, with overflowed, its
    listen queue overflowing); queue: its listen queue, for the cause."""
    bases = [base_of(s) for s in names]
    longest = r.paired(bases, "max_ms", max)
    if longest is None:
        return needs(*bases)
    overflows, retransmits = (r.paired(bases, key, lambda *v: sum(v))
                              for key in ("listen_overflows", "syn_retransmits"))
    evidence = "; ".join(
        f"{s}: longest {spread_text(r.spread(b, 'max_ms'), 0, suffix=' ms')}, "
        f"listen queue overflows {spread_text(r.spread(b, 'listen_overflows'), 0)}, SYN "
        f"retransmits {spread_text(r.spread(b, 'syn_retransmits'), 0)}"
        for s, b in zip(names, bases))
    verdicts = [at_least(longest, RETRANSMIT_MS)] + ([at_least(overflows, 1)] if overflowed else [])

    def cause():
        if overflows is not None and overflows.high == 0:
            return ("the listen queue never overflowed (0 ListenOverflows in every run): a queue "
                    f"of {queue} held ab's 200 connections, so no SYN had to be sent again.")
        return (f"the listen queue overflowed ({spread_text(overflows, 0)} ListenOverflows in "
                f"the side's runs of a round), and clients sent {spread_text(retransmits, 0)} "
                f"SYNs again (TCPSynRetrans); no request waited for a retransmit's 1 s: the "
                f"longest took {spread_text(longest, 0, suffix=' ms')}.")
    return judged(evidence, all_of(*verdicts), cause, longest)


def claims(r):
    nginx = nginx_claims(r) if nginx_bases(r) else []
    if not keys(r):
        return nginx
    cap = r.record(next(base(k) for k in keys(r))).get("somaxconn", SERVERS_BACKLOG)

    def posts(s):
        return base(s, POSTS_BACKLOG)

    retransmit = ("The longest /hello request at -c 200 takes about 3 s: a SYN retransmit after "
                  "the listen queue overflowed (E2: 3.2–3.7 s)")
    return [
        Claim("E2 no failures", "Hello world at -c 200: no failed requests (E2)",
              "0 failed and 0 non-2xx in every run of the side",
              failures_side(r, SIDES["real"], base), failures_side(r, SIDES["model"], base)),
        Claim("E2 3-s requests", retransmit + f", with the servers' listen queue "
              f"({SERVERS_BACKLOG}; somaxconn {cap})",
              f"the side's longest request ≥ {RETRANSMIT_MS} ms",
              slow_side(r, SIDES["real"], base, min(SERVERS_BACKLOG, cap)),
              slow_side(r, SIDES["model"], base, min(SERVERS_BACKLOG, cap))),
        Claim(f"E2 3-s requests, backlog {POSTS_BACKLOG}",
              retransmit + f", with the posts' listen queue: --backlog {POSTS_BACKLOG}, the cap "
              "of kernels before 5.4",
              f"the side's longest request ≥ {RETRANSMIT_MS} ms and listen queue overflows "
              "during its runs",
              slow_side(r, SIDES["real"], posts, POSTS_BACKLOG, True),
              slow_side(r, SIDES["model"], posts, POSTS_BACKLOG, True)),
    ] + nginx


plots = nothing


def headline(results):
    return figures(results, [(f"E2 {k} requests/s", base(k)) for k in keys(results)] +
                   [(f"E2 {results.record(b)['server']} through nginx -c "
                     f"{results.record(b)['concurrency']} requests/s", b)
                    for b in nginx_bases(results)], "requests_per_s", 1)


def pair_rows(results, model, real):
    return (pair_row(results, "E2 /hello requests/s", base(model), base(real), "requests_per_s") +
            pair_derived_row(results, "E2 server CPU per /hello request (ms)",
                             results.per_request_ms_values(base(model), "server"),
                             results.per_request_ms_values(base(real), "server"), 3))
