"""report.html: report.md as one page that needs nothing else, to open in a browser or mail as
one file: its tables as HTML tables, its plots inside it as data: URIs, no link to fetch."""

import base64
import html
import os
import re

import markdown

STYLE = """
body { font: 15px/1.45 sans-serif; margin: 1.5em auto; max-width: 1400px; padding: 0 1em;
       color: #1c2833; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 13px; }
th, td { border: 1px solid #ccd1d1; padding: 2px 6px; vertical-align: top; text-align: left; }
th { background: #f2f3f4; }
tr:nth-child(even) td { background: #fbfcfc; }
code { font-size: 90%; }
img { max-width: 100%; }
strong.reproduced { color: #1e8449; }
strong.not-reproduced { color: #c0392b; }
strong.inconclusive { color: #b9770e; }
strong.not-measured { color: #7f8c8d; }
"""
# The verdicts, coloured so that the table reads at a glance (report.verdicts.VERDICTS).
VERDICT = re.compile(r"<strong>(reproduced|not reproduced|inconclusive|not measured)</strong>")
IMAGE = re.compile(r'(<img [^>]*src=")([^":]+\.png)(")')


def inline_image(directory, match):
    """An <img>'s src as the PNG's bytes; a PNG that is not there stays a link, which shows."""
    path = os.path.join(directory, match.group(2))
    if not os.path.exists(path):
        return match.group(0)
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    return f"{match.group(1)}data:image/png;base64,{data}{match.group(3)}"


def page(directory, text):
    """The page of report.md's text, its images read from directory."""
    body = markdown.markdown(text, extensions=["tables", "toc"])
    body = VERDICT.sub(lambda m: f'<strong class="{m.group(1).replace(" ", "-")}">'
                       f"{m.group(1)}</strong>", body)
    body = IMAGE.sub(lambda m: inline_image(directory, m), body)
    title = html.escape(text.split("\n", 1)[0].lstrip("# "))
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n"
            "</body>\n</html>\n")


def write(directory, text):
    with open(os.path.join(directory, "report.html"), "w") as f:
        f.write(page(directory, text))
