"""The harness's own tests (pytest): scripts/ on the import path, and where the recorded tool
outputs are."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def data(name):
    """The text of a recorded output in data/."""
    with open(os.path.join(HERE, "data", name), errors="replace") as f:
        return f.read()


def listed(*command):
    """A command's stdout, as `ip netns list` lists the namespaces."""
    return subprocess.run(command, capture_output=True, text=True).stdout


# A test that makes network namespaces.
root = pytest.mark.skipif(os.geteuid() != 0 or subprocess.run(
    ["ip", "netns", "list"], capture_output=True).returncode != 0,
    reason="network namespaces need root and iproute2")
