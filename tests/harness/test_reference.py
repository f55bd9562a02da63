"""The reference runs of docs/reference/ and README's section written from the default one: README
has it byte for byte, its console's verdicts are the reference's, the section reads summary.json
by its fields, `--readme` rewrites only its section, and `--compare` with one run compares it
with the reference of its size."""

import copy
import json
import os
import random
import shutil

import pytest
from conftest import ROOT

from modelbench import __main__ as entry
from modelbench import reference
from modelbench.report import summary

DEFAULT = os.path.join(ROOT, reference.FOLDER, reference.DEFAULT)
# What a reference run holds: no runs/ or raw/ (tens of megabytes); a --standard run's 950 runs
# are 1.4 MB of summary.json, results.csv and plots.
MAX_BYTES = 2_000_000


def readme():
    with open(os.path.join(ROOT, reference.README)) as f:
        return f.read()


def test_readme_has_byte_for_byte_what_the_default_reference_writes():
    written = reference.written_section(readme())
    assert written is not None, "README has no section between the marks"
    assert written == reference.section(DEFAULT), \
        "README's results differ from the reference: scripts/reproduce.sh --readme " \
        "docs/reference/default rewrites them"


def test_each_reference_is_a_run_of_its_size_with_only_what_readers_need():
    sizes = os.listdir(os.path.join(ROOT, reference.FOLDER))
    assert reference.DEFAULT in sizes
    for size in sizes:
        folder = os.path.join(ROOT, reference.FOLDER, size)
        names = set(os.listdir(folder))
        assert {"summary.json", "results.csv"} <= names and "e1b-requests-per-s.png" in names
        assert names <= {"summary.json", "results.csv"} | {n for n in names if n.endswith(".png")}
        assert sum(os.path.getsize(os.path.join(folder, n)) for n in names) < MAX_BYTES
        run = summary.load(folder)
        assert run["format"] == summary.FORMAT and run["run"]["size"] == size
        assert run["run"]["started"] and run["run"]["command"] and run["machine"]["cores"]


def test_readme_shows_the_reference_plot_and_its_runs_verdicts():
    text = readme()
    assert "](docs/reference/default/e1b-requests-per-s.png)" in text.split("\n## ")[0]
    claims = summary.load(DEFAULT)["claims"]
    rows = [f"| {c['key']} | {c['real']['verdict']} | {c['models']['verdict']} |" for c in claims]
    console = text[text.index("$ scripts/reproduce.sh\n"):]
    assert "\n".join(rows) in console, "README's console verdicts are not the reference's"
    run = summary.load(DEFAULT)["run"]
    assert f"== {run['runs']} runs in {run['run_s'] / 60:.1f} min" in console


def crafted(tmp_path, run):
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(run))
    for name in ("e1b-latency.png", "e1b-requests-per-s.png"):
        (folder / name).write_bytes(b"")
    return str(folder)


def test_the_section_reads_the_figures_by_their_fields_not_their_names(tmp_path):
    run = summary.load(DEFAULT)
    shuffled = copy.deepcopy(run)
    random.Random(1).shuffle(shuffled["headline"])
    for figure in shuffled["headline"]:
        figure["name"] = "renamed"
    # In the E1b table's order (summary.json's first appearance of each system), as before.
    shuffled["headline"].sort(key=lambda f: [g["system"] for g in run["headline"]].index(
        f["system"]))
    moved = copy.deepcopy(shuffled)
    php = next(f for f in moved["headline"] if f["experiment"] == "E1b" and
               f["system"] == "php" and f["concurrency"] == 20 and
               f["metric"] == "requests_per_s")
    php["interval"].update(estimate=1234.4, low=1000.2, high=1500.6, n=7)
    original = reference.section(crafted(tmp_path, run), str(tmp_path))
    renamed = reference.section(crafted(tmp_path, shuffled), str(tmp_path))
    assert renamed == original
    text = reference.section(crafted(tmp_path, moved), str(tmp_path))
    assert "| `php` | 451 [419–486], 5 | 1,234 [1,000–1,501], 7 | 908 [817–1,008], 5 |" in text
    assert "[e1b-latency.png](run/e1b-latency.png)" in text


