"""E10, E4's run out of ports in seconds (docs/experiments.md asks, reads and gives its first
run): E4's post's siege (-c 500 -d 1, a new connection per transaction) against /json, run from a
network namespace of the client's own whose ephemeral ports are narrowed to PORTS
(engine.netns; engine.loads.ports counts who holds the TIME_WAIT and the connects that found
no port). A fresh server and namespace per run.

Why each choice:
- The post's client ran out of its 28,000 ports in 15 minutes; a TIME_WAIT holds a port for 60 s,
  so a client that closes first needs about 470 new connections a second for that. With 1,000
  ports, a client that holds the TIME_WAIT at the ~1,000 connections a second of 500 users who
  wait up to a second runs out within a few seconds; one that does not never does.
- The namespace, not this machine's port range: narrowing this machine's would starve every
  other program of ports. Its tcp_tw_reuse is 0, as the posts' kernels' default, so that a port
  in TIME_WAIT is not taken again for the same server.
- The server listens on the host's side of the pair, the client connects from inside: who
  closes first decides which side's `ss` lists the TIME_WAIT."""

import contextlib

from modelbench.engine import netns
from modelbench.engine.plan import Group, Load, Run, Setup
from modelbench.experiments.base import (EVERY, NO_FAILURES, NO_MORE, POSTS, SIDES, SWEEP_BLOCKS,
                                         causes, figures, keys_with, nothing, part)
from modelbench.report.tables import fmt, interval_cell, table
from modelbench.report.verdicts import (Claim, all_of, at_least, at_most, interval_text, judged,
                                        needs)

KEY = "E10"
TITLE = "E10 — E4's run out of ports, in seconds"
IN_DEFAULT = False
PORTS = (50000, 50999)
USERS, DELAY_S = 500, 1  # E4's post
SECONDS = {"smoke": 3, "default": 10, "standard": 10, "full": 60}
PORT_COUNT = PORTS[1] - PORTS[0] + 1
SYSCTLS = {"net.ipv4.ip_local_port_range": f"{PORTS[0]} {PORTS[1]}", "net.ipv4.tcp_tw_reuse": 0}


def base(key):
    return f"e10-{key}"


@contextlib.contextmanager
def client_namespace(checkout, log_prefix):
    """A Group's around: the server on the host's side of a new namespace's link."""
    with netns.client_namespace(SYSCTLS) as link:
        yield Setup(listen=f"{link.host}:0", client=link)


def plan(ctx):
    """One part: a fresh group of one run per server, with its namespace, three blocks; every
    system but with --smoke, which checks the machinery on the posts' four."""
    load = Load("ports-siege", "/json", USERS, seconds=SECONDS[ctx.size], delay_s=DELAY_S)
    groups = [Group([Run(base(s.key), f"E10 {s.key}: {load.text()}", KEY, s, load)],
                    around=client_namespace, fresh=True)
              for s in ctx.servers(POSTS if ctx.size == "smoke" else EVERY, needs="/json")]
    return [part(ctx, groups, SWEEP_BLOCKS, NO_MORE)] if groups else []


def keys(results):
    return keys_with(results, base)


def attempted(f):
    return f["complete"] + f["failed"]


def no_port_rate(results, key):
    """The Interval of the connects that found no port over the transactions tried (pooled)."""
    return results.rate([base(key)], "no_port", attempted)


def time_wait_text(results, key):
    """'client 1,000 of its 1,000 ports, server 182': the TIME_WAITs right after the run."""
    client, server = (fmt(results.figure(base(key), f"time_wait_{side}"), 0)
                      for side in ("client", "server"))
    return f"client {client} of its {PORT_COUNT:,} ports, server {server}"


def ports_claim(results):
    def side(blocking_like, async_like):
        breaks, holds = no_port_rate(results, blocking_like), no_port_rate(results, async_like)
        if breaks is None or holds is None:
            return needs(base(blocking_like), base(async_like))
        parts = ((at_least(breaks, NO_FAILURES), f"{blocking_like}'s client did not run out "
                  f"of ports (connects without one: {interval_text(breaks, 4)})"),
                 (at_most(holds, NO_FAILURES), f"{async_like}'s client ran out of ports too "
                  f"(connects without one: {interval_text(holds, 4)})"))

        def evidence(key, interval):
            no_port, complete = (fmt(results.figure(base(key), k), 0)
                                 for k in ("no_port", "complete"))
            return (f"{key} {interval_text(interval, 4)} ({no_port} of {complete} transactions; "
                    f"TIME_WAIT {time_wait_text(results, key)})")
        return judged(f"connects that found no port: {evidence(blocking_like, breaks)}, "
                      f"{evidence(async_like, holds)}",
                      all_of(*(verdict for verdict, _ in parts)), lambda: causes(*parts),
                      breaks, (base(blocking_like), base(async_like)))

    return Claim("E10 PHP runs out of ports",
                 "\"PHP breaks for these long running large number of concurrent requests\" (E4's "
                 "post: 335 failures in 15 minutes of siege -c 500, all \"Cannot assign "
                 "requested address\" on the client), while Node.js does not",
                 f"with {PORT_COUNT:,} client ports, the share of connects that "
                 "found no port (pooled over the blocks, 95 % interval): the blocking side one in "
                 f"{1 / NO_FAILURES:,.0f} or more, the async side under it",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def claims(results):
    return [ports_claim(results)] if keys(results) else []


def section(results):
    keys_ = keys(results)
    if not keys_:
        return ""
    rows = [[results.label(k), fmt(results.figure(base(k), "complete"), 0),
             fmt(results.figure(base(k), "requests_per_s"), 0),
             fmt(results.figure(base(k), "no_port"), 0),
             interval_cell(no_port_rate(results, k), 4),
             fmt(results.figure(base(k), "time_wait_client"), 0),
             fmt(results.figure(base(k), "time_wait_server"), 0)] for k in keys_]
    return "\n".join([
        f"## {TITLE}", "",
        f"`siege -c {USERS} -d {DELAY_S}` against `/json` (a new connection per transaction, "
        "as E4's post ran it) from a network namespace of the client's own with "
        f"{PORT_COUNT:,} ephemeral ports ({PORTS[0]}–{PORTS[1]}) and tcp_tw_reuse 0, the server "
        "on the host's side of a veth pair; a fresh server and namespace per run. siege stops "
        "once more than 1,024 connects have failed (its `failures` limit). The TIME_WAITs are "
        "counted with `ss` on each side right after the run (one lasts 60 s): the side that "
        "closes a connection first holds it. The client's keeps its port; the server's does "
        "not keep the client from using that port again, since the next connect from it takes "
        "the server's TIME_WAIT over, so the server's count stays under the client's ports "
        "however many connections it closed first. Medians over the blocks; the share of "
        "connects without a port pooled over them, with its 95 % interval.", "",
        table(["system", "transactions", "trans/s", "connects without a port", "their share",
               f"TIME_WAIT, client (of {PORT_COUNT:,} ports)", "TIME_WAIT, server"], rows), "",
    ])


def headline(results):
    out = []
    for key, what in (("no_port", "connects without a port"),
                      ("time_wait_client", "TIME_WAIT on the client's side"),
                      ("time_wait_server", "TIME_WAIT on the server's side")):
        out += figures(results, [(f"E10 {k}: {what}", base(k), {}) for k in keys(results)], key,
                       0)
    return out


plots = nothing
pair_rows = nothing
