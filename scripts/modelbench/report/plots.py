"""PNG plots that experiments declare, drawn by gnuplot: a Plot is a table of named columns
(plots/NAME.tsv) and panels of lines naming the columns they draw. Data and script (plots/NAME.gp)
stay in the results directory, to restyle and redraw a plot by hand with `gnuplot plots/NAME.gp`."""

import os
import subprocess
from dataclasses import dataclass, field

TERMINAL = "set terminal pngcairo size {w},{h} font 'sans,10'"
STYLES = ("linespoints", "lines", "points")
BAND_OPACITY = 0.18  # an interval's band: light enough that the bands of other lines show through
CLOSE_MARKS = 0.03  # of the x axis: two marks' labels closer than this would overlap
BAR_HALF_HEIGHT = 0.35  # a stacked panel's bars, in rows


@dataclass
class Line:
    """A column drawn as a line through its points (style: linespoints, lines or points; in a
    stacked panel, a bar segment). low and high: the columns of its interval, drawn as error bars
    at its points, or as a shaded band around it (band)."""

    column: str
    title: str
    color: str
    dash: int = 1
    width: float = 2
    point: int = 7
    style: str = "linespoints"
    low: str = ""
    high: str = ""
    band: bool = False
    point_size: float = 1

    def __post_init__(self):
        if self.style not in STYLES:
            raise ValueError(f"line style {self.style!r}: not one of {', '.join(STYLES)}")


@dataclass
class Panel:
    """One graph. x: the x axis' column (with categories: labels, the rows evenly spaced in their
    order). marks: (x position, label) vertical lines. stacked: a horizontal bar of stacked lines
    per row, the rows top to bottom, labelled by x's column; its values run along the x axis
    (xlabel, ymin to ymax). dodge (categories): the distance between the points of neighbouring
    lines that have an interval, so that their error bars stand side by side. bottom: the margin
    under the graph in lines of text (0: what it needs): panels side by side with keys below of
    different heights keep graphs of one height."""

    title: str
    x: str
    lines: list
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False
    ymin: object = 0
    ymax: object = None
    categories: bool = False
    stacked: bool = False
    dodge: float = 0
    marks: list = field(default_factory=list)
    key: str = "outside right top"
    bottom: int = 0


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
                       f"{quoted(self.title)}")
        out += [line for panel in self.panels for line in panel_script(
                    panel, data, [row[self.columns.index(panel.x)] for row in self.rows])]
        return "\n".join(out + (["unset multiplot"] if multiplot else [])) + "\n"


def quoted(text):
    """text as a gnuplot string ('the post''s')."""
    return "'" + text.replace("'", "''") + "'"


def axis_range(low, high):
    return f"[{'*' if low is None else low}:{'*' if high is None else high}]"


def tics(labels):
    """gnuplot's tics of labels at 0, 1, 2, ... (the rows of categories)."""
    return "(" + ", ".join(f"{quoted(str(label))} {n}" for n, label in enumerate(labels)) + ")"


def panel_script(panel, data, xs):
    """panel's gnuplot commands; xs: the rows' values of its x column."""
    out = [f"set title {quoted(panel.title)}", f"set xlabel {quoted(panel.xlabel)}",
           f"set ylabel {quoted(panel.ylabel)}", f"set key {panel.key}",
           f"set bmargin {panel.bottom}" if panel.bottom else "set bmargin",
           "set logscale x" if panel.logx else "unset logscale x",
           "set logscale y" if panel.logy else "unset logscale y",
           "unset arrow", "unset label"]
    # Each mark's label runs up along its line, so that it stays inside the graph wherever the
    # line is; a mark close to the one before has its label on the other side of its line.
    previous, side = None, 1
    if panel.marks:
        span = len(xs) if panel.categories else max(map(float, xs)) - min(map(float, xs))
        close = CLOSE_MARKS * span
    for n, (x, text) in enumerate(sorted(panel.marks, key=lambda mark: float(mark[0])), 1):
        side = -side if previous is not None and float(x) - previous < close else 1
        previous = float(x)
        out += [f"set arrow {n} from {x}, graph 0 to {x}, graph 1 nohead dt 3 lc rgb '#555555'",
                f"set label {n} {quoted(text)} at {x}, graph 0.98 right rotate by 90 "
                f"offset {-0.6 if side > 0 else 1.4},0 font ',8'"]
    if panel.stacked:
        return out + stacked_script(panel, data, xs)
    # Categories: half a step of room around the first and the last.
    out += ([f"set xrange [-0.5:{len(xs) - 0.5}]", f"set xtics {tics(xs)}"]
            if panel.categories else ["set xrange [*:*]", "set xtics autofreq"])
    out += [f"set yrange {axis_range(panel.ymin, panel.ymax)}", "set ytics autofreq",
            "set ytics scale default", "set grid xtics ytics"]
    spread = [line for line in panel.lines if line.low and line.high]  # those with an interval
    elements = []
    for line in panel.lines:
        offset = (panel.dodge * (spread.index(line) - (len(spread) - 1) / 2)
                  if line in spread else 0)
        elements += line_elements(panel, line, offset, data)
    out.append("plot " + ", \\\n     ".join(elements))
    return out


def line_elements(panel, line, offset, data):
    """The plot elements of a line: its interval (no key entry) under its points."""
    x = f"($0{offset:+g})" if panel.categories else f'"{panel.x}"'
    colour = f"lc rgb '{line.color}'"
    out = []
    if line.low and line.high and line.band:
        out.append(f'\'{data}\' using {x}:"{line.low}":"{line.high}" with filledcurves '
                   f"fs transparent solid {BAND_OPACITY} noborder {colour} notitle")
    elif line.low and line.high:
        out.append(f'\'{data}\' using {x}:"{line.column}":"{line.low}":"{line.high}" with '
                   f"yerrorbars lw 1 pt -1 {colour} notitle")
    look = {"linespoints": f"lw {line.width} dt {line.dash} pt {line.point} ps {line.point_size}",
            "lines": f"lw {line.width} dt {line.dash}",
            "points": f"pt {line.point} ps {line.point_size} lw {line.width}"}[line.style]
    out.append(f'\'{data}\' using {x}:"{line.column}" with {line.style} {look} {colour} '
               f"title {quoted(line.title)}")
    return out


def stacked_script(panel, data, xs):
    """Each line a segment of the rows' bars, after the segments of the lines before it."""
    out = [f"set yrange [{len(xs) - 0.5}:-0.5]", f"set ytics {tics(xs)}", "set ytics scale 0",
           "set xtics autofreq",
           f"set xrange {axis_range(panel.ymin, panel.ymax)}", "set grid noytics xtics",
           "set style fill solid 0.85 border -1"]
    elements, before = [], "0"
    for line in panel.lines:
        own = f'column("{line.column}")'
        elements.append(f"'{data}' using ({before}+{own}/2):0:({own}/2):({BAR_HALF_HEIGHT}) "
                        f"with boxxyerror lc rgb '{line.color}' title {quoted(line.title)}")
        before += f"+{own}"
    return out + ["plot " + ", \\\n     ".join(elements)]


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
