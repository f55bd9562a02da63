"""slowhttptest 1.8.2, which the stress verb runs itself (not a Load): command and figures."""

import re

from modelbench.engine.loads.base import ParseError

# Its attacks: its flag and the options each needs. Slow body sends a GET with a body (the
# servers answer POST with 405 before reading one); slow read asks for /html (32 KiB) with a
# receive window of at most 64 bytes.
MODES = {"slow headers": ["-H"], "slow body": ["-B", "-t", "GET", "-s", "8192"],
         "slow read": ["-X", "-k", "1", "-n", "1", "-w", "1", "-y", "64", "-z", "32"]}


def command(mode, url, connections, length_s, report_prefix):
    """slowhttptest MODE: `connections` connections opened within a tenth of a second (-r is per
    second), a follow-up every second, for at most length_s; its counts in REPORT_PREFIX.csv."""
    return ["slowhttptest", *MODES[mode], "-c", str(connections), "-r", str(10 * connections),
            "-i", "1", "-l", str(length_s), "-p", "3", "-g", "-o", report_prefix, "-u", url]


def parse(csv_text, output_text):
    """From its CSV (a row per second: closed, pending, connected, probe answered) and its
    output's end: the most connected, seconds run and unavailable, and why it ended."""
    lines = (line.split(",") for line in csv_text.splitlines()[1:])
    rows = [[int(c) for c in cells] for cells in lines
            if len(cells) == 5 and all(c.strip().isdigit() for c in cells)]
    if not rows:
        raise ParseError("slowhttptest wrote no CSV rows")
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", output_text)
    ended = re.search(r"^Exit status:\s*(.+?)\s*$", plain, re.MULTILINE)
    return {"seconds": rows[-1][0], "peak_connected": max(r[3] for r in rows),
            "unavailable_s": sum(1 for r in rows if r[4] == 0),
            "exit_status": ended.group(1) if ended else "no exit status"}
