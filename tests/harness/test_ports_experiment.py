"""E10 and its load tool on crafted data (the claim both ways, the plan per size, the report and
headline figures), and the client's namespace made for real where this
runs as root: its ports narrowed inside, nothing of it left after, an orphan removed."""

import os
import subprocess

import pytest
from conftest import listed, root
from crafted import blocks, results

from modelbench import systems
from modelbench.engine import netns
from modelbench.engine.loads import ALL, StepFailed, ports
from modelbench.engine.plan import Load
from modelbench.experiments import e10
from modelbench.experiments.base import Context
from modelbench.report.verdicts import NOT_MEASURED, NOT_REPRODUCED, REPRODUCED


def run_figures(complete, no_port, client, server):
    return {"complete": complete, "failed": no_port, "no_port": no_port,
            "requests_per_s": complete / 10, "time_wait_client": client,
            "time_wait_server": server}


def system(key, no_port, client, server, block_count=3):
    return blocks(e10.base(key), key, *[run_figures(9000 + b, no_port, client, server)
                                         for b in range(block_count)])


# A client that holds the TIME_WAIT runs out of its 1,000 ports; one whose server closes first
# does not.
RUNS_OUT = (5000, 1000, 3)
KEEPS = (0, 2, 9000)


def test_the_claim_holds_when_the_blocking_side_runs_out_and_fails_the_other_way():
    r = results(*system("php", *RUNS_OUT), *system("node", *KEEPS), *system("blocking", *KEEPS),
                *system("async", *RUNS_OUT))
    claim, = e10.claims(r)
    assert claim.real.verdict == REPRODUCED
    assert claim.real.statistic.estimate == pytest.approx(15000 / (3 * 9001 + 15000), rel=1e-3)
    assert "TIME_WAIT client 1,000 of its 1,000 ports, server 3" in claim.real.evidence
    assert "TIME_WAIT client 2 of its 1,000 ports, server 9,000" in claim.real.evidence
    assert claim.model.verdict == NOT_REPRODUCED
    assert "blocking's client did not run out of ports" in claim.model.cause
    assert "async's client ran out of ports too" in claim.model.cause
    assert e10.ports_claim(results(*system("php", *RUNS_OUT))).real.verdict == NOT_MEASURED


def test_the_plan_per_size():
    part, = e10.plan(Context("smoke", ["php", "node", "blocking", "async", "nginx"]))
    assert part.blocks == 1 and part.more == 0
    assert sorted(run.server.key for run in part.runs()) == ["async", "blocking", "node", "php"]
    assert all(group.fresh and group.around is e10.client_namespace for group in part.groups)
    load = part.runs()[0].load
    assert (load.tool, load.path, load.c, load.delay_s, load.seconds) == (
        "ports-siege", "/json", 500, 1, 3)
    default, = e10.plan(Context("default", ["php"]))
    assert default.blocks == 3 and default.runs()[0].load.seconds == 10
    every = systems.names()
    standard, = e10.plan(Context("standard", every))  # every system that serves /json
    assert sorted(run.server.key for run in standard.runs()) == sorted(set(every) - {"nginx"})


def test_the_report_and_headline_read_the_runs():
    r = results(*system("php", *RUNS_OUT), *system("node", *KEEPS))
    text = e10.section(r)
    assert "| php | 9,001 | 900 | 5,000 | 0.3571 [" in text and "| 1,000 | 3 |" in text
    assert "1,000 ephemeral ports (50000–50999)" in text
    headline = {figure.name: figure.json() for figure in e10.headline(r)}
    assert headline["E10 php: connects without a port"]["value"] == 5000
    assert headline["E10 node: TIME_WAIT on the server's side"]["unit"] == "sockets"


def test_the_tool_needs_its_namespace_and_counts_what_ss_lists():
    tool = ALL["ports-siege"]
    load = Load("ports-siege", "/json", 500, seconds=10, delay_s=1)
    assert tool.connections(load) == 0 and tool.local_only
    assert load.text() == "siege -c 500 -d 1 -t 10S /json from a namespace of few ports"

    class Attempt:
        class target:
            client = None
    with pytest.raises(StepFailed, match="namespace"):
        tool.run(Attempt)
    assert ports.time_waits(["printf", "tcp 0 0 a b\\ntcp 0 0 c d\\n"]) == 2
    with pytest.raises(StepFailed):
        ports.time_waits(["false"])


@root
def test_the_clients_namespace_has_its_ports_and_leaves_nothing():
    with e10.client_namespace(None, "/nonexistent") as setup:
        link = setup.client
        assert setup.listen == f"{link.host}:0"
        inside = subprocess.run([*link.prefix, "sysctl", "-n", "net.ipv4.ip_local_port_range",
                                 "net.ipv4.tcp_tw_reuse"], capture_output=True, text=True)
        assert inside.stdout.split() == ["50000", "50999", "0"]
        assert link.name in listed("ip", "netns", "list")
    assert link.name not in listed("ip", "netns", "list")
    assert f"{link.name}h" not in subprocess.run(["ip", "link"], capture_output=True,
                                                 text=True).stdout


@root
def test_a_namespace_whose_owner_died_is_removed_by_the_next():
    number = 254
    name = netns.NAME.format(number)
    subprocess.run(["ip", "netns", "add", name], check=True)
    os.makedirs(netns.STATE, exist_ok=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    with open(os.path.join(netns.STATE, f"{number}.owner"), "w") as f:
        f.write(f"{dead.pid} 0")
    with netns.client_namespace({}):
        assert name not in listed("ip", "netns", "list")
