"""Results made up for the tests: records as the engine writes them, with the figures a test
sets, so that a verdict rule can be driven to each side of its criterion."""

from modelbench.report.results import Results

SYSTEMS = {"php": ("php", "single"), "node": ("node", "single"), "blocking": ("blocking", "single"),
           "async": ("async", "single"), "node-cluster": ("node", "cluster"),
           "async-cluster": ("async", "cluster"), "blocking-cal": ("blocking", "single"),
           "async-cal": ("async", "single")}


def record(base, block, server, figures, **meta):
    system, variant = SYSTEMS.get(server, (server, "single"))
    return {"id": f"{base}-b{block}", "base": base, "block": block, "server": server,
            "label": server, "system": system, "variant": variant, "status": "ok",
            "started": f"{block:03d}{base}", "figures": dict(figures), **meta}


def results(*records, directory="/nonexistent"):
    return Results(directory, {r["id"]: r for r in records})


def blocks(base, server, *figures_per_block, **meta):
    """A record per block of base, the figures of each block given in order."""
    return [record(base, i, server, figures, **meta)
            for i, figures in enumerate(figures_per_block, 1)]
