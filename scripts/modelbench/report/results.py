"""The runs of one results directory, looked up by their base id (the run id less its round):
a figure's value in each round, its median and range over the rounds, and values paired round
by round for ratios between runs."""

import glob
import json
import os
import pathlib

from modelbench.report.verdicts import RATIO_NOISE, Spread, median, ratio


def load_runs(directory):
    """{run id: record} of a results directory's runs/*.json, in the order they started."""
    runs = [json.loads(pathlib.Path(path).read_text())
            for path in glob.glob(os.path.join(directory, "runs", "*.json"))]
    return {run["id"]: run for run in sorted(runs, key=lambda r: r.get("started", ""))}


def client_text(record):
    """The load of a run as a heading says it: `ab -r -c C -t T`, `-n N`, or wrk's."""
    c = record.get("concurrency")
    if record.get("tool") == "wrk":
        return (f"`wrk -c {c} -d {record.get('seconds'):g}s` (keep-alive, a thread per core; "
                "`--client wrk`)")
    if record.get("cut"):
        return f"`ab -r -c {c} -t {record['seconds']:g} -n {record.get('requests')}`"
    if record.get("seconds"):
        return (f"`ab -r -c {c}` for about {record['seconds']:g} s (its `-n` from the warm-up's "
                "rate)")
    return f"`ab -r -c {c} -n {record.get('requests')}`"


class Results:
    def __init__(self, directory, runs):
        self.directory = directory
        self.runs = runs
        self.by_base = {}
        for run in runs.values():
            self.by_base.setdefault(run.get("base", run["id"]), {})[run.get("round", 1)] = run
        self.cores = next((r["figures"]["cores"] for r in runs.values()
                           if "cores" in r.get("figures", {})), os.cpu_count() or 1)

    def has(self, base):
        """Whether the plan ran base at all (successfully or not)."""
        return base in self.by_base

    def rounds(self, base):
        """{round: record} of base's successful runs."""
        return {r: run for r, run in sorted(self.by_base.get(base, {}).items())
                if run.get("status") == "ok"}

    def ok(self, base):
        return bool(self.rounds(base))

    def record(self, base):
        """A record of base to describe it by (its first successful run, else any), or {}."""
        runs = self.by_base.get(base, {})
        return next(iter(self.rounds(base).values()), next(iter(runs.values()), {}))

    def at(self, base, round_, key):
        """A figure of base's run in that round, or None."""
        run = self.rounds(base).get(round_)
        return None if run is None else run["figures"].get(key)

    def values(self, base, key):
        """The figure in every successful round, in round order (None where it is missing)."""
        return [run["figures"].get(key) for run in self.rounds(base).values()]

    def figure(self, base, key):
        """The median of the figure over the rounds, or None."""
        return median(self.values(base, key))

    def spread(self, base, key):
        return Spread.of(self.values(base, key))

    def per_round(self, bases, key, combine):
        """combine(value of each base) in every round where all of them have the figure: a
        figure compared within a round (the runs of one round ran close together)."""
        out = []
        for round_ in sorted(set.intersection(*(set(self.rounds(b)) for b in bases))):
            values = [self.at(b, round_, key) for b in bases]
            if None not in values:
                out.append(combine(*values))
        return out

    def paired(self, bases, key, combine):
        """The Spread of per_round(...), or None."""
        return Spread.of(self.per_round(bases, key, combine))

    def ratio(self, bases, key):
        """The first base's figure over the second's, round by round, ±RATIO_NOISE; or None."""
        return Spread.of(self.per_round(bases, key, ratio), RATIO_NOISE)

    def per_request_ms_values(self, base, who):
        """who's (server, db, client) CPU per request (per iteration of a standalone run) in ms,
        in every successful round."""
        out = []
        for run in self.rounds(base).values():
            f = run["figures"]
            units = f.get("complete") or f.get("iterations")
            if f.get(f"{who}_cpu_s") is not None and units:
                out.append(1000 * f[f"{who}_cpu_s"] / units)
        return out

    def per_request_ms(self, base, who):
        """The median of per_request_ms_values, or None."""
        return median(self.per_request_ms_values(base, who))

    def cpu(self, base, who):
        """'143 % (72 %)': median CPU of who (server, db, client) in % of one core and of the
        machine."""
        core = self.figure(base, f"{who}_cpu_pct_core")
        machine = self.figure(base, f"{who}_cpu_pct_machine")
        return "–" if core is None else f"{core:.0f} % ({machine:.0f} %)"

    def label(self, key):
        """A server's name in tables, as its runs recorded it ('node cluster ×2')."""
        for run in self.runs.values():
            if run.get("server") == key and run.get("label"):
                return run["label"]
        return key

    def status(self, base):
        """The /status documents the server gave after base's first successful run ([] when
        none were kept)."""
        for run in self.rounds(base).values():
            try:
                with open(os.path.join(self.directory, "raw", f"{run['id']}.status.json")) as f:
                    return json.load(f)
            except (OSError, ValueError):
                continue
        return []
