"""The quiet gate's decisions on crafted figures: what it waits for, which runs it measures
again, and when it stops."""

from modelbench.engine import machine


def gate_over(figures_in_turn, max_attempts=3):
    """(figures kept, attempts made, log lines) of the gate measuring crafted figures in turn."""
    lines = []
    gate = machine.QuietGate(log=lines.append, idle_wait_s=0, speed_wait_s=0,
                             max_attempts=max_attempts)
    turns = iter(figures_in_turn)

    def attempt():
        figures = next(turns)
        return figures, figures
    _, kept, attempts = gate.measure(attempt)
    return kept, attempts, lines


def run(other=1.0, before=10.0, after=10.0):
    return {"other_cpu_pct": other, "probe_before_ms": before, "probe_after_ms": after}


def test_a_run_at_one_speed_on_a_quiet_machine_is_kept():
    kept, attempts, lines = gate_over([run(before=10.0, after=11.5)])
    assert attempts == 1 and kept["probe_after_ms"] == 11.5 and lines == []


def test_a_run_during_which_the_machine_slowed_or_sped_up_is_measured_again():
    for changed in (run(before=7.0, after=14.0), run(before=14.0, after=7.0)):
        kept, attempts, lines = gate_over([changed, run(before=7.0, after=7.2)])
        assert attempts == 2 and kept["probe_before_ms"] == 7.0
        assert "speed changed" in lines[0] and "measuring it again" in lines[0]


def test_a_polluted_run_is_measured_again():
    kept, attempts, lines = gate_over([run(other=35.0), run(other=2.0)])
    assert attempts == 2 and kept["other_cpu_pct"] == 2.0 and "35.0 %" in lines[0]


def test_the_last_attempt_is_kept_whatever_it_shows():
    kept, attempts, _ = gate_over([run(before=7, after=14), run(other=50), run(other=60)])
    assert attempts == 3 and kept["other_cpu_pct"] == 60


def test_a_run_without_probes_is_judged_on_other_work_alone():
    kept, attempts, _ = gate_over([{"other_cpu_pct": 0}])
    assert attempts == 1


def test_the_probe_times_its_loop():
    assert 0 < machine.speed_probe_ms() < 10_000


class Clock:
    """time.monotonic and time.sleep of a machine whose probe reads the given times in turn."""

    def __init__(self, monkeypatch, probes):
        self.now = 0.0
        self.probes = iter(probes)
        monkeypatch.setattr(machine.time, "monotonic", lambda: self.now)
        monkeypatch.setattr(machine.time, "sleep", self.sleep)
        monkeypatch.setattr(machine, "speed_probe_ms", lambda: next(self.probes))

    def sleep(self, seconds):
        self.now += seconds


def test_the_gate_waits_while_the_machine_runs_slower_than_its_fastest(monkeypatch):
    clock = Clock(monkeypatch, [6.0, 9.5, 9.0, 6.2])
    lines = []
    gate = machine.QuietGate(log=lines.append, idle_wait_s=0)
    gate.wait_for_speed()  # the first probe is the fastest yet
    assert clock.now == 0 and lines == []
    gate.wait_for_speed()
    assert clock.now == 2 and gate.best_probe_ms == 6.0
    assert lines == ["    waited 2 s for the machine's speed (probe 6.2 ms, its fastest 6.0 ms)"]


def test_the_wait_for_speed_is_bounded(monkeypatch):
    clock = Clock(monkeypatch, [5.0] + [12.0] * 10)
    lines = []
    gate = machine.QuietGate(log=lines.append, idle_wait_s=0, speed_wait_s=3)
    gate.wait_for_speed()
    gate.wait_for_speed()
    assert clock.now == 3 and "measuring anyway" in lines[-1]


def test_a_probe_during_a_run_sets_the_fastest(monkeypatch):
    Clock(monkeypatch, [7.0, 7.0])
    gate = machine.QuietGate(log=print, idle_wait_s=0)
    gate.measure(lambda: ({}, run(before=5.0, after=5.2)))
    assert gate.best_probe_ms == 5.0
