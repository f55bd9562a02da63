"""The opening of report.md, the answer before the detail: the run in a few words, every claim's
verdicts with the statistic each rests on, and what each experiment found, all of it from the
claims and the headline figures (summary.json's). Its links to sections are the anchors GitHub
and report.html (report.html_page) give their headings."""

import re

from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import INCONCLUSIVE, VERDICTS

SIDES = (("Real systems", "real"), ("Models", "model"))


def run_line(results, settings, failures):
    """When, how large, how long and on what the run was, and what to beware of."""
    minutes = fmt(settings["run_s"] / 60, 1) if "run_s" in settings else "?"
    line = (f"Run of {settings.get('started', '?')} UTC, size `{settings.get('size', '?')}`: "
            f"{len(results.runs)} runs in {minutes} minutes on {results.cores} cores, which the "
            "load tool, the servers and mariadbd share: compare the systems within this run, not "
            "with the posts' absolute figures. The command, the machine and the versions: "
            "[Environment](#environment) at the end.")
    if settings.get("remote"):
        line += " Some servers ran elsewhere: [Remote targets](#remote-targets)."
    if failures:
        line += f" **{failures} step(s) failed**: [Steps that failed](#steps-that-failed)."
    return line


def verdict_cell(side):
    """The verdict, and for an inconclusive one whose statistic moved with the host's speed, so."""
    moved = side.verdict == INCONCLUSIVE and side.speed_note
    return f"**{side.verdict}**" + (" (depends on the host's speed)" if moved else "")


def statistic_cell(side):
    """The statistic as the side's evidence writes it (its digits, × or unit), so that the two
    read alike; plainly when the evidence writes it otherwise; '–' without one."""
    interval = side.statistic
    if interval is None:
        return "–"
    forms = (interval.text(digits, prefix, suffix) for digits in range(4)
             for prefix in ("×", "") for suffix in ("", " %", " ms"))
    # A whole number of the evidence's, not the end of one ('2 [1 block' in '×1.92 [1 block').
    return next((form for form in forms
                 if re.search(r"(?<![\d.,×])" + re.escape(form), side.evidence)),
                interval.text())


def section_verdicts(claims):
    if not claims:
        return ""
    return "\n".join([
        "## Verdicts", "",
        "Each claim of the posts, judged on this machine for the real systems and for the C++ "
        "models that stand for them, on the interval of the statistic beside it: **reproduced** "
        "when the interval meets the claim's criterion, **not reproduced** when none of it "
        "does, **inconclusive** when it straddles a bound. The criteria, the evidence and the "
        "measured causes: [Findings](#findings).", "",
        f"Of the {len(claims)} claims, " + "; ".join(
            f"{name.lower()}: **{tally(claims, side)}**" for name, side in SIDES) + ".", "",
        table(["claim", "real systems", "their statistic", "models", "their statistic"],
              [[c.key, verdict_cell(c.real), statistic_cell(c.real), verdict_cell(c.model),
                statistic_cell(c.model)] for c in claims]), "",
    ])


def short_key(key, experiment_key):
    """A claim's key without its experiment's, which the paragraph's heading gives."""
    return key.removeprefix(f"{experiment_key} ")


def tally(claims, side, experiment_key=None):
    """'reproduced 2 (*a*, *b*), inconclusive 1 (*c*)' of one side of the claims; only the
    counts without an experiment_key."""
    parts = []
    for verdict in VERDICTS:
        keys = [c.key for c in claims if getattr(c, side).verdict == verdict]
        if keys:
            names = ", ".join(f"*{short_key(key, experiment_key)}*" for key in keys)
            parts.append(f"{verdict} {len(keys)}" + (f" ({names})" if experiment_key else ""))
    return ", ".join(parts)


def headline_text(results, headline, experiment_key):
    """The headline figures, each figure that several servers have as its lowest and highest
    ('-c 20 requests/s from 338.5 (node4) to 2,330.6 (async)'), the others as they are named
    ('E1b php ÷ node -c 20 = 1.431')."""
    servers = {run.get("server") for run in results.runs.values()}
    groups = {}
    for figure in headline:
        if figure.value is None:
            continue
        who, _, what = short_key(figure.name, experiment_key).partition(" ")
        if who in servers and what:
            groups.setdefault(what, []).append((figure.value, results.label(who)))
        else:
            groups[short_key(figure.name, experiment_key)] = [(figure.value, "")]
    parts = []
    for what, values in groups.items():
        if len(values) == 1:
            value, who = values[0]
            parts.append(f"{who} {what} = {value:,g}".lstrip())
        else:
            (low, lowest), (high, highest) = min(values), max(values)
            parts.append(f"{what} from {low:,g} ({lowest}) to {high:,g} ({highest})")
    return "; ".join(parts)


def finding(results, experiment, claims):
    """An experiment's paragraph: its verdicts by side, its headline figures."""
    sentences = [f"{name}: {tally(claims, side, experiment.KEY)}" for name, side in SIDES] \
        if claims else ["No claim of the posts is judged on it"]
    figures = headline_text(results, experiment.headline(results), experiment.KEY)
    if figures:
        sentences.append(f"Its headline figures: {figures}")
    return f"**{experiment.TITLE}.** " + ". ".join(sentences) + "."


def section_found(results, judged):
    """What each experiment that ran found; judged: (experiment, its claims) of each."""
    if not judged:
        return ""
    return "\n".join(["## What each experiment found", ""] + [
        line for experiment, claims in judged
        for line in (finding(results, experiment, claims), "")])
