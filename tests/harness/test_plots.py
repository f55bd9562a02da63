"""The plots on crafted records: a line's interval, the post's figures and the categories in the
data and the script; the load tool that ran in E1b's titles; ab's percentile spectrum; and gnuplot
drawing them."""

import os
import shutil

import pytest
from crafted import blocks, results
from test_openloop_experiment import CALM, STEEP, sweep

from modelbench.engine.loads import ab
from modelbench.experiments import e1b, e7
from modelbench.report import plots
from modelbench.report.document import cpu_split
from modelbench.report.plots import Line, Panel, Plot

RATES = {"php": 1000, "node": 600, "blocking": 1500, "async": 2000}
SPREAD = (0.9, 1.0, 1.05, 1.2)  # each block's requests/s ÷ the server's


def e1b_records(tool="ab"):
    """E1b's runs of RATES' servers at every concurrency, four blocks each."""
    out = []
    for key, rate in RATES.items():
        for c in e1b.CONCURRENCIES:
            out += blocks(e1b.base(key, c), key, *[
                {"requests_per_s": rate * f, "mean_ms": 1000 * c / (rate * f),
                 "p50_ms": 900 * c / (rate * f), "p99_ms": 3000 * c / (rate * f),
                 "machine_busy_pct": 90, "server_cpu_pct_machine": 60 * f}
                for f in SPREAD], tool=tool, concurrency=c, experiment="E1b")
    return out


def by_name(plot_list):
    return {plot.name: plot for plot in plot_list}


def cells(plot, column):
    """The column's cells, a row each."""
    return [row[plot.columns.index(column)] for row in plot.rows]


def test_a_line_draws_its_interval_as_error_bars_or_a_band():
    lines = [Line("a", "a", "#111111", low="a_low", high="a_high"),
             Line("b", "b", "#222222", low="b_low", high="b_high", band=True, style="lines"),
             Line("c", "the post's", "#333333", style="points")]
    script = Plot("p", ["x", "a", "a_low", "a_high", "b", "b_low", "b_high", "c"],
                  [[1, 2, 1, 3, 2, 1, 3, 2]], [Panel("t", "x", lines)]).script()
    assert ('using "x":"a":"a_low":"a_high" with yerrorbars' in script
            and 'using "x":"a" with linespoints' in script)
    assert 'using "x":"b_low":"b_high" with filledcurves' in script
    assert 'using "x":"b" with lines' in script and "notitle" in script
    assert "using \"x\":\"c\" with points" in script and "title 'the post''s'" in script
    with pytest.raises(ValueError):
        Line("d", "d", "#000000", style="bars")


def test_categories_are_labelled_and_intervals_stand_side_by_side():
    lines = [Line(k, k, "#111111", low=f"{k}_low", high=f"{k}_high") for k in ("a", "b")]
    plot = Plot("p", ["c", "a", "a_low", "a_high", "b", "b_low", "b_high", "post"],
                [["1", 1, 1, 1, 1, 1, 1, None], ["20", 2, 1, 3, 2, 1, 3, 5]],
                [Panel("t", "c", lines + [Line("post", "post", "#000000", style="points")],
                       categories=True, dodge=0.1)])
    script = plot.script()
    assert "set xtics ('1' 0, '20' 1)" in script and "set xrange [-0.5:1.5]" in script
    assert '($0-0.05):"a":"a_low":"a_high"' in script and '($0+0.05):"b"' in script
    assert '($0+0):"post" with points' in script  # a line without an interval in the middle
    assert plot.data().splitlines()[1].endswith("\t-")  # no post's figure at -c 1


def test_a_stacked_panel_is_horizontal_bars_top_to_bottom():
    plot = cpu_split(results(*blocks("e1b-php-c20", "php", {
        "machine_busy_pct": 90, "server_cpu_pct_machine": 50, "db_cpu_pct_machine": 20,
        "client_cpu_pct_machine": 10}, experiment="E1b"), *blocks("e2-node", "node", {
            "machine_busy_pct": 80, "server_cpu_pct_machine": 40, "db_cpu_pct_machine": 5,
            "client_cpu_pct_machine": 30}, experiment="E2")))
    script = plot.script()
    assert "set yrange [1.5:-0.5]" in script and "set ytics ('E1b php' 0, 'E2 node' 1)" in script
    assert ('using (0+column("server")+column("db")/2):0:(column("db")/2):(0.35) with boxxyerror'
            in script)
    assert plot.rows[0][1:] == [50, 20, 10, 10]  # other: busy less the rest


