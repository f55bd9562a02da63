"""Adding a system, an experiment or a load tool is adding a module each and naming it in its
list: a throw-away system (a small Python HTTP server), a throw-away load tool (GETs one after
the other from a Python command, its own parser and summary) and a throw-away experiment (ab and
that tool on its /hello, one claim, one plot) run with --smoke through the real engine, and come
out in report.md, summary.json, results.csv and the plots, with nothing else edited for them."""

import importlib.util
import json
import os
import re
import textwrap

import psutil
import pytest

from modelbench import __main__ as entry
from modelbench import experiments, reproduce, systems
from modelbench.engine import loads

SERVER = r'''
import http.server, signal, socketserver, sys

host, port = sys.argv[sys.argv.index("--listen") + 1].rsplit(":", 1)


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"Hello World! 10\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 128


server = Server((host, int(port)), Hello)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
print(f"listening on http://{host}:{server.server_address[1]}/", flush=True)
try:
    server.serve_forever()
finally:
    server.server_close()
'''

SYSTEM = '''
import sys
from modelbench.systems.base import System

SYSTEM = System(name="throwaway", title="a throw-away server", side="async", real=True,
                port=18999, needs=(), launcher=lambda checkout: [sys.executable, {server!r}],
                version=lambda checkout: "throwaway 1.0", endpoints=("/hello",))
'''

TOOL = '''
import sys
from modelbench.engine.loads.base import Generator, ParseError
from modelbench.engine.measure import read

GETS = """
import sys, time, urllib.request
url, n = sys.argv[1], int(sys.argv[2])
started, failed = time.monotonic(), 0
for _ in range(n):
    try:
        urllib.request.urlopen(url, timeout=10).read()
    except OSError:
        failed += 1
print(f"GETS {n - failed} {failed} {time.monotonic() - started:.6f}")
"""


class Gets(Generator):
    name = "gets"

    def text(self, load):
        return f"{load.n} GETs of {load.path} one after the other"

    def command(self, attempt, url):
        return [sys.executable, "-c", GETS, url, str(attempt.load.n)]

    def figures(self, attempt, stdout, stderr, sampled):
        fields = read(stdout).split()
        if fields[:1] != ["GETS"]:
            raise ParseError("no GETS line")
        complete, failed, seconds = int(fields[1]), int(fields[2]), float(fields[3])
        return {"complete": complete, "failed": failed,
                "requests_per_s": round(complete / seconds, 2)}

    def summary(self, figures):
        return f"throw-away tool: {figures['complete']} GETs, {figures['failed']} failed"

'''

EXPERIMENT = '''
from modelbench.engine.plan import Group, Load, Run
from modelbench.experiments.base import concurrency_point, figures, part
from modelbench.report.plots import Line, Panel, Plot
from modelbench.report.tables import fmt, table
from modelbench.report.verdicts import Claim, at_least, judged, needs

KEY = "X1"
TITLE = "X1 — a throw-away experiment"
IN_DEFAULT = False


def plan(ctx):
    servers = ctx.servers(["throwaway"], needs="/hello")
    load, cut = Load("ab", "/hello", 5, n=300), Load("ab", "/hello", 5, n=100000, seconds=1)
    gets = Load("gets", "/hello", n=50)
    return [part(ctx, [Group([Run(f"x1-{s.key}", f"X1 {s.key}: {load.text()}", KEY, s, load),
                              Run(f"x1-cut-{s.key}", f"X1 {s.key}: {cut.text()}", KEY, s, cut),
                              Run(f"x1-gets-{s.key}", f"X1 {s.key}: {gets.text()}", KEY, s,
                                  gets)])
                       for s in servers])]


def section(results):
    if not results.has("x1-throwaway"):
        return ""
    return "\\n".join([f"## {TITLE}", "", table(["", "requests/s"], [
        ["throwaway", fmt(results.figure("x1-throwaway", "requests_per_s"))]]), ""])


def claims(results):
    interval = results.interval("x1-throwaway", "requests_per_s")
    real = needs("x1-throwaway") if interval is None else judged(
        f"{interval.text(0)} req/s", at_least(interval, 1), lambda: "it answered nothing",
        interval, ["x1-throwaway"])
    return [Claim("X1 answers", "The throw-away server answers", "at least 1 request/s", real,
                  needs("a model"))]


def plots(results):
    rate = results.figure("x1-throwaway", "requests_per_s")
    return [Plot("x1-rate", ["run", "rate"], [["x1", rate]],
                 [Panel("X1", "run", [Line("rate", "throwaway", "#c0392b")], categories=True)])]


def headline(results):
    return figures(results, [("X1 throwaway requests/s", "x1-throwaway",
                              concurrency_point(results, "x1-throwaway"))],
                   "requests_per_s", 1)


def pair_rows(results, model, real):
    return []
'''


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def throwaway(tmp_path, monkeypatch):
    server = tmp_path / "hello_server.py"
    server.write_text(SERVER)
    (tmp_path / "throwaway_system.py").write_text(SYSTEM.format(server=str(server)))
    (tmp_path / "throwaway_experiment.py").write_text(textwrap.dedent(EXPERIMENT))
    (tmp_path / "throwaway_tool.py").write_text(TOOL)
    system = load_module(tmp_path / "throwaway_system.py", "throwaway_system")
    tool = load_module(tmp_path / "throwaway_tool.py", "throwaway_tool")
    experiment = load_module(tmp_path / "throwaway_experiment.py", "throwaway_experiment")
    monkeypatch.setattr(systems, "ALL", [*systems.ALL, system.SYSTEM])
    monkeypatch.setitem(loads.ALL, "gets", tool.Gets())
    monkeypatch.setattr(experiments, "ALL", [*experiments.ALL, experiment])
    return str(server)


