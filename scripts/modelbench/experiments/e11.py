"""E11, slow clients (docs/experiments.md asks, reads and gives its first run): slowhttptest's
slow headers (slowloris: a request's headers a line at a time, never ended) and slow read (a
32-KiB /html read through a 64-byte window) with CLIENTS clients, more than the worker-per-
connection systems' 150 workers, against every system, for `seconds`; a probe beside them tells
how often a normal client was not answered within 3 s (engine.loads.slowattack). The
blocking model also runs with --timeout SHORT_TIMEOUT_S beside its default 30 s: the deadline
that bounds how long one slow client holds a worker. A fresh server per run: the workers a run's
slow clients still hold would be the next run's."""

from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments.base import (EVERY, NO_MORE, POSTS, SIDES, SWEEP_BLOCKS, causes,
                                         figures, keys_with, nothing, part)
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import (Claim, all_of, at_least, at_most, interval_text, judged,
                                        needs)

KEY = "E11"
TITLE = "E11 — slow clients"
IN_DEFAULT = False
CLIENTS = 300
PATHS = {"slow-headers": "/hello", "slow-read": "/html"}
SECONDS = {"smoke": 4, "default": 10, "standard": 10, "full": 60}
SHORT_TIMEOUT_S = 5
SHORT = f"blocking-timeout{SHORT_TIMEOUT_S}"
TAKEN = 0.5  # the blocking side unavailable for half the attack or more
KEPT = 0.1  # the async side for a tenth at most


def base(key, mode):
    return f"e11-{key}-{mode}"


def plan(ctx):
    """One part: a fresh group per server and mode (slow read where it serves /html), three
    blocks; every system but with --smoke, which checks the machinery on the posts' four and
    nginx."""
    seconds = SECONDS[ctx.size]
    servers = ctx.servers(POSTS + ("nginx",) if ctx.size == "smoke" else EVERY)
    if ctx.has("blocking"):
        servers.append(ctx.server("blocking", own_flags=("--timeout", str(SHORT_TIMEOUT_S)),
                                  key=SHORT))
    groups = [Group([Run(base(s.key, mode), f"E11 {s.key}: {load.text()}", KEY, s, load,
                         warm=False)], fresh=True)
              for s in servers for mode, path in PATHS.items()
              if path in s.system.endpoints
              for load in (Load(mode, path, CLIENTS, seconds=seconds),)]
    return [part(ctx, groups, SWEEP_BLOCKS, NO_MORE)] if groups else []


def keys(results):
    return keys_with(results, *(lambda k, m=m: base(k, m) for m in PATHS))


def taken_claim(results):
    def side(blocking_like, async_like):
        bases = (base(blocking_like, "slow-headers"), base(async_like, "slow-headers"))
        taken, kept = (results.interval(b, "unavailable_share") for b in bases)
        if taken is None or kept is None:
            return needs(*bases)
        parts = ((at_least(taken, TAKEN), f"{blocking_like} was unavailable for "
                  f"{interval_text(taken)} of the attack, under {TAKEN}"),
                 (at_most(kept, KEPT), f"{async_like} for {interval_text(kept)}, over {KEPT}"))
        return judged(f"the share of the probes unanswered within 3 s: {blocking_like} {interval_text(taken)}, {async_like} "
                      f"{interval_text(kept)}", all_of(*(verdict for verdict, _ in parts)),
                      lambda: causes(*parts), taken, bases)

    return Claim("E11 slow clients take the workers",
                 f"Slow clients (slowloris) hold a thread or process each, so {CLIENTS} of them "
                 "leave a worker-per-connection server nothing for a normal client, while an "
                 "event loop holds them for a few bytes each and keeps answering",
                 f"with {CLIENTS} clients sending headers slowly, the share of a probe's "
                 "requests (one a second) unanswered within 3 s, medians over the "
                 f"blocks with their interval: the blocking side {TAKEN} or more, the async side "
                 f"{KEPT} or less",
                 side(*SIDES["real"]), side(*SIDES["model"]))


def claims(results):
    return [taken_claim(results)] if keys(results) else []


def cell(results, b):
    unanswered, probes = (results.figure(b, k) for k in ("probes_unanswered", "probes"))
    if unanswered is None:
        return "–"
    return (f"{fmt(unanswered, 0)} of {fmt(probes, 0)} (at most "
            f"{fmt(results.figure(b, 'peak_connected'), 0)} connected)")


def ended(results, b):
    """How slowhttptest ended its first block's run ('–': no run)."""
    if not results.has(b):
        return "–"
    return results.record(b).get("figures", {}).get("exit_status", "–")


def section(results):
    keys_ = keys(results)
    if not keys_:
        return ""
    rows = [[results.label(k)] + [cell(results, base(k, mode)) for mode in PATHS] +
            [ended(results, base(k, "slow-headers"))] for k in keys_]
    return "\n".join([
        f"## {TITLE}", "",
        f"slowhttptest with {CLIENTS} slow clients opened at once, kept slow for the run: slow "
        "headers (slowloris: a header line every second, the request never ended) against "
        "`/hello`, slow read (a 64-byte receive window) against `/html`; beside them a probe, "
        "`GET /hello` on a new connection every second, unanswered without a 2xx within 3 s "
        "(slowhttptest's own probe only connects, which a server's listen queue accepts while "
        "no worker is free). "
        "A freshly started server per run; Apache and the blocking model have 150 workers, the "
        f"blocking model's `--timeout` is 30 s, and {SHORT_TIMEOUT_S} s in `{SHORT}`. Medians "
        "over the blocks.", "",
        "The probes unanswered, of those sent:", "",
        table(["system", "slow headers", "slow read", "slow headers: how slowhttptest ended"],
              rows), "",
    ])


def headline(results):
    return figures(results, [(f"E11 {k} {mode}: share of the attack unavailable",
                              base(k, mode), {"concurrency": CLIENTS})
                             for k in keys(results) for mode in PATHS],
                   "unavailable_share", 3)


plots = nothing
pair_rows = nothing
