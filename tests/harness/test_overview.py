"""report.md opens with the answer (report.overview), the detail after it, and report.html is the
same report in one page (report.html_page): on crafted claims and figures, and on the recorded
smoke run of tests/data/smoke-run."""

import json
import os
import re
import shutil

from conftest import ROOT
from crafted import blocks, record, results

from modelbench import reproduce
from modelbench.report import document, html_page, overview, statistics
from modelbench.report.summary import Figure
from modelbench.report.verdicts import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED,
                                        Claim, Side)

SMOKE_RUN = os.path.join(ROOT, "tests", "data", "smoke-run")


def side(verdict, evidence="", statistic=None):
    return Side(evidence, verdict, statistic=statistic)


def test_the_statistic_reads_as_the_evidence_writes_it():
    ratio = statistics.Interval(1.41, 1.26, 1.52, 0.95, 4, statistics.MEAN_OF_LOGS)
    written = "php ÷ node within each block ×1.41 [×1.26–×1.52; 95 %, 4 blocks] (medians ...)"
    assert overview.statistic_cell(side(REPRODUCED, written, ratio)) == \
        "×1.41 [×1.26–×1.52; 95 %, 4 blocks]"
    # One block: the whole number, not the '2 [1 block' that ends '×1.92 [1 block'.
    one = statistics.of_blocks([1.92])
    assert overview.statistic_cell(side(INCONCLUSIVE, "real time ×1.92 [1 block: no interval]",
                                        one)) == "×1.92 [1 block: no interval]"
    assert overview.statistic_cell(side(INCONCLUSIVE, "written otherwise", ratio)) == \
        ratio.text()
    assert overview.statistic_cell(side(NOT_MEASURED, "needs e1b-php-c20")) == "–"


def claims():
    return [Claim("E9 fast", "", "", side(REPRODUCED), side(NOT_REPRODUCED)),
            Claim("E9 flat, at -c 200", "", "", side(REPRODUCED), side(INCONCLUSIVE)),
            Claim("E1b fast (E9)", "", "", side(NOT_REPRODUCED), side(NOT_MEASURED))]


def test_a_tally_names_the_claims_without_their_experiment():
    assert overview.tally(claims(), "real", "E9") == \
        "reproduced 2 (*fast*, *flat, at -c 200*), not reproduced 1 (*E1b fast (E9)*)"
    assert overview.tally(claims(), "model") == \
        "not reproduced 1, inconclusive 1, not measured 1"


def figure(name, value):
    return Figure(name, "E9", name.split()[1], "requests_per_s", value)


def test_headline_figures_by_what_they_measure_lowest_to_highest():
    r = results(record("e9-php-b1", 1, "php", {}), record("e9-async-b1", 1, "async", {}),
                record("e9-blocking-cal-b1", 1, "blocking-cal", {}))
    headline = [figure(name, value) for name, value in (
        ("E9 php requests/s", 900.5), ("E9 async requests/s", 2330.6),
        ("E9 blocking-cal requests/s", 1200.0), ("E9 php ÷ async", 0.386),
        ("E9 crossover, -c 20 (ms)", 0.25), ("E9 crossover, -c 200 (ms)", None))]
    assert overview.headline_text(r, headline, "E9") == (
        "requests/s from 900.5 (php) to 2,330.6 (async); php ÷ async = 0.386; "
        "crossover, -c 20 (ms) = 0.25")


class Experiment:
    """An experiment module's face, as overview.finding reads it."""

    KEY = "E9"
    TITLE = "E9 — crafted"

    @staticmethod
    def headline(r):
        return [figure("E9 php requests/s", 900.5)]


def test_an_experiment_found_its_verdicts_and_figures():
    r = results(*blocks("e9-php", "php", {}))
    assert overview.finding(r, Experiment, claims()[:2]) == (
        "**E9 — crafted.** Real systems: reproduced 2 (*fast*, *flat, at -c 200*). Models: not "
        "reproduced 1 (*fast*), inconclusive 1 (*flat, at -c 200*). Its headline figures: "
        "php requests/s = 900.5.")
    assert overview.finding(r, Experiment, []).startswith(
        "**E9 — crafted.** No claim of the posts is judged on it. Its headline figures:")


def headings(text):
    return re.findall(r"^## (.+)$", text, re.MULTILINE)


def test_the_report_opens_with_the_answer_and_keeps_the_detail(tmp_path):
    directory = tmp_path / "run"
    shutil.copytree(SMOKE_RUN, directory)
    settings = json.loads((directory / "settings.json").read_text())
    _, judged, _ = document.write(str(directory), reproduce.ran(settings), settings)
    text = (directory / "report.md").read_text()
    found = headings(text)
    assert found[:4] == ["Verdicts", "What each experiment found", "Findings",
                         "E1a — the /html workload in one process, no HTTP"]
    assert found[-5:] == ["How the runs were made", "Checks before the runs", "Warm-ups",
                          "Environment", "Files"]
    for heading in ("E1b — /html under ApacheBench", "E5", "E6", "Model against the real system",
                    "CPU split"):
        assert any(h.startswith(heading) for h in found), heading
    # The verdicts within the first screen: the title, the run, the legend, the table.
    top = text.splitlines()[:14]
    assert any(line.startswith(f"| {judged[0].key} | **") for line in top)
    assert "smoke" in top[2] and f"{len(judged)} claims" in text
    page = (directory / "report.html").read_text()
    assert page.count("<table>") == text.count("\n|---") and page.count("<img ") == 5


def test_the_page_holds_its_plots_and_colours_its_verdicts(tmp_path):
    png = b"\x89PNG\r\n\x1a\n" + bytes(16)
    (tmp_path / "a.png").write_bytes(png)
    text = ("# A report\n\n| claim | real systems |\n|---|---|\n| E9 fast | **not reproduced** "
            "|\n\n![a.png](a.png)\n\n![gone.png](gone.png)\n")
    page = html_page.page(str(tmp_path), text)
    assert "<title>A report</title>" in page and "<table>" in page
    assert '<strong class="not-reproduced">not reproduced</strong>' in page
    assert 'src="data:image/png;base64,iVBORw0KGgo' in page
    # A plot not drawn stays a link, which the page shows broken rather than hides.
    assert 'src="gone.png"' in page
