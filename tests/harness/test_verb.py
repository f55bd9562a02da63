"""What the verbs share: the exit statuses of their way out, the results directory, the one
open-file check, and steps.tsv, from which every verb counts a run's failures (a failed stop
too, which has no record)."""

import os
import signal

from modelbench import bench, prepare, verb
from modelbench.checkout import Checkout
from modelbench.engine import steps
from modelbench.engine.plan import Group, Load, Part, Run
from modelbench.experiments.base import Context


def test_exit_statuses(capsys):
    assert verb.run("x", lambda: 0) == 0
    assert verb.run("x", lambda: 1) == 1

    def fails(error):
        def body():
            raise error
        return body
    assert verb.run("x", fails(prepare.PrepareError("no ab"))) == 1
    assert "x.sh: no ab" in capsys.readouterr().err
    assert verb.run("x", fails(KeyboardInterrupt())) == 130
    before = signal.getsignal(signal.SIGTERM)

    def terminated():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 1)  # let the handler run
        return 0
    assert verb.run("x", terminated) == 143
    assert "interrupted by SIGTERM" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) == before


def test_results_dir(tmp_path):
    checkout = Checkout(str(tmp_path / "build"), root=str(tmp_path))
    directory = verb.results_dir(checkout, "bench", None)
    assert os.path.dirname(directory) == str(tmp_path / "results")
    assert os.path.basename(directory).startswith("bench-2") and os.path.isdir(directory + "/raw")
    assert verb.results_dir(checkout, "bench", str(tmp_path / "mine")) == str(tmp_path / "mine")


def test_open_files_one_message():
    enough, text, fix = verb.open_files(1 << 40)
    assert not enough and "below the" in text and "ulimit -Hn" in fix
    assert verb.open_files(64)[0]


def test_ready_derives_what_to_prepare_from_the_plan(monkeypatch):
    asked = []
    monkeypatch.setattr(prepare, "ready", lambda *args: asked.append(args) or (None, False))
    ctx = Context("default", ["php", "async"])
    parts = [Part([Group([Run("x", "x", "x", ctx.server("php"), Load("ab", "/html", 1, n=1))]),
                   Group([Run("y", "y", "y", ctx.server("async"), Load("ab", "/html", 1, n=1))])],
                  1)]
    verb.ready(None, parts, "/nowhere")
    needs = asked[0][1]
    assert {"build", "db", "php"} <= needs and asked[0][2] == []


def test_steps_keep_failures_in_order(tmp_path):
    directory = str(tmp_path)
    assert steps.read(directory) == []
    steps.add(directory)
    assert steps.read(directory) == []
    steps.add(directory, steps.Step("a-b1", steps.FAILED, "ab failed", "raw/a-b1.*"))
    steps.add(directory, steps.Step("a-b2", steps.FAILED, "the server exited with status 1"))
    assert [s.id for s in steps.read(directory)] == ["a-b1", "a-b2"]
    assert steps.read(directory)[1] == steps.Step("a-b2", steps.FAILED,
                                                  "the server exited with status 1", "")


def test_bench_counts_a_failed_stop_that_has_no_record(tmp_path):
    os.makedirs(tmp_path / "runs")
    steps.add(str(tmp_path), steps.Step("bench-async-html-c1-b1", steps.FAILED,
                                        "the server exited with status 1 on SIGTERM"))
    settings = {"command": "scripts/bench.sh", "started": "", "seconds": 1, "blocks": 1,
                "run_s": 0}
    report, failures = bench.write_report(str(tmp_path), settings)
    assert failures == 1 and "## Failed runs (1)" in report
