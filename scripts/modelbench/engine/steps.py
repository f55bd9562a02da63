"""steps.tsv: a line per step that failed, as it happens; the verbs count failures from it (a
server's failed stop too, which has no record of its own)."""

import os
from dataclasses import dataclass

FAILED = "failed"


@dataclass(frozen=True)
class Step:
    id: str
    status: str
    cause: str
    log: str = ""


def add(directory, step=None):
    """Appends the step; with none, makes an empty steps.tsv (a run without failures)."""
    with open(os.path.join(directory, "steps.tsv"), "a") as f:
        f.write(f"{step.id}\t{step.status}\t{step.cause}\t{step.log}\n" if step else "")


def read(directory):
    """The steps of a results directory, in the order they happened."""
    path = os.path.join(directory, "steps.tsv")
    with open(path) if os.path.exists(path) else open(os.devnull) as f:
        return [Step(*(line.rstrip("\n").split("\t") + ["", "", ""])[:4]) for line in f]
