"""The reference runs committed in docs/reference/<size>/ (docs/results.md, "The reference
runs"): the summary.json, results.csv and plots of one dated run of that size. README's section
on the results of a run is written from one of them (`scripts/reproduce.sh --readme DIR`), and is
byte for byte what lies between its marks; `--compare DIR` compares a run with the reference of
its size. Everything here reads summary.json's records by their fields, never by their names."""

import math
import os
import re
import textwrap

from modelbench.checkout import ROOT
from modelbench.engine.loads.base import utc_time
from modelbench.experiments import e1b, node4
from modelbench.report import summary
from modelbench.report.overview import verdict_cell
from modelbench.report.statistics import Interval, Speed
from modelbench.report.tables import interval_cell, table
from modelbench.report.verdicts import Side

FOLDER = os.path.join("docs", "reference")
DEFAULT = "default"
README = "README.md"
BEGIN = "<!-- From here to the end mark: scripts/reproduce.sh --readme DIR; not by hand. -->"
END = "<!-- The end of what scripts/reproduce.sh --readme writes. -->"
# The claims on E1b's table that the section gives with their statistics (summary.json's keys),
# each a ratio within each block.
CLAIMS = ("E1b PHP faster", "E1b flat: Apache+PHP", "E1b flat: Node.js",
          "E1b PHP faster (Node.js 4)", "E1b mysql-native", "E1a mysql-native")
WIDTH = 100
NO_BREAK = "\0"  # a code span's spaces while its paragraph is wrapped


class ReadmeError(Exception):
    """README has no section to rewrite, or the reference is not in the checkout."""


def directory(size=DEFAULT, root=ROOT):
    """The reference run of that size, the default one where none of that size is committed."""
    own = os.path.join(root, FOLDER, size)
    return own if os.path.exists(os.path.join(own, "summary.json")) else \
        os.path.join(root, FOLDER, DEFAULT)


def interval_of(record):
    """An Interval from summary.json's record of one (a null bound: unbounded)."""
    speed = record.get("speed")
    return Interval(
        record["estimate"], -math.inf if record["low"] is None else record["low"],
        math.inf if record["high"] is None else record["high"], record["level"], record["n"],
        record["method"], record["unit"], record.get("events"),
        speed and Speed(speed["kendall_tau"], speed["p"], speed["faster_half"],
                        speed["slower_half"]),
        record.get("left_out", 0))


def side_of(record):
    """A claim's side from summary.json's record of it."""
    statistic = record["statistic"]
    return Side(record["evidence"], record["verdict"], record["cause"],
                statistic and interval_of(statistic), tuple(record["runs"]))


def paragraph(text):
    """Text wrapped as README's, never within a code span (a command shown stays on one line)."""
    kept = re.sub(r"`[^`]*`", lambda code: code.group().replace(" ", NO_BREAK), text)
    return textwrap.fill(kept, WIDTH, break_long_words=False,
                         break_on_hyphens=False).replace(NO_BREAK, " ")


def figures(run, experiment, metric):
    return [f for f in run["headline"] if f["experiment"] == experiment and f["metric"] == metric]


def rate_table(run):
    """E1b's requests/s, a row per system in summary.json's order, a column per -c."""
    rates = figures(run, e1b.KEY, "requests_per_s")
    cells = {(f["system"], f["concurrency"]): interval_of(f["interval"]) for f in rates}
    points = sorted({f["concurrency"] for f in rates})
    rows = [[f"`{system}`"] + [cell(cells.get((system, c))) for c in points]
            for system in dict.fromkeys(f["system"] for f in rates)]
    return table(["E1b, /html requests/s"] + [f"-c {c}" for c in points], rows), cells.values()


def cell(interval):
    return "–" if interval is None else f"{interval_cell(interval, digits=0)}, {interval.n}"


def claims_table(run):
    claims = {c["key"]: c for c in run["claims"]}
    rows = []
    for key in (key for key in CLAIMS if key in claims):
        sides = [side_of(claims[key][name]) for name in ("real", "models")]
        rows.append([key, claims[key]["criterion"]] + [
            verdict_cell(side) + ("" if side.statistic is None else
                                  f" {side.statistic.text(2, '×')}")
            for side in sides])
    return table(["claim", "criterion", "real systems", "models"], rows)


def post_rates():
    return "; ".join(f"{e1b.POST['php'][c].requests_per_s} and {e1b.POST['node'][c].requests_per_s}"
                     f" at `-c {c}`" for c in sorted(e1b.POST["php"]))


