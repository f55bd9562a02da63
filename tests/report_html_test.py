"""CTest `report_html`: `scripts/reproduce.sh --report` on a copy of a recorded smoke run
(tests/data/smoke-run: its runs/ and settings, no tool outputs) writes report.html beside
report.md, and headless Chromium renders it:
  - the page names nothing outside itself (every src a data: URI, every href an anchor);
  - once loaded, every <img> has its picture (naturalWidth > 0), and there are some;
  - the verdict table is there, a row per claim of summary.json with its key and verdicts.
Without chromium it fails, it does not skip: scripts/deps.sh test installs it.

  report_html_test.py SOURCE_DIR
"""

import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

CHROMIUM_S = 60
# Appended to a copy of the page: on load, what rendered, as JSON in a <pre id="probe">.
PROBE = """
<script>
addEventListener("load", () => {
  const images = Array.from(document.images);
  let table = document.getElementById("verdicts");
  while (table && table.tagName !== "TABLE") table = table.nextElementSibling;
  const rows = table ? Array.from(table.tBodies[0].rows) : [];
  const probe = document.createElement("pre");
  probe.id = "probe";
  probe.textContent = JSON.stringify({
    images: images.length,
    loaded: images.filter(image => image.complete && image.naturalWidth > 0).length,
    verdicts: rows.map(row => Array.from(row.cells, cell => cell.textContent.trim()))});
  document.body.append(probe);
});
</script>
"""

problems = []


def expect(condition, message):
    if not condition:
        problems.append(message)


def rendered(page, profile):
    """What the probe found in page once Chromium loaded it, {} when it did not say."""
    command = ["nice", "-n", "19", "chromium", "--headless", "--disable-gpu", "--no-sandbox",
               f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--dump-dom",
               f"file://{page}"]
    # Its own session, so that a Chromium that hangs is stopped with all its processes.
    chromium = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
    try:
        out, err = chromium.communicate(timeout=CHROMIUM_S)
    except subprocess.TimeoutExpired:
        os.killpg(chromium.pid, signal.SIGKILL)
        out, err = chromium.communicate()
        expect(False, f"chromium did not finish within {CHROMIUM_S} s")
    expect(chromium.returncode == 0, f"chromium exited with {chromium.returncode}: {err[-2000:]}")
    found = re.search(r'<pre id="probe">(.*?)</pre>', out, re.DOTALL)
    expect(found, "the probe did not run: no <pre id=\"probe\"> in Chromium's DOM")
    return json.loads(html.unescape(found.group(1))) if found else {}


def check_page(text):
    """report.html needs nothing but itself."""
    sources = re.findall(r'\bsrc="([^"]*)"', text)
    links = re.findall(r'\bhref="([^"]*)"', text)
    expect(all(s.startswith("data:image/png;base64,") for s in sources),
           f"report.html: an image not inside the page: {[s[:60] for s in sources]}")
    expect(all(link.startswith("#") for link in links),
           f"report.html: a link out of the page: {[x for x in links if not x.startswith('#')]}")


def check_render(found, claims):
    expect(found.get("images", 0) > 0, f"report.html: no image rendered: {found}")
    expect(found.get("loaded") == found.get("images"),
           f"report.html: {found.get('loaded')} of {found.get('images')} images loaded")
    rows = found.get("verdicts", [])
    expect(len(rows) == len(claims) > 0,
           f"report.html: {len(rows)} rows in the verdict table, {len(claims)} claims")
    for row, claim in zip(rows, claims):
        # The claim, the real systems' verdict and statistic, the models' verdict and statistic.
        expect(len(row) == 5 and row[0] == claim["key"] and
               row[1].startswith(claim["real"]["verdict"]) and
               row[3].startswith(claim["models"]["verdict"]),
               f"report.html's verdict row {row} is not summary.json's {claim['key']}")


def main():
    source = sys.argv[1]
    if shutil.which("chromium") is None:
        print("report_html: chromium is missing (scripts/deps.sh test installs it)")
        return 1
    with tempfile.TemporaryDirectory(prefix="report-html-") as scratch:
        directory = os.path.join(scratch, "run")
        shutil.copytree(os.path.join(source, "tests", "data", "smoke-run"), directory)
        report = subprocess.run(["bash", os.path.join(source, "scripts", "reproduce.sh"),
                                 "--report", directory], capture_output=True, text=True)
        if report.returncode != 0:
            print(f"reproduce.sh --report failed ({report.returncode}):\n{report.stdout}"
                  f"{report.stderr}")
            return 1
        with open(os.path.join(directory, "report.html")) as f:
            text = f.read()
        with open(os.path.join(directory, "summary.json")) as f:
            claims = json.load(f)["claims"]
        check_page(text)
        page = os.path.join(scratch, "probe.html")
        with open(page, "w") as f:
            f.write(text.replace("</body>", PROBE + "</body>"))
        check_render(rendered(page, os.path.join(scratch, "profile")), claims)
    for problem in problems:
        print("FAIL:", problem)
    print("report_html:", "FAILED" if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
