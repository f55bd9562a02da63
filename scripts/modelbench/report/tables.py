"""Figures and Markdown tables, as the reports print them."""


def fmt(value, digits=1, scale=1.0, suffix=""):
    """A figure for a table cell: 1234.5 -> '1,234.5'; '–' when it was not measured."""
    return "–" if value is None or value == "" else f"{value * scale:,.{digits}f}{suffix}"


def table(header, rows):
    """A Markdown table: the header row, then a row per list of cells (a '|' would end a cell)."""
    lines = ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |"
             for row in [header, *rows]]
    return "\n".join([lines[0], "|" + "---|" * len(header), *lines[1:]])


def interval_cell(interval, digits=1, prefix=""):
    """'1,040.2 [1,010.0–1,090.7]' (the table says the level), '×1.41 [×1.26–×1.52]' with prefix
    '×', '1,040.2 (n=1)' without an interval, '–' when not measured."""
    if interval is None:
        return "–"
    if interval.n == 0:
        return f"– (all {interval.left_out} blocks left out)"
    estimate = f"{prefix}{interval.estimate:,.{digits}f}"
    if not interval.bounded:
        return f"{estimate} (n={interval.n})"
    return (f"{estimate} [{prefix}{interval.low:,.{digits}f}–{prefix}{interval.high:,.{digits}f}]")
