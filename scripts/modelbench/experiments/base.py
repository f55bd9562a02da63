"""What every experiment module shares. An experiment is a module with, in one shape:

  KEY                 'E2': --only, summary.json, run ids (lower-cased) and the report
  TITLE               its report section's heading
  IN_DEFAULT          whether a run without --only includes it (--standard and --full run all)
  plan(ctx)           its runs for ctx.size and the servers of ctx: a list of engine.plan.Part
  section(results)    its report section (Markdown; '' when none of its runs are there)
  claims(results)     the posts' claims it judges (report.verdicts.Claim), [] when none
  plots(results)      its plots (report.plots.Plot)
  headline(results)   its figures for summary.json's headline: report.summary.Figure
  pair_rows(results, model, real)   rows of the "model against the real system" tables"""

from dataclasses import dataclass

from modelbench import systems
from modelbench.engine.plan import Part
from modelbench.report.plots import Line
from modelbench.report.runtable import table_notes
from modelbench.report.summary import Figure
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import NOT_MEASURED, NOT_REPRODUCED, Side

SIZES = ("smoke", "default", "standard", "full")
# The blocks of every part, each experiment's unless it says otherwise, and at most how many more
# a comparison still undecided gets: Student's t below nine blocks, the sign test from nine
# (docs/experiments.md, "How the claims are judged"). A smoke run checks the machinery only.
BLOCKS = {"smoke": 1, "default": 4, "standard": 9, "full": 9}
MORE = {"smoke": 0, "default": 8, "standard": 9, "full": 0}
NO_MORE = dict.fromkeys(SIZES, 0)  # for experiments no verdict reads: their blocks, none added
SWEEP_BLOCKS = {"smoke": 1, "default": 3, "standard": 3, "full": 3}  # E5's and E6's
# "No failed requests" (E2: none of 100,000, and E4's crowds): a rate under one in 5,000, under the
# one in 2,700 E4's post called a break (docs/experiments.md, "How the claims are judged").
NO_FAILURES = 2e-4
# Each side's two systems a claim compares: (the blocking one, the async one).
SIDES = {"real": ("php", "node"), "model": ("blocking", "async")}
POSTS = ("php", "node", "blocking", "async")
# E1's: the posts', and the post's own Node.js of 2016 beside today's.
E1_SYSTEMS = POSTS + ("node4",)
# Every system, for the experiments that ask "what does each do" beyond --smoke's posts' four.
EVERY = tuple(systems.names())
CLUSTERS = {"real": ("node", "node-cluster"), "model": ("async", "async-cluster")}


@dataclass
class Context:
    """What a plan is made for (client: ab or wrk; calibrated: E1a and E1b run calibrated ones)."""

    size: str
    systems: list
    client: str = "ab"
    posts_counts: bool = False
    calibrated: bool = False

    def has(self, name):
        return name in self.systems

    def server(self, name, cluster=False, calibrated=False, own_flags=(), key=None):
        """KEY is name[-cluster][-cal] unless given."""
        key = key or name + ("-cluster" if cluster else "") + ("-cal" if calibrated else "")
        return systems.Server(systems.get(name), key, cluster, calibrated, own_flags)

    def servers(self, names=POSTS, clusters=False, needs=None):
        """The selected ones of names, as servers, with their cluster variants when clusters;
        needs: only systems that have this (an endpoint, or 'standalone')."""
        def fits(s):
            return s.standalone is not None if needs == "standalone" else (
                not needs or needs in s.endpoints)
        return [self.server(s.name, cluster=cluster) for s in systems.ALL
                if s.name in self.systems and s.name in names and fits(s)
                for cluster in ((False, True) if clusters and s.cluster_flags else (False,))]

    def mysql_native(self):
        """[node4 with the mysql-native driver, E1's other driver, which runs on Node.js 4 only]
        when node4 is selected."""
        return [self.server("node4", own_flags=("--driver", "mysql-native"),
                            key="node4-native")] if self.has("node4") else []

    def calibrated_servers(self, clusters=False):
        """The calibrated variant of each selected model whose real system is selected too."""
        return [self.server(s.name, cluster=cluster, calibrated=True) for s in systems.ALL
                if self.calibrated and s.stands_for and self.has(s.name) and self.has(s.stands_for)
                for cluster in ((False, True) if clusters and s.cluster_flags else (False,))]


def part(ctx, groups, blocks=None, more=None):
    """A Part with the size's blocks and more (or the experiment's own, dicts by size)."""
    return Part(groups, (blocks or BLOCKS)[ctx.size], (more or MORE)[ctx.size])


def causes(*parts):
    """The cause of a claim whose criterion has parts: the texts of (verdict, text) that failed."""
    return "; ".join(text for verdict, text in parts if verdict == NOT_REPRODUCED) + "."


def nothing(results, *_):
    """plots, claims or pair_rows of an experiment that has none."""
    return []


def first_records(results):
    """{server key: its first run's record}, in run order."""
    out = {}
    for run in results.runs.values():
        out.setdefault(run.get("server"), run)
    out.pop(None, None)
    return out


def real_system_of(record):
    """(system, the real system the server stands for or is, whether it is a cluster variant);
    system and real system are None for a system not in the list."""
    try:
        system = systems.get(record.get("system"))
    except KeyError:
        return None, None, False
    return system, system.name if system.real else system.stands_for, \
        record.get("variant") == "cluster"


