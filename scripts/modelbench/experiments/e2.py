"""E2: hello world, `ab -c 200` against /hello, with the servers' listen queue (511) and with the
posts' (128: Linux capped every queue at net.core.somaxconn = 128 before 5.4). The post, through
nginx: PHP-FPM 5042 req/s, Node.js 5356, no failures, the longest request about 3.2–3.7 s in
every run: a SYN sent again after the listen queue overflowed. The kernel's counters
(ListenOverflows, ListenDrops, TCPSynRetrans) are read around every run."""

from modelbench.engine.plan import Group, Load, Part, Run
from modelbench.experiments.base import SIDES, figures, rounds, server_order
from modelbench.report.results import client_text
from modelbench.report.runtable import (counter_rows, load_rows, pair_derived_row, pair_row,
                                        table_notes)
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import Claim, all_of, at_least, at_most, judged, needs, spread_text

KEY = "E2"
TITLE = "E2 — hello world"
IN_DEFAULT = True
REQUESTS = {"smoke": 2000, "default": 20000, "standard": 50000, "full": 100000}
POSTS_BACKLOG = 128
SERVERS_BACKLOG = 511
RETRANSMIT_MS = 1000  # a SYN retransmit waits 1 s first


def somaxconn():
    """net.core.somaxconn: the most any listen queue gets, whatever backlog a server asks."""
    with open("/proc/sys/net/core/somaxconn") as f:
        return int(f.read().strip())


def base(key, backlog=None):
    return f"e2-{key}" + (f"-backlog{backlog}" if backlog else "")


def plan(ctx):
    n = REQUESTS[ctx.size]
    load = Load("ab", "/hello", 200, n=n)
    record = {"somaxconn": somaxconn()}
    groups = []
    for server in ctx.servers(needs="/hello"):
        groups.append(Group([Run(base(server.key), f"E2 {server.key}: {load.text()}", KEY, server,
                                 load, record=record)]))
        groups.append(Group([Run(base(server.key, POSTS_BACKLOG),
                                 f"E2 {server.key} --backlog {POSTS_BACKLOG}: {load.text()}", KEY,
                                 server, load, flags=("--backlog", str(POSTS_BACKLOG)),
                                 record=record)]))
    return [Part(groups, rounds(ctx.size))]


def keys(results):
    return [k for k in server_order(results) if results.has(base(k))
            or results.has(base(k, POSTS_BACKLOG))]


def section(results):
    parts = []
    for backlog, title in ((None, f"the servers' listen queue ({SERVERS_BACKLOG})"),
                           (POSTS_BACKLOG, f"`--backlog {POSTS_BACKLOG}`: the posts' listen queue")):
        bases = [base(k, backlog) for k in keys(results) if results.has(base(k, backlog))]
        if not bases:
            continue
        parts += [f"### {title}", "",
                  table(["value"] + [results.label(results.record(b)["server"]) for b in bases],
                        load_rows(results, bases, counter_rows(results, bases)))]
        parts += table_notes(results, bases) + [""]
    if not parts:
        return ""
    first = results.record(next(base(k) for k in keys(results)))
    return "\n".join([
        f"## {TITLE}",
        "",
        f"{client_text(first)} against `/hello` (`Hello World! 10\\n`). The post, through nginx: "
        "PHP-FPM 5042 req/s, Node.js 5356 req/s, no failures, the longest request about "
        "3.2–3.7 s in every run: a SYN sent again after the listen queue overflowed. Kernels "
        f"before 5.4 capped every listen queue at {POSTS_BACKLOG} (`net.core.somaxconn`); this "
        f"machine's is {first.get('somaxconn', '?')}, so E2 runs twice: with the servers' queue "
        f"of {SERVERS_BACKLOG} and with `--backlog {POSTS_BACKLOG}`. The kernel's counters are "
        "the deltas of `/proc/net/netstat` (TcpExt) over each run, for the whole machine.",
        "",
    ] + parts)


