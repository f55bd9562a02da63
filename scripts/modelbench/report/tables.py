"""Figures and Markdown tables, as the reports print them."""


def fmt(value, digits=1, scale=1.0, suffix=""):
    """A figure for a table cell: 1234.5 -> '1,234.5'; '–' when it was not measured."""
    return "–" if value is None or value == "" else f"{value * scale:,.{digits}f}{suffix}"


def cell(text):
    """Text for a table cell: a '|' in it would end the cell."""
    return str(text).replace("|", "\\|")


def table(header, rows):
    """A Markdown table: the header row, then one row per list of cells."""
    lines = ["| " + " | ".join(cell(c) for c in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ratio_cell(spread):
    """A ratio over repetitions (a modelbench.repeats.Spread): '×1.41 (×1.26–×1.52)', '×1.41'
    when they agree to two digits, '–' when it was not measured."""
    if spread is None:
        return "–"
    if spread.count == 1 or f"{spread.low:.2f}" == f"{spread.high:.2f}":
        return f"×{spread.median:.2f}"
    return f"×{spread.median:.2f} (×{spread.low:.2f}–×{spread.high:.2f})"


def spread_cell(spread, digits=1):
    """A figure over the rounds: '1,040.2 (1,010.0–1,090.7)', its median alone when the rounds
    agree, '–' when not measured."""
    if spread is None:
        return "–"
    if spread.count == 1 or spread.low == spread.high:
        return fmt(spread.median, digits)
    return f"{fmt(spread.median, digits)} ({spread.low:,.{digits}f}–{spread.high:,.{digits}f})"


def range_cell(spread, digits=1):
    """'1,040.2–1,090.7' over the rounds ('' for a single run, '–' when not measured)."""
    if spread is None:
        return "–"
    return "" if spread.count == 1 else f"{spread.low:,.{digits}f}–{spread.high:,.{digits}f}"