def keys_with(results, *base_of):
    """The server keys, in table order, with a run of any of base_of(key)."""
    return [k for k in server_order(results) if any(results.has(b(k)) for b in base_of)]


def server_order(results):
    """Server keys of the results in table order: each real system, then the models standing for it
    (native, then calibrated); cluster variants after, in the same order; other systems last."""
    real = [s.name for s in systems.ALL if s.real]

    def rank(item):
        key, record = item
        system, real_name, cluster = real_system_of(record)
        if system is None:
            return (2, 0, 0, 0, key)
        return (int(cluster), real.index(real_name) if real_name in real else len(real),
                int(not system.real), int(bool(record.get("calibrated"))), key)
    return [key for key, _ in sorted(first_records(results).items(), key=rank)]


# A colour per real system and its models: the real one solid, a model dashed, a calibrated dotted.
PALETTE = ("#c0392b", "#2471a3", "#1e8449", "#7d3c98", "#d68910", "#00a5b5", "#5d6d7e",
           "#d81b60", "#8d6e63", "#212f3d")


def style(results, key, among=None):
    """(colour, gnuplot dash type) of the lines of a server with runs in the plots; among: the
    servers a plot draws (default: all), whose real systems share the palette out in order."""
    records = first_records(results)

    def family(k):
        # A real server is its own (node4-native beside node4), with its cluster variant.
        system, real_name, cluster = real_system_of(records.get(k, {}))
        own = system is not None and system.real
        return (k.removesuffix("-cluster") if own else real_name or k), cluster
    families = list(dict.fromkeys(family(k) for k in among or server_order(results)))
    system = real_system_of(records[key])[0]
    color = PALETTE[families.index(family(key)) % len(PALETTE)]
    dash = 1 if system is not None and system.real else 3 if records[key].get("calibrated") else 2
    return color, dash


# Each percentile of a response time in every plot: (colour, gnuplot dash type, line width).
PERCENTILE_LOOK = {"p50": ("#2471a3", 1, 2), "mean": ("#7f8c8d", 3, 1.5), "p99": ("#c0392b", 2, 2),
                   "p99.9": ("#7d3c98", 4, 1.5), "max": ("#212f3d", 5, 1)}


def interval_cells(estimate, interval):
    """A plot's cells of an estimate and the low and the high of its Interval (None where there is
    none), for the columns of interval_line."""
    bounded = interval is not None and interval.bounded
    return [estimate, *((interval.low, interval.high) if bounded else (None, None))]


def with_interval(results, base, key):
    """interval_cells of a figure's median over base's blocks and its Interval."""
    return interval_cells(results.figure(base, key), results.interval(base, key))


def interval_columns(column):
    """The columns of a line drawn with its interval (with_interval's cells)."""
    return [column, f"{column}_low", f"{column}_high"]


def interval_line(column, title, color, dash=1, **look):
    """A Line of column with its interval's columns (interval_columns)."""
    return Line(column, title, color, dash, low=f"{column}_low", high=f"{column}_high", **look)


def percentile_line(column, what, **look):
    """The interval_line of a percentile (what: a key of PERCENTILE_LOOK), titled what."""
    color, dash, width = PERCENTILE_LOOK[what]
    return interval_line(column, what, color, dash, width=width, **look)


def run_table(results, heading, bases, rows, labels=None, intro=""):
    """A table of load runs under its heading (and intro), a column per base, notes under it."""
    labels = labels or [results.label(results.record(b)["server"]) for b in bases]
    return ([f"### {heading}", ""] + ([intro, ""] if intro else []) +
            [table(["value"] + labels, rows)] + table_notes(results, bases) + [""])


def not_runnable(results, base):
    """A Side with the cause base's runs recorded when none succeeded; None otherwise."""
    if not results.has(base) or results.ok(base):
        return None
    return Side(f"did not run here: {results.record(base).get('cause', '?')}", NOT_MEASURED)


def ms(value, digits=2):
    return fmt(value, digits, suffix=" ms")


def cpu_per_request(r, base):
    """'server X ms, mariadbd Y ms of CPU per request', medians over the blocks."""
    return (f"server {ms(r.per_request_ms(base, 'server'))}, mariadbd "
            f"{ms(r.per_request_ms(base, 'db'))} of CPU per request")


def machine_split(r, base):
    """How busy the machine was during base and who kept it so."""
    busy, server, db, client = (fmt(r.figure(base, key), 0, suffix=" %") for key in (
        "machine_busy_pct", "server_cpu_pct_core", "db_cpu_pct_core", "client_cpu_pct_core"))
    return f"machine {busy} busy; server {server}, mariadbd {db}, load tool {client} of one core"


def concurrency_point(results, base):
    """The point of a closed loop's runs: their concurrency (None: no run of base)."""
    return {"concurrency": results.record(base).get("concurrency")}


def figures(results, named_bases, key, digits=3, metric=None):
    """summary.json's headline Figure of each measured base's figure key, as metric (key unless
    given); named_bases: (name, base, its point: {Figure's point field: value})."""
    out = []
    for name, base, point in named_bases:
        interval = results.interval(base, key)
        if interval is not None:
            record = results.record(base)
            out.append(Figure(name, record.get("experiment"), record.get("server"), metric or key,
                              interval.estimate, interval, digits=digits, **point))
    return out