def test_listed(throwaway, capsys):
    assert entry.main(["reproduce", "--list", "--only", "X1", "--servers", "throwaway"]) == 0
    assert "| X1 | 4 | 12 |" in capsys.readouterr().out  # three runs, four blocks by default


def test_the_time_for_undecided_comparisons_is_beyond_the_plan(throwaway, capsys):
    """By default 3 minutes after the planned runs, however long they take; --minutes M is the
    whole run's; --smoke adds none."""
    only = ["--only", "X1", "--servers", "throwaway"]
    planned = re.compile(r"about \d+ minutes of runs(?:; then at most ([\d.]+) minutes of blocks "
                         r"for the comparisons still undecided|; then blocks for the comparisons "
                         r"still undecided until ([\d.]+) minutes)?")

    def listed(*flags):
        assert entry.main(["reproduce", "--list", *only, *flags]) == 0
        return planned.search(capsys.readouterr().out).groups()

    assert listed() == (str(reproduce.MORE_MINUTES["default"]), None)
    assert listed("--minutes", "30") == (None, "30")
    assert listed("--smoke") == (None, None) and listed("--minutes", "0") == (None, None)


def test_run_through_the_engine(throwaway, tmp_path, capsys):
    results = tmp_path / "results"
    status = entry.main(["reproduce", "--smoke", "--only", "X1", "--servers", "throwaway",
                         "--results-dir", str(results)])
    assert status == 0
    record = json.loads((results / "runs" / "x1-throwaway-b1.json").read_text())
    assert record["status"] == "ok", record.get("cause")
    assert record["figures"]["complete"] == 300 and record["figures"]["requests_per_s"] > 0
    # A time and a cap: ab is cut at the time, far from the cap.
    cut = json.loads((results / "runs" / "x1-cut-throwaway-b1.json").read_text())
    assert " -t 1 -n 100000 " in cut["command"] and 0 < cut["figures"]["complete"] < 100000
    assert record["figures"]["server_cpu_s"] >= 0 and record["warmup"]["slices"]
    # The throw-away tool: its command, its figures parsed, the server sampled, its summary line.
    gets = json.loads((results / "runs" / "x1-gets-throwaway-b1.json").read_text())
    assert gets["status"] == "ok" and gets["tool"] == "gets", gets.get("cause")
    assert gets["figures"]["complete"] == 50 and gets["figures"]["failed"] == 0
    assert gets["figures"]["requests_per_s"] > 0 and gets["figures"]["server_cpu_s"] >= 0
    assert "throw-away tool: 50 GETs, 0 failed" in capsys.readouterr().out
    report = (results / "report.md").read_text()
    assert "## X1 — a throw-away experiment" in report and "| X1 answers |" in report
    summary = json.loads((results / "summary.json").read_text())
    claim = {c["key"]: c for c in summary["claims"]}["X1 answers"]
    # One smoke block: an estimate, no interval; inconclusive.
    assert claim["real"]["statistic"]["estimate"] > 0 and claim["real"]["statistic"]["n"] == 1
    assert claim["real"]["verdict"] == "inconclusive"
    figure, = summary["headline"]
    assert figure["name"] == "X1 throwaway requests/s" and figure["value"] > 0
    assert summary["versions"]["systems"]["throwaway"] == "throwaway 1.0"
    assert "x1-throwaway-b1" in (results / "results.csv").read_text()
    assert os.path.getsize(results / "x1-rate.png") > 0
    left = [p for p in psutil.process_iter(["cmdline"]) if throwaway in (p.info["cmdline"] or [])]
    assert left == [], "the throw-away server outlived the run"
