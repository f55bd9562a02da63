"""The runs of one reproduce.sh results directory, looked up by run id (modelbench.reproduce.plan
names them)."""

import os

SERVERS = ("blocking", "async", "async-cluster")


class Results:
    def __init__(self, directory, runs):
        self.directory = directory
        self.runs = runs
        self.cores = next((r["figures"]["cores"] for r in runs.values()
                           if "cores" in r.get("figures", {})), os.cpu_count() or 1)

    def ok(self, run_id):
        return self.runs.get(run_id, {}).get("status") == "ok"

    def figure(self, run_id, key):
        """A figure of a successful run, or None."""
        if not self.ok(run_id):
            return None
        return self.runs[run_id]["figures"].get(key)

    def cpu(self, run_id, who):
        """'143 % (72 %)': CPU of who (server, db, client) in % of one core and of the machine."""
        core = self.figure(run_id, f"{who}_cpu_pct_core")
        machine = self.figure(run_id, f"{who}_cpu_pct_machine")
        if core is None:
            return "–"
        return f"{core:.0f} % ({machine:.0f} %)"

    def label(self, server):
        if server == "async-cluster":
            return f"async cluster ×{self.cores}"
        return server
