"""The harness's own tests (pytest): scripts/ on the import path, and where the recorded tool
outputs are."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def data(name):
    """The text of a recorded output in data/."""
    with open(os.path.join(HERE, "data", name), errors="replace") as f:
        return f.read()
