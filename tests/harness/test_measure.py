"""A measured run's sampling, on real short-lived processes: the CPU of a helper that the run's
setup started (E6's delaying proxy) is the run's own, not other work that pollutes it."""

import subprocess
import sys

import psutil

from modelbench.engine import measure

BURN = "import time\nend = time.monotonic() + 5\nwhile time.monotonic() < end: pass\n"


def test_a_helpers_cpu_is_counted_as_the_runs_own(tmp_path):
    helper = subprocess.Popen([sys.executable, "-c", BURN])
    try:
        before = sum(psutil.Process(helper.pid).cpu_times()[:2])
        code, figures = measure.run(["sleep", "0.8"], str(tmp_path / "out"), str(tmp_path / "err"),
                                    helper_pids=(helper.pid,))
        spent = sum(psutil.Process(helper.pid).cpu_times()[:2]) - before
    finally:
        helper.kill()
        helper.wait()
    assert code == 0 and spent > 0.05
    # The helper spun through the 0.8-s run: the run counts its CPU during the run, the most of
    # what it spent around the run (however much a busy machine left it), never more (/proc
    # counts in 10-ms ticks).
    assert 0.5 * spent <= figures["helper_cpu_s"] <= spent + 0.02
    # What other work took is the machine's busy share less ours, the helper's among them.
    ours = figures["helper_cpu_s"] + figures["client_cpu_s"]
    busy = figures["machine_busy_pct"] / 100 * figures["wall_s"] * figures["cores"]
    assert abs(figures["other_cpu_pct"] - max(0.0, 100 * (busy - ours) / figures["wall_s"]
                                              / figures["cores"])) <= 0.2


def test_without_helpers_there_is_no_helper_figure(tmp_path):
    code, figures = measure.run(["true"], str(tmp_path / "out"), str(tmp_path / "err"))
    assert code == 0 and "helper_cpu_s" not in figures
