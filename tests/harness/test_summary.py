"""summary.json and the comparison of two runs: written from judged claims, read back, its headline
records made from crafted runs, and two recorded summaries (two smoke runs of this machine, minutes
apart, format 2) compared with each other and with a summary of format 3."""

import json
import os
import shutil

import pytest
from conftest import HERE
from crafted import blocks, results

from modelbench import experiments, reproduce
from modelbench.experiments import e1b, node4
from modelbench.report import document, summary


def recorded(tmp_path, name):
    directory = tmp_path / name
    directory.mkdir()
    shutil.copy(os.path.join(HERE, "data", f"summary-{name}.json"), directory / "summary.json")
    return summary.load(str(directory))


def test_two_recorded_runs_compared(tmp_path):
    a, b = recorded(tmp_path, "smoke-a"), recorded(tmp_path, "smoke-b")
    text, changed = summary.compare(a, b, "A", "B")
    assert ["E1b PHP faster", "models", "inconclusive", "not reproduced"] in changed
    assert "| E1b php -c 20 requests/s | 1115.1 | 1317.3 | ×1.18 **moved** |" in text
    assert "| E1b php -c 200 requests/s | 1044.4 | 1051.1 | ×1.01 |" in text
    assert f"Verdicts: {len(changed)} changed" in text
    same, _ = summary.compare(a, a)
    assert "Verdicts: 0 changed" in same and "**moved**" not in same


def e1b_runs(directory, php_rates=(1200.0, 1300.0, 1250.0, 1280.0)):
    """E1b at -c 20: php's rates (a probe each), node's, and node4's; p50 and p99 in each."""
    def runs(base, server, rates, **more):
        return blocks(base, server, *({"requests_per_s": v, "p50_ms": 20000 / v,
                                       "p99_ms": 60000 / v, **more} for v in rates),
                      experiment="E1b", concurrency=20)
    return results(*runs("e1b-php-c20", "php", php_rates, probe_before_ms=6.0),
                   *runs("e1b-node-c20", "node", (800.0, 1000.0, 900.0, 950.0)),
                   *runs("e1b-node4-c20", "node4", (100.0, 110.0, 120.0, 105.0)),
                   directory=directory)


MACHINE = {"cores": 48, "cpu": "The Run's CPU", "system": "Linux", "kernel": "5.10.0-the-run",
           "memory_gib": 192, "machine": "aarch64"}


def summary_of(directory, r, started="2026-12-01T00:00:00"):
    """summary.json of r's E1b claims and the headline of E1b and node4, read back."""
    settings = {"started": started, "size": "default", "command": "x", "run_s": 600, "runs": 8,
                "more_runs": 12, "more_s": 174, "remeasured": 0, "more_minutes": 3.0,
                "minutes": None, "versions": {"systems": {"php": "8.2"}}, "machine": MACHINE}
    summary.write(directory, settings, e1b.faster_claims(r), [e1b, node4], r, 0)
    return summary.load(directory)


def test_written_and_read_back(tmp_path):
    written = summary_of(str(tmp_path), e1b_runs(str(tmp_path)))
    assert written["format"] == 3
    # A settings.json without a zone (before format 3) was UTC; the summary says so.
    assert written["run"]["started"] == written["settings"]["started"] == \
        "2026-12-01T00:00:00+00:00"
    assert written["run"]["size"] == "default"
    assert written["versions"]["systems"]["php"] == "8.2"
    assert {k: written["run"][k] for k in ("more_runs", "more_s", "minutes", "more_minutes")} == \
        {"more_runs": 12, "more_s": 174, "minutes": None, "more_minutes": 3.0}
    assert document.added_blocks(written["run"]) == \
        "12 runs (2.9 minutes) in blocks added for undecided comparisons"
    assert document.added_blocks({"more_runs": 0}) == "0 runs in blocks added for undecided " \
        "comparisons"  # a run from before the minutes were kept
    faster = written["claims"][0]
    assert faster["key"] == "E1b PHP faster"
    assert faster["real"]["verdict"] == "reproduced"
    # The verdict judged the ratio's interval over the blocks; it says its level and n.
    statistic = faster["real"]["statistic"]
    assert statistic["level"] == 0.95 and statistic["n"] == 4 and statistic["unit"] == "blocks"
    assert statistic["method"] == "geometric mean (t)"
    assert 1.1 < statistic["low"] < statistic["estimate"] < statistic["high"]
    assert faster["real"]["runs"] == ["e1b-php-c20", "e1b-node-c20"]
    assert faster["models"]["verdict"] == "not measured"
    assert written["machine"] == MACHINE and "machine" not in written["settings"]


def test_the_start_in_utc_and_the_report_says_it_as_before(tmp_path):
    r = e1b_runs(str(tmp_path))
    assert summary_of(str(tmp_path), r, "2026-12-01T01:00:00+01:00")["run"]["started"] == \
        "2026-12-01T00:00:00+00:00"
    for started in ("2026-12-01T00:00:00", "2026-12-01T00:00:00+00:00",
                    "2026-12-01T01:00:00+01:00"):
        assert "- run: 2026-12-01T00:00:00 UTC, size `default`" in document.section_environment(
            r, {"started": started, "size": "default"})