def test_e1b_requests_per_s_carries_its_interval_and_the_posts_figures():
    r = results(*e1b_records())
    plot = by_name(e1b.plots(r))["e1b-requests-per-s"]
    interval = r.interval(e1b.base("php", 20), "requests_per_s")
    at_20 = e1b.CONCURRENCIES.index(20)
    assert interval.low < 1000 < interval.high
    assert [cells(plot, f"php_rps{end}")[at_20] for end in ("", "_low", "_high")] == [
        r.figure(e1b.base("php", 20), "requests_per_s"), interval.low, interval.high]
    assert cells(plot, "post_php_rps") == [None, 1173, 1146]
    assert cells(plot, "post_node_rps") == [None, 119, 114]
    real, models = plot.panels
    assert [line.column for line in real.lines] == ["php_rps", "node_rps", "post_php_rps",
                                                    "post_node_rps"]
    assert [line.column for line in models.lines][:2] == ["blocking_rps", "async_rps"]
    marks = [line for line in real.lines if line.column.startswith("post_")]
    assert all(line.style == "points" and "the post's (4 cores, 2011)" in line.title
               for line in marks)
    assert marks[0].color == next(line.color for line in real.lines if line.column == "php_rps")


def test_e1b_latency_has_a_panel_per_server_on_one_scale_and_one_key():
    plot = by_name(e1b.plots(results(*e1b_records())))["e1b-latency"]
    assert [panel.title for panel in plot.panels] == ["php", "blocking", "node", "async"]
    assert len({(panel.ymin, panel.ymax) for panel in plot.panels}) == 1
    assert sum(panel.key != "off" for panel in plot.panels) == 1
    p50, mean, p99, post = plot.panels[0].lines
    assert (p50.title, p99.title) == ("p50", "p99") and p50.color != p99.color
    assert post.column == "post_php_mean" and cells(plot, "post_node_mean") == [None, 167, 1750]


@pytest.mark.parametrize("tool", ["ab", "wrk"])
def test_e1b_plots_name_the_load_tool_that_ran(tool):
    other = {"ab": "wrk", "wrk": "ab"}[tool]
    for plot in e1b.plots(results(*e1b_records(tool))):
        text = plot.title + "".join(panel.xlabel for panel in plot.panels)
        assert f"under {tool}" in plot.title and f"({tool} -c)" in text and other not in text


def write_spectra(directory, key, per_block):
    """raw/ID.ab-percentiles.csv of key's -c 200 runs: ms = percent × the block's factor."""
    os.makedirs(directory / "raw", exist_ok=True)
    for block, factor in enumerate(per_block, 1):
        lines = ["Percentage served,Time in ms"] + [f"{p},{p * factor:.3f}" for p in range(101)]
        (directory / "raw" / f"{e1b.base(key, 200)}-b{block}.{ab.PERCENTILES}").write_text(
            "\n".join(lines) + "\n")


def test_the_spectrum_is_the_median_of_the_blocks_at_each_percent(tmp_path):
    assert e1b.SPECTRUM not in by_name(e1b.plots(results(*e1b_records(),
                                                         directory=str(tmp_path))))
    write_spectra(tmp_path, "php", [1.0, 2.0, 3.0, 2.5])
    plot = by_name(e1b.plots(results(*e1b_records(), directory=str(tmp_path))))[e1b.SPECTRUM]
    assert plot.columns == ["percent", "php", "php_low", "php_high"]
    assert len(plot.rows) == 101 and plot.rows[50][:2] == [50, 112.5]  # 50 × median(1, 2, 3, 2.5)
    assert plot.rows[50][2] < 112.5 < plot.rows[50][3]
    assert plot.panels[0].lines[0].band


def test_ab_spectrum_wants_every_percent_ascending():
    rows = "\n".join(f"{p},{p / 10}" for p in range(101))
    assert ab.spectrum("Percentage served,Time in ms\n" + rows)[99] == 9.9
    assert ab.spectrum("Percentage served,Time in ms\n" + rows.replace("99,9.9", "99,0")) == {}


def test_the_posts_table_is_the_plots_figures():
    text = e1b.post_table()
    assert "| requests/s | 1173 | 1146 | 119 | 114 |" in text
    assert "| response time (ms) | 17 | 174 | 167 | 1750 |" in text


@pytest.mark.skipif(not shutil.which("gnuplot"), reason="no gnuplot")
def test_gnuplot_draws_the_plots(tmp_path):
    write_spectra(tmp_path, "node", [1.0, 1.5])
    r = results(*e1b_records(), *sweep("php", 1000, [CALM] * 2), *sweep("node", 1000, [STEEP] * 2),
                directory=str(tmp_path))
    drawn = e1b.plots(r) + e7.plots(r) + [cpu_split(r)]
    assert plots.render(str(tmp_path), drawn) == []
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".png")) == sorted(
        f"{plot.name}.png" for plot in drawn)
