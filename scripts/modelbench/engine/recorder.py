"""Runs recorded in a results directory: tools' output in raw/ID.*, each run's record (what ran,
its figures, or why it failed) in runs/ID.json, which every report is built from."""

import json
import os

from modelbench.engine import measure
from modelbench.engine.loads import ParseError, StepFailed
from modelbench.engine.loads.base import Attempt, utc_now


class Recorder:
    """Runs loads into a results directory's runs/ and raw/; db_pid: mariadbd, sampled too."""

    def __init__(self, directory, checkout, db_pid=None, log=print):
        self.directory = directory
        self.checkout = checkout
        self.db_pid = db_pid
        self.log = log
        for sub in ("runs", "raw"):
            os.makedirs(os.path.join(directory, sub), exist_ok=True)

    def raw(self, run_id, suffix):
        return os.path.join(self.directory, "raw", f"{run_id}.{suffix}")

    def record(self, run_id, meta, load, body):
        """Runs body(record) and writes the record: ok, or failed with the cause."""
        record = {"id": run_id, "variant": "single", "endpoint": load.path, **meta,
                  "tool": load.tool, "concurrency": load.c, "started": utc_now().isoformat()}
        try:
            body(record)
            record["status"] = "ok"
            self.log(f"    {load.kind.summary(record['figures'])}")
        except (StepFailed, ParseError, measure.MeasureError, OSError) as error:
            record.update(status="failed", cause=str(error))
        with open(os.path.join(self.directory, "runs", f"{run_id}.json"), "w") as f:
            json.dump(record, f, indent=1)
        return record

    def failed(self, run_id, meta, load, cause):
        """A run that could not take place (its server did not start, its warm-up failed)."""
        def body(record):
            raise StepFailed(cause)
        return self.record(run_id, meta, load, body)

    def measure(self, run_id, meta, target, load, rate=None, server=None, flags=()):
        """One measured run's record; rate: see loads.base.Attempt."""
        return self.record(run_id, meta, load, lambda record: load.kind.run(
            Attempt(self, record, load, target, server, flags, rate)))
