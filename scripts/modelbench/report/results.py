"""The runs of one results directory by base id (the run id less its block): a figure in each
block, its median, its Interval or a ratio's taken within each block, rates pooled over runs."""

import glob
import json
import os
import pathlib

from modelbench.engine import loads
from modelbench.report import statistics
from modelbench.report.statistics import median
from modelbench.report.verdicts import ratio


def load_runs(directory):
    """{run id: record} of a results directory's runs/*.json, in the order they started."""
    runs = [json.loads(pathlib.Path(path).read_text())
            for path in glob.glob(os.path.join(directory, "runs", "*.json"))]
    return {run["id"]: run for run in sorted(runs, key=lambda r: r.get("started", ""))}


def client_text(record):
    """The load of a run as a heading says it (its tool's heading)."""
    return loads.ALL[record["tool"]].heading(record)


# Two runs of a block whose shares of CFS periods a CPU quota held back are more than this many
# points apart did not meet the same host: their ratio is left out (and said so). Measured:
# docs/experiments.md, "Host speed as an observation".
HOST_CHANGED = 25


def reader(key):
    """key when it is a reader (a callable of a run's figures), else a reader of the figure key."""
    return key if callable(key) else lambda figures: figures.get(key)


def per_request_ms(who):
    """A reader of who's (server, db, client) CPU ms per request (standalone: per iteration)."""
    def read(figures):
        units = figures.get("complete") or figures.get("iterations")
        cpu = figures.get(f"{who}_cpu_s")
        return 1000 * cpu / units if cpu is not None and units else None
    return read


def probe(record):
    """The host's speed when a run was made: the mean of its probes before and after (ms)."""
    figures = record.get("figures", {})
    found = [figures.get(k) for k in ("probe_before_ms", "probe_after_ms") if figures.get(k)]
    return sum(found) / len(found) if found else None


def host_changed(runs):
    """Whether a CPU quota held back some of these runs of one block and not others."""
    shares = [s for run in runs if (s := run["figures"].get("throttled_pct")) is not None]
    return bool(shares) and max(shares) - min(shares) > HOST_CHANGED


class Results:
    def __init__(self, directory, runs):
        self.directory = directory
        self.runs = runs
        self.by_base = {}
        for run in runs.values():
            self.by_base.setdefault(run.get("base", run["id"]), {})[run.get("block", 1)] = run
        self.cores = next((r["figures"]["cores"] for r in runs.values()
                           if "cores" in r.get("figures", {})), os.cpu_count() or 1)

    def has(self, base):
        """Whether the plan ran base at all (successfully or not)."""
        return base in self.by_base

    def blocks(self, base):
        """{block: record} of base's successful runs."""
        return {b: run for b, run in sorted(self.by_base.get(base, {}).items())
                if run.get("status") == "ok"}

    def ok(self, base):
        return bool(self.blocks(base))

    def stand_ins(self, key_for):
        """These results with some servers' runs under another server's key, so that the claims
        judge them in its place (the calibrated models, node4): key_for(run) is the key a run
        goes under, None to leave it out; and {base in them: the stand-in run's own base}."""
        runs, own = {}, {}
        for run_id, run in self.runs.items():
            server, key = run.get("server"), key_for(run)
            if key is None:
                continue
            if key != server:
                own_base = run.get("base", run_id)
                run = dict(run, server=key, id=run_id.replace(f"-{server}-", f"-{key}-"),
                           base=own_base.replace(f"-{server}", f"-{key}"))
                own[run["base"]] = own_base
            runs[run["id"]] = run
        return Results(self.directory, runs), own

    def record(self, base):
        """A record of base to describe it by (its first successful run, else any), or {}."""
        runs = self.by_base.get(base, {})
        return next(iter(self.blocks(base).values()), next(iter(runs.values()), {}))

    def at(self, base, block, key):
        """A figure of base's run in that block, or None."""
        run = self.blocks(base).get(block)
        return None if run is None else run["figures"].get(key)

    def values(self, base, key):
        """The figure (key: a name or a reader) in every successful block, None where missing."""
        return [reader(key)(run["figures"]) for run in self.blocks(base).values()]

    def figure(self, base, key):
        """The median of the figure over the blocks, or None."""
        return median(self.values(base, key))

    def interval(self, base, key):
        """The Interval of a figure over base's blocks, or None."""
        return statistics.of_blocks(self.values(base, key),
                                    probes=[probe(run) for run in self.blocks(base).values()])

    def per_block(self, bases, key, combine):
        """combine(value of each base) in every block where all of them have the figure."""
        return [v for v, _ in self._per_block(bases, key, combine)[0]]

    def _per_block(self, bases, key, combine):
        """([(combined value, the block's mean probe)], blocks left out: a quota changed)."""
        out, left_out = [], 0
        for block in sorted(set.intersection(*(set(self.blocks(b)) for b in bases))):
            runs = [self.blocks(b)[block] for b in bases]
            values = [reader(key)(run["figures"]) for run in runs]
            if None in values:
                continue
            if host_changed(runs):
                left_out += 1
                continue
            known = [p for p in map(probe, runs) if p is not None]
            out.append((combine(*values), sum(known) / len(known) if known else None))
        return out, left_out

    def paired(self, bases, key, combine):
        """The Interval of per_block(...), or None."""
        pairs, left_out = self._per_block(bases, key, combine)
        return statistics.of_blocks([v for v, _ in pairs], probes=[p for _, p in pairs],
                                    left_out=left_out)

    def ratio(self, bases, key):
        """The Interval of the first base's figure over the second's, block by block, or None."""
        return self.paired(bases, key, ratio)

    def rate(self, bases, events, trials="complete"):
        """The Interval of events over trials (figure names or callables(figures) -> count),
        pooled over every successful run of the bases; None without trials."""
        figures = [run["figures"] for base in bases for run in self.blocks(base).values()]
        return statistics.rate(*(sum(reader(what)(f) or 0 for f in figures)
                                 for what in (events, trials)))

    def per_request_ms(self, base, who):
        """The median of who's CPU per request (per_request_ms(who)), or None."""
        return self.figure(base, per_request_ms(who))

    def per_request_ratio(self, bases, who="server"):
        """The first base's CPU per request over the second's, block by block: an Interval."""
        return self.ratio(bases, per_request_ms(who))

    def cpu(self, base, who):
        """'143 % (72 %)': who's median CPU in % of one core (and of the machine)."""
        core = self.figure(base, f"{who}_cpu_pct_core")
        machine = self.figure(base, f"{who}_cpu_pct_machine")
        return "–" if core is None else f"{core:.0f} % ({machine:.0f} %)"

    def label(self, key):
        """A server's name in tables, as its runs recorded it ('node cluster ×2')."""
        return next((run["label"] for run in self.runs.values()
                     if run.get("server") == key and run.get("label")), key)

    def status(self, base):
        """The /status documents after base's first successful run that kept them, else []."""
        for run in self.blocks(base).values():
            try:
                with open(os.path.join(self.directory, "raw", f"{run['id']}.status.json")) as f:
                    return json.load(f)
            except (OSError, ValueError):
                continue
        return []