def gaps_sentence(run):
    """php over each Node.js of node4's headline, and the share of the post's gap explained."""
    gaps = {f["against"]: f for f in figures(run, e1b.KEY, "requests_per_s_ratio")
            if f["system"] == "php" and f["concurrency"] == 20}
    if node4.POST not in gaps:
        return ""
    parts = [f"php ÷ `{node}` ({what}) {interval_of(gaps[node]['interval']).text(2, '×')}"
             for node, what in node4.NODES if node in gaps]
    text = ("E1's own Node.js, that of the post's year beside today's, at `-c 20`: " +
            "; ".join(parts) + ".")
    if node4.TODAY in gaps:
        share = node4.explained(gaps[node4.TODAY]["value"], gaps[node4.POST]["value"])
        if share is not None:
            text += (f" The runtime and driver of 2016 explain {100 * share:.0f} % of the way, on "
                     f"a log scale, from today's gap to the post's ×{e1b.POST_GAP[20]:.1f}.")
    return text


def section(reference, root=ROOT):
    """README's section on the reference run in `reference` (a directory of the checkout at
    root), its marks included."""
    run = summary.load(reference)
    where = os.path.relpath(os.path.abspath(reference), root)
    if where.startswith(os.pardir):
        raise ReadmeError(f"{reference} is not in the checkout ({root}): README links to its "
                          "files")
    started = utc_time(run["run"]["started"])
    machine, size = run["machine"], run["run"]["size"]
    table_, intervals = rate_table(run)
    levels = " or ".join(f"{100 * level:g} %" for level in sorted({i.level for i in intervals}))
    methods = " or ".join(sorted({i.method for i in intervals}))
    plots = sorted(name for name in os.listdir(reference) if name.endswith(".png"))
    return "\n".join([
        BEGIN,
        f"## Results of a {size} run ({started:%Y-%m-%d}, {machine['cores']} cores)", "",
        paragraph(
            f"The reference run of size `{size}`, [{where}/]({where}/) (its `summary.json`, "
            f"`results.csv` and plots): `{run['run']['command']}` started {started:%Y-%m-%d} at "
            f"{started:%H:%M} UTC on {machine['cores']} cores ({machine['machine']}, "
            f"{machine['memory_gib']} GiB, Linux {machine['kernel']}), "
            f"{run['run']['runs']} runs in {run['run']['run_s'] / 60:.1f} minutes. Every figure "
            "below is read from its `summary.json`; `scripts/reproduce.sh --compare DIR` compares "
            "a run of yours with it ([docs/results.md](docs/results.md#the-reference-runs))."), "",
        paragraph(
            "E1b's servers were up together, the models in one part and the real systems with "
            "the calibrated models in another, each block running every server of its part at "
            f"each `-c`, the runs seconds apart. Each cell is the estimate over the blocks "
            f"({methods}), its {levels} interval and the blocks it rests on (the calibrated models "
            f"join at block {e1b.JOINS}; a comparison still undecided gets more blocks; –: not "
            "run, as the clusters' `-c 1` in a default run). `php` is Apache with mod_php, "
            "`node` Node.js 20, `node4` and `node4-native` Node.js 4 with the drivers of 2016, "
            "`-cal` a model given its real system's CPU per request, a cluster a worker per "
            f"core. E1b, requests/s of `/html` (the post, Apache+PHP and Node.js: {post_rates()};"
            f" {e1b.POST_MACHINE}):"), "",
        table_, "",
        paragraph(
            "A verdict rests on a ratio taken within each block, not on these columns; the "
            "claims that bear on this table, each side's verdict and the statistic it rests on "
            "(every claim: `claims` in the `summary.json`):"), "",
        claims_table(run), "",
        *([paragraph(text), ""] if (text := gaps_sentence(run)) else []),
        paragraph(
            "Its plots: " + ", ".join(f"[{name}]({where}/{name})" for name in plots) +
            " (what each shows: [docs/results.md](docs/results.md#the-plots)). Every other "
            "figure, each with its interval, level and n, is in its `summary.json`, and in the "
            "`report.md` of a run of yours; how the statistics and the verdicts are made: "
            "[docs/experiments.md](docs/experiments.md#how-the-claims-are-judged)."),
        END,
    ]) + "\n"


def written_section(text):
    """README's text from BEGIN to the end of END's line, or None when it has no such section."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return None
    return text[start:end + len(END) + 1]


def rewrite(reference, readme=None, root=ROOT):
    """Rewrites README's section from the reference run: whether it changed."""
    readme = readme or os.path.join(root, README)
    with open(readme) as f:
        text = f.read()
    old = written_section(text)
    if old is None:
        raise ReadmeError(f"{readme} has no section between the marks '{BEGIN}' and '{END}'")
    new = section(reference, root)
    if new != old:
        with open(readme, "w") as f:
            f.write(text.replace(old, new, 1))
    return new != old
