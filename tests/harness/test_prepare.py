"""What each system needs prepared: `serve.sh async` readies the build and MariaDB and installs
neither Apache, PHP nor Node.js; php and node need no C++ build."""

import os
import subprocess

import pytest
from conftest import ROOT

from modelbench import prepare, systems
from modelbench.__main__ import main

REAL_SYSTEMS_PACKAGES = {"apache2", "libapache2-mod-php", "php-mysql", "nodejs", "npm"}


def packages(*groups):
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "deps.sh"), "--packages",
                          *groups], capture_output=True, text=True, check=True).stdout
    return set(out.split())


@pytest.mark.parametrize("name, wanted, unwanted", [
    ("async", {"build", "db"}, {"php", "node"}),
    ("blocking", {"build", "db"}, {"php", "node"}),
    ("php", {"php", "db"}, {"build", "node"}),
    ("node", {"node", "db"}, {"build", "php"}),
    ("node4", {"node4", "db"}, {"build", "php", "node"}),
])
def test_serve_readies_only_what_the_system_needs(name, wanted, unwanted, monkeypatch):
    asked = []

    def ready(checkout, needs, build_targets=(), log_dir=None):
        asked.append(set(needs))
        raise prepare.PrepareError("stop here")
    monkeypatch.setattr(prepare, "ready", ready)
    assert main(["serve", name]) == 1
    assert asked == [wanted]
    assert not wanted & unwanted
    groups = [*asked[0], "tools"]
    if "php" not in groups and "node" not in groups:
        assert not packages(*groups) & REAL_SYSTEMS_PACKAGES


def test_a_remote_database_needs_no_private_one(monkeypatch):
    asked = []
    monkeypatch.setattr(prepare, "ready", lambda checkout, needs, *a, **k:
                        asked.append(set(needs)) or (_ for _ in ()).throw(
                            prepare.PrepareError("stop")))
    assert main(["serve", "async", "--db-host", "10.0.0.3"]) == 1
    assert asked == [{"build"}]


def test_every_system_needs_what_deps_knows():
    for system in systems.ALL:
        for need in system.needs:
            known = subprocess.run(["bash", os.path.join(ROOT, "scripts", "deps.sh"),
                                    "--packages", need], capture_output=True)
            assert known.returncode == 0, f"{system.name} needs '{need}', deps.sh has no such group"
    unknown = subprocess.run(["bash", os.path.join(ROOT, "scripts", "deps.sh"), "--packages",
                              "nonsense"], capture_output=True)
    assert unknown.returncode == 2
