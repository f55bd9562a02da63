"""summary.json and the comparison of two runs: written from judged claims, read back, and two
recorded summaries (two smoke runs of this machine, minutes apart) compared."""

import json
import os
import shutil

import pytest
from conftest import HERE
from crafted import blocks, results

from modelbench import experiments, reproduce
from modelbench.experiments import e1b
from modelbench.report import summary


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


def test_written_and_read_back(tmp_path):
    r = results(*blocks("e1b-php-c20", "php", *({"requests_per_s": v, "probe_before_ms": p}
                                                 for v, p in ((1200.0, 6.0), (1300.0, 6.5),
                                                              (1250.0, 7.0), (1280.0, 6.2)))),
                *blocks("e1b-node-c20", "node", *({"requests_per_s": v} for v in
                                                  (800.0, 1000.0, 900.0, 950.0))),
                directory=str(tmp_path))
    claims = e1b.faster_claims(r)
    settings = {"started": "2026-12-01T00:00:00", "size": "default", "command": "x",
                "run_s": 600, "runs": 8, "more_runs": 0, "remeasured": 0,
                "versions": {"systems": {"php": "8.2"}}}
    summary.write(str(tmp_path), settings, claims, [e1b], r, 0)
    written = summary.load(str(tmp_path))
    assert written["run"]["size"] == "default" and written["versions"]["systems"]["php"] == "8.2"
    assert written["run"]["more_runs"] == 0
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
    headline = written["headline"]["E1b php -c 20 requests/s"]
    assert headline["n"] == 4 and headline["low"] < 1200 and headline["high"] > 1300
    assert written["machine"]["cores"] >= 1


def test_another_format_is_refused(tmp_path):
    (tmp_path / "summary.json").write_text(json.dumps({"format": 99}))
    with pytest.raises(ValueError):
        summary.load(str(tmp_path))


def test_a_rewritten_report_has_the_experiments_its_run_ran():
    assert [e.KEY for e in reproduce.ran({"experiments": ["E5", "E1b"]})] == ["E1b", "E5"]
    assert len(reproduce.ran({})) == len(experiments.ALL)
