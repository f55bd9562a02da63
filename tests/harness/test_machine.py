"""The machine's speed probe and what the report says of it, on crafted figures."""

from crafted import blocks, results

from modelbench.engine import machine
from modelbench.report import document, runtable


def probes(before, after, **figures):
    return {"requests_per_s": 1000.0, "other_cpu_pct": 1.0, "probe_before_ms": before,
            "probe_after_ms": after, **figures}


def test_the_probe_times_its_loop():
    assert 0 < machine.speed_probe_ms() < 10_000


def test_a_change_of_speed_is_one_beyond_the_bound_either_way():
    assert not machine.speed_changed(probes(10.0, 11.9))
    assert machine.speed_changed(probes(7.0, 9.0)) and machine.speed_changed(probes(9.0, 7.0))
    assert not machine.speed_changed({"requests_per_s": 1.0})  # recorded before the probe


def test_a_run_whose_speed_changed_is_noted_under_its_table():
    r = results(*blocks("x", "async", probes(6.0, 6.1), probes(5.8, 9.4)))
    notes = " ".join(runtable.table_notes(r, ["x"]))
    assert "`x-b2`: the machine's speed changed during the run" in notes
    assert "5.8 ms before, 9.4 ms after" in notes and "x-b1" not in notes


def test_the_report_gives_the_probes_range_and_the_runs_it_changed_during():
    r = results(*blocks("x", "async", probes(6.0, 6.1), probes(5.8, 9.4)),
                *blocks("y", "php", {"requests_per_s": 5.0, "other_cpu_pct": 0}))
    line = document.speed_line(list(r.runs.values()))
    assert "5.8–9.4 ms" in line and "1 of 2 runs" in line
    assert document.speed_line([]) == "- the machine's speed: not probed"