def test_the_section_without_node4_and_with_a_claim_not_measured(tmp_path):
    run = summary.load(DEFAULT)
    run["headline"] = [f for f in run["headline"] if "node4" not in (f["system"], f["against"])]
    run["claims"] = [c for c in run["claims"] if c["key"] != "E1b PHP faster"]
    text = reference.section(crafted(tmp_path, run), str(tmp_path))
    assert "| `node4` |" not in text and "E1's own Node.js" not in text
    assert "| `node` | 534 [406–701], 5 |" in text
    assert "| E1b PHP faster |" not in text
    assert "| E1b mysql-native | requests/s with mysql-native ÷ with mysql at -c 20 at most ×1 " \
           "| **reproduced** ×0.56 [×0.49–×0.64; 95 %, 5 blocks] | **not measured** |" in text


def test_a_reference_outside_the_checkout_is_refused(tmp_path):
    with pytest.raises(reference.ReadmeError, match="not in the checkout"):
        reference.section(DEFAULT, str(tmp_path))


def test_readme_rewritten_between_its_marks_only(tmp_path):
    folder = crafted(tmp_path, summary.load(DEFAULT))
    path = tmp_path / "README.md"
    path.write_text(f"# A\n\nbefore\n{reference.BEGIN}\ntyped by hand\n{reference.END}\nafter\n")
    assert reference.rewrite(folder, str(path), str(tmp_path)) is True
    assert path.read_text() == "# A\n\nbefore\n" + reference.section(folder, str(tmp_path)) + \
        "after\n"
    assert reference.rewrite(folder, str(path), str(tmp_path)) is False
    path.write_text("# A\n\nno marks\n")
    with pytest.raises(reference.ReadmeError, match="no section"):
        reference.rewrite(folder, str(path), str(tmp_path))


def test_the_reference_of_a_size_or_else_the_default(tmp_path):
    for size in ("default", "standard"):
        os.makedirs(tmp_path / reference.FOLDER / size)
    shutil.copy(os.path.join(DEFAULT, "summary.json"),
                tmp_path / reference.FOLDER / "default" / "summary.json")
    root = str(tmp_path)
    assert reference.directory("standard", root) == os.path.join(root, reference.FOLDER,
                                                                 "default")
    (tmp_path / reference.FOLDER / "standard" / "summary.json").write_text("{}")
    assert reference.directory("standard", root).endswith(os.path.join("reference", "standard"))
    assert reference.directory("smoke", root).endswith(os.path.join("reference", "default"))


def test_compare_with_one_run_compares_it_with_the_reference(tmp_path, capsys):
    run = summary.load(DEFAULT)
    changed = next(c for c in run["claims"] if c["key"] == "E1b PHP faster")
    changed["real"]["verdict"] = "reproduced"
    php = next(f for f in run["headline"] if f["name"] == "E1b php -c 20 requests/s")
    php["value"] = 1127.6  # ×1.20 the reference's 939.7
    folder = crafted(tmp_path, run)
    assert entry.main(["reproduce", "--compare", folder]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"A: {DEFAULT} (2026-12-06T21:58:55+00:00, size default)\n"
                          f"B: {folder} (")
    assert "Verdicts: 1 changed" in out
    assert "| E1b PHP faster | real | inconclusive | reproduced |" in out
    assert "| E1b php -c 20 requests/s | 939.7 | 1127.6 | ×1.20 **moved** |" in out
    assert "| E1b php -c 200 requests/s | 907.6 | 907.6 | ×1.00 |" in out


def test_compare_takes_one_run_or_two(tmp_path, capsys):
    folder = crafted(tmp_path, summary.load(DEFAULT))
    with pytest.raises(SystemExit) as ended:
        entry.main(["reproduce", "--compare", folder, folder, folder])
    assert ended.value.code == 2 and "one run or two" in capsys.readouterr().err
