"""PNG plots that experiments declare, drawn by gnuplot: a Plot is a table of named columns
(plots/NAME.tsv) and panels of lines naming the columns they draw. Data and script (plots/NAME.gp)
stay in the results directory, to restyle and redraw a plot by hand with `gnuplot plots/NAME.gp`."""

import os
import subprocess
from dataclasses import dataclass, field

TERMINAL = "set terminal pngcairo size {w},{h} font 'sans,10'"


@dataclass
class Line:
    """A column drawn as a line (or, in a stacked panel, a bar segment)."""

    column: str
    title: str
    color: str
    dash: int = 1
    width: float = 2
    point: int = 7


@dataclass
class Panel:
    """One graph. x: the x axis' column (with categories: labels, the rows evenly spaced in their
    order). marks: (x position, label) vertical lines. stacked: a bar of stacked lines per row."""

    title: str
    x: str
    lines: list
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False
    ymin: object = 0
    categories: bool = False
    stacked: bool = False
    marks: list = field(default_factory=list)
    key: str = "outside right top"


@dataclass
class Plot:
    """NAME.png: its data (columns, rows; None a missing point), panels (layout: rows × columns)."""

    name: str
    columns: list
    rows: list
    panels: list
    title: str = ""
    layout: tuple = (1, 1)
    size: tuple = (900, 560)

    def data(self):
        def cell(value):
            if value is None:
                return "-"
            return f'"{value}"' if isinstance(value, str) else f"{value:g}"
        return "\n".join(["\t".join(self.columns)]
                         + ["\t".join(map(cell, row)) for row in self.rows]) + "\n"

    def script(self):
        data = f"plots/{self.name}.tsv"
        out = [TERMINAL.format(w=self.size[0], h=self.size[1]), f"set output '{self.name}.png'",
               "set datafile separator '\\t'", "set datafile missing '-'",
               "set datafile columnheaders", "set grid"]
        multiplot = len(self.panels) > 1 or self.title
        if multiplot:
            out.append(f"set multiplot layout {self.layout[0]},{self.layout[1]} title "
                       f"'{self.title}'")
        out += [line for panel in self.panels for line in panel_script(panel, data)]
        return "\n".join(out + (["unset multiplot"] if multiplot else [])) + "\n"


def panel_script(panel, data):
    out = [f"set title '{panel.title}'", f"set xlabel '{panel.xlabel}'",
           f"set ylabel '{panel.ylabel}'", f"set key {panel.key}",
           "set logscale x" if panel.logx else "unset logscale x",
           "set logscale y" if panel.logy else "unset logscale y",
           f"set yrange [{'' if panel.ymin is None else panel.ymin}:*]",
           "unset arrow", "unset label"]
    for n, (x, text) in enumerate(panel.marks, 1):
        out += [f"set arrow {n} from {x}, graph 0 to {x}, graph 1 nohead dt 3 lc rgb '#555555'",
                f"set label {n} '{text}' at {x}, graph {0.97 - 0.06 * n:.2f} left offset 0.5,0 "
                "font ',8'"]
    if panel.stacked:
        out += ["set style data histograms", "set style histogram rowstacked",
                "set style fill solid 0.85 border -1", "set boxwidth 0.7",
                "set xtics rotate by -30"]
        plots = [f"'{data}' using \"{line.column}\"{':xtic(1)' if i == 0 else ''} "
                 f"title '{line.title}' lc rgb '{line.color}'"
                 for i, line in enumerate(panel.lines)]
    else:
        def using(column):
            if panel.categories:
                return f'($0):"{column}":xtic(stringcolumn("{panel.x}"))'
            return f'"{panel.x}":"{column}"'
        plots = [f"'{data}' using {using(line.column)} with linespoints lw {line.width} "
                 f"dt {line.dash} pt {line.point} lc rgb '{line.color}' title '{line.title}'"
                 for line in panel.lines]
    out.append("plot " + ", \\\n     ".join(plots))
    return out


def render(directory, plots):
    """Writes each plot with a line to draw to plots/ and runs gnuplot in directory: the errors."""
    os.makedirs(os.path.join(directory, "plots"), exist_ok=True)
    errors = []
    for plot in plots:
        if not plot.rows or not any(panel.lines for panel in plot.panels):
            continue
        for suffix, text in (("tsv", plot.data()), ("gp", plot.script())):
            with open(os.path.join(directory, "plots", f"{plot.name}.{suffix}"), "w") as f:
                f.write(text)
        result = subprocess.run(["gnuplot", os.path.join("plots", f"{plot.name}.gp")],
                                capture_output=True, text=True, timeout=60, cwd=directory)
        if result.returncode != 0:
            errors.append(f"gnuplot {plot.name}: {result.stderr.strip()}")
    return errors