def test_each_headline_figure_is_a_record_a_program_reads_without_parsing(tmp_path):
    written = summary_of(str(tmp_path), e1b_runs(str(tmp_path)))
    headline = {figure["name"]: figure for figure in written["headline"]}
    for figure in headline.values():
        assert set(figure) == {"name", "experiment", "system", "against", "concurrency",
                               "cost_us", "rtt_ms", "share", "metric", "unit", "value",
                               "interval"}
        assert figure["unit"] == summary.UNITS[figure["metric"]]
        assert figure["cost_us"] is figure["rtt_ms"] is figure["share"] is None
        assert figure["value"] == figure["interval"]["estimate"]
    rate = headline["E1b php -c 20 requests/s"]
    assert (rate["experiment"], rate["system"], rate["against"], rate["concurrency"]) == \
        ("E1b", "php", None, 20)
    assert (rate["metric"], rate["unit"]) == ("requests_per_s", "requests/s")
    assert isinstance(rate["value"], float) and 1250 < rate["value"] < 1260
    interval = rate["interval"]
    assert interval["n"] == 4 and interval["unit"] == "blocks" and interval["level"] == 0.95
    assert interval["low"] < 1200 and interval["high"] > 1300
    # The latencies beside each rate, in ms.
    p50, p99 = headline["E1b node -c 20 p50 (ms)"], headline["E1b node -c 20 p99 (ms)"]
    assert (p50["metric"], p50["unit"], p99["metric"], p99["unit"]) == (
        "p50_ms", "ms", "p99_ms", "ms")
    assert p50["system"] == "node" and p50["concurrency"] == 20
    assert 20 < p50["value"] < 25 and 3 * p50["value"] == pytest.approx(p99["value"], rel=0.01)
    # A ratio names both systems.
    gap = headline["E1b php ÷ node4 -c 20"]
    assert (gap["system"], gap["against"], gap["metric"], gap["unit"]) == (
        "php", "node4", "requests_per_s_ratio", "×")
    assert 10 < gap["value"] < 13 and gap["interval"]["method"] == "geometric mean (t)"


def test_the_results_document_has_every_metric_and_point_field():
    with open(os.path.join(HERE, "..", "..", "docs", "results.md")) as f:
        text = f.read()
    missing = [name for name in (*summary.UNITS, *summary.POINT) if f"`{name}`" not in text]
    assert not missing, f"docs/results.md does not say what these are: {missing}"


def test_a_figure_without_an_interval_or_a_value():
    figure = summary.Figure("E5 x, -c 20 (ms)", "E5", "blocking", "crossover_cost_ms", None,
                            against="async", concurrency=20).json()
    assert figure["value"] is None and figure["interval"] is None and figure["unit"] == "ms"


def test_format_2_against_format_3_by_name(tmp_path):
    old = recorded(tmp_path, "smoke-a")  # E1b php: 1115.1 at -c 20, 1044.4 at -c 200
    assert old["format"] == 2
    new_dir = tmp_path / "new"
    new_dir.mkdir()
    new = summary_of(str(new_dir), e1b_runs(str(new_dir), php_rates=(1338.1,)))
    text, changed = summary.compare(old, new, "A", "B")
    assert "| E1b php -c 20 requests/s | 1115.1 | 1338.1 | ×1.20 **moved** |" in text
    assert "E1b php -c 200" not in text  # not in B
    assert "E1b php -c 20 p99" not in text  # not in A
    back, _ = summary.compare(new, old, "B", "A")
    assert "| E1b php -c 20 requests/s | 1338.1 | 1115.1 | ×0.83 **moved** |" in back
    # The claims are compared as before: this one has no models' runs in B.
    assert ["E1b PHP faster", "models", "inconclusive", "not measured"] in changed


@pytest.mark.parametrize("content", [{"format": 99}, {"format": 1}, {"claims": []}])
def test_another_format_is_refused(tmp_path, content):
    (tmp_path / "summary.json").write_text(json.dumps(content))
    with pytest.raises(ValueError, match="reads formats 2 and 3"):
        summary.load(str(tmp_path))


def test_a_rewritten_report_has_the_experiments_its_run_ran():
    assert [e.KEY for e in reproduce.ran({"experiments": ["E5", "E1b"]})] == ["E1b", "E5"]
    assert len(reproduce.ran({})) == len(experiments.ALL)


def test_a_report_made_again_says_the_runs_machine_not_this_one(tmp_path):
    """The run's settings keep its machine; a run from before they did keeps what its own
    summary.json said; a run without either says it does not know."""
    this = reproduce.machine.description()
    assert this["cores"] >= 1 and this["system"] and this["kernel"]
    directory = str(tmp_path)
    r = e1b_runs(directory)
    assert summary.recorded_machine(directory, {"machine": MACHINE}) == MACHINE
    assert summary.recorded_machine(directory, {}) == {}
    summary_of(directory, r)
    assert summary.recorded_machine(directory, {}) == MACHINE
    text = document.section_environment(r, {"machine": MACHINE})
    assert "cores (The Run's CPU), Linux 5.10.0-the-run" in text
    assert "cores (?), ?\n" in document.section_environment(r, {})