def claims(r):
    if not keys(r):
        return []
    first = r.record(next(base(k) for k in keys(r)))
    cap = first.get("somaxconn", SERVERS_BACKLOG)

    def failures_side(systems):
        bases = [base(s) for s in systems]
        worst = r.paired(bases, "failed", max)
        non2xx = r.paired(bases, "non2xx", max)
        if worst is None or non2xx is None:
            return needs(*bases)
        evidence = "; ".join(f"{s}: {spread_text(r.spread(b, 'failed'), 0)} failed, "
                             f"{spread_text(r.spread(b, 'non2xx'), 0)} non-2xx"
                             for s, b in zip(systems, bases))

        def cause():
            return "; ".join(
                f"{s}: {fmt(r.figure(b, 'failed_length'), 0)} Length and "
                f"{fmt(r.figure(b, 'failed_other'), 0)} connect/receive/exception failures, "
                f"{fmt(r.figure(b, 'non2xx'), 0)} non-2xx" for s, b in zip(systems, bases)) + "."
        return judged(evidence, all_of(at_most(worst, 0), at_most(non2xx, 0)), cause, worst)

    def slow_side(systems, backlog):
        bases = [base(s, backlog) for s in systems]
        longest = r.paired(bases, "max_ms", max)
        if longest is None:
            return needs(*bases)
        overflows = r.paired(bases, "listen_overflows", lambda *v: sum(v))
        retransmits = r.paired(bases, "syn_retransmits", lambda *v: sum(v))
        evidence = "; ".join(
            f"{s}: longest {spread_text(r.spread(b, 'max_ms'), 0, suffix=' ms')}, "
            f"listen queue overflows {spread_text(r.spread(b, 'listen_overflows'), 0)}, SYN "
            f"retransmits {spread_text(r.spread(b, 'syn_retransmits'), 0)}"
            for s, b in zip(systems, bases))
        verdicts = [at_least(longest, RETRANSMIT_MS)]
        if backlog:
            verdicts.append(at_least(overflows, 1))

        def cause():
            queue = backlog or min(SERVERS_BACKLOG, cap)
            if overflows is not None and overflows.high == 0:
                return (f"the listen queue never overflowed (0 ListenOverflows in every run): a "
                        f"queue of {queue} held ab's 200 connections, so no SYN had to be "
                        "sent again.")
            return (f"the listen queue overflowed ({spread_text(overflows, 0)} ListenOverflows "
                    f"in the side's runs of a round), and clients sent "
                    f"{spread_text(retransmits, 0)} SYNs again (TCPSynRetrans); no request "
                    f"waited for a retransmit's 1 s: the longest took "
                    f"{spread_text(longest, 0, suffix=' ms')}.")
        return judged(evidence, all_of(*verdicts), cause, longest)

    retransmit = ("The longest /hello request at -c 200 takes about 3 s: a SYN retransmit after "
                  "the listen queue overflowed (E2: 3.2–3.7 s)")
    return [
        Claim("E2 no failures", "Hello world at -c 200: no failed requests (E2)",
              "0 failed and 0 non-2xx in every run of the side",
              failures_side(SIDES["real"]), failures_side(SIDES["model"])),
        Claim("E2 3-s requests", retransmit + f", with the servers' listen queue "
              f"({SERVERS_BACKLOG}; somaxconn {cap})",
              f"the side's longest request ≥ {RETRANSMIT_MS} ms",
              slow_side(SIDES["real"], None), slow_side(SIDES["model"], None)),
        Claim(f"E2 3-s requests, backlog {POSTS_BACKLOG}",
              retransmit + f", with the posts' listen queue: --backlog {POSTS_BACKLOG}, the cap "
              "of kernels before 5.4",
              f"the side's longest request ≥ {RETRANSMIT_MS} ms and listen queue overflows "
              "during its runs",
              slow_side(SIDES["real"], POSTS_BACKLOG), slow_side(SIDES["model"], POSTS_BACKLOG)),
    ]


def plots(results):
    return []


def headline(results):
    return figures(results, [(f"E2 {k} requests/s", base(k)) for k in keys(results)],
                   "requests_per_s", 1)


def pair_rows(results, model, real):
    return (pair_row(results, "E2 /hello requests/s", base(model), base(real), "requests_per_s") +
            pair_derived_row(results, "E2 server CPU per /hello request (ms)",
                             results.per_request_ms_values(base(model), "server"),
                             results.per_request_ms_values(base(real), "server"), 3))
