"""scripts/lib/netns.sh, the network tests' namespace (engine.netns's command line): its usage
errors everywhere; where this runs as root, a namespace made for real with the command's exit
status passed on and nothing of it left after, also when the command is interrupted."""

import os
import signal
import subprocess
import time

import pytest
from conftest import listed, root

from modelbench.checkout import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "lib", "netns.sh")


def netns(*args, env=None):
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, **(env or {})))


@pytest.mark.parametrize("args", [(), ("with",), ("exec",), ("check", "x"), ("run", "true")])
def test_bad_usage_exits_2_with_the_usage(args):
    out = netns(*args)
    assert out.returncode == 2 and "Usage: scripts/lib/netns.sh" in out.stderr


def test_help_and_a_bad_subnet():
    assert "NETNS_SUBNET" in netns("--help").stdout
    out = netns("exec", "true", env={"NETNS_SUBNET": "10.256"})
    assert out.returncode == 2 and "is not 10.X" in out.stderr


@root
def test_a_command_inside_and_beside_then_nothing_left():
    inside = netns("exec", "ip", "-4", "-o", "addr", "show")
    assert inside.returncode == 0 and " 10.77." in inside.stdout and ".2/24" in inside.stdout
    beside = netns("with", "sh", "-c", 'echo "$NETNS_NAME $NETNS_HOST_ADDR $NETNS_NS_ADDR"; exit 3')
    assert beside.returncode == 3
    name, host, ns = beside.stdout.split()
    assert host.startswith("10.77.") and host.endswith(".1") and ns == host[:-1] + "2"
    assert name not in listed("ip", "netns", "list") and f"{name}h" not in listed("ip", "link")
    assert netns("check").returncode == 0


@root
def test_interrupted_it_stops_what_runs_inside_and_removes_the_namespace(tmp_path):
    names = tmp_path / "name"
    command = subprocess.Popen(
        ["bash", SCRIPT, "with", "sh", "-c",
         f'echo "$NETNS_NAME" > {names}; exec ip netns exec "$NETNS_NAME" sleep 60'])
    deadline = time.monotonic() + 10
    while not (names.exists() and names.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    name = names.read_text().strip()
    while not listed("ip", "netns", "pids", name).split() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert listed("ip", "netns", "pids", name).split()
    command.send_signal(signal.SIGTERM)
    assert command.wait(timeout=30) == 128 + signal.SIGTERM
    assert name not in listed("ip", "netns", "list")
