"""What a scenario showed on a server (figures and checks), and the servers side by side."""

from dataclasses import dataclass, field

from modelbench.report import tables


def mib(kib):
    return tables.fmt(kib / 1024, 1)


@dataclass
class Outcome:
    """Figures in the order they were measured, and checks: (criterion, holds, evidence)."""

    scenario: str
    model: str
    figures: list = field(default_factory=list)
    checks: list = field(default_factory=list)

    def figure(self, label, text):
        self.figures.append((label, str(text)))

    def check(self, criterion, holds, evidence=""):
        self.checks.append((criterion, bool(holds), evidence))
        mark = "holds" if holds else "DOES NOT HOLD"
        print(f"    {mark}: {criterion}" + (f" ({evidence})" if evidence else ""), flush=True)

    def as_dict(self):
        return {"scenario": self.scenario, "server": self.model,
                "holds": all(holds for _, holds, _ in self.checks), "figures": dict(self.figures),
                "checks": [{"criterion": c, "holds": h, "evidence": e} for c, h, e in self.checks]}


def _ordered_union(lists):
    return list(dict.fromkeys(item for items in lists for item in items))


def _check_cell(outcome, criterion):
    """'yes', '**NO**: evidence', or '–' when the server had no such check."""
    for c, holds, evidence in outcome.checks:
        if c == criterion:
            return "yes" if holds else "**NO**" + (f": {evidence}" if evidence else "")
    return "–"


def table(outcomes):
    """A scenario's Markdown table: a row per figure, then per check, a column per server."""
    rows = [[label] + [dict(o.figures).get(label, "–") for o in outcomes]
            for label in _ordered_union([label for label, _ in o.figures] for o in outcomes)]
    rows += [[f"**holds:** {criterion}"] + [_check_cell(o, criterion) for o in outcomes]
             for criterion in _ordered_union([c for c, _, _ in o.checks] for o in outcomes)]
    return tables.table([""] + [o.model for o in outcomes], rows)
