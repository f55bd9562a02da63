"""The engine's server lifecycle and recorded runs, as stress uses them: a server started and held
through Engine.start, a load recorded on it with Engine.record, and the checks of a clean stop
(exit status 0 on SIGTERM, no process of its tree left behind), whose failures go to steps.tsv."""

import json
import sys

import pytest

from modelbench.engine.engine import Engine
from modelbench.engine.plan import Load
from modelbench.engine.recorder import Recorder
from modelbench.systems.base import Server, System

# A server that answers /hello and ends on SIGTERM with --exit-status (0 by default); with
# --child it starts a process that ignores SIGTERM and outlives it.
SERVER = r'''
import http.server, signal, subprocess, sys

args = sys.argv
host, port = args[args.index("--listen") + 1].rsplit(":", 1)
status = int(args[args.index("--exit-status") + 1]) if "--exit-status" in args else 0
if "--child" in args:
    subprocess.Popen([sys.executable, "-c", "import signal, time; "
                      "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"])


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "6")
        self.end_headers()
        self.wfile.write(b"Hello\n")

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer((host, int(port)), Hello)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(status))
print(f"listening on http://{host}:{server.server_address[1]}/", flush=True)
server.serve_forever()
'''


@pytest.fixture
def engine(tmp_path):
    return Engine(str(tmp_path), None, Recorder(str(tmp_path), None, log=lambda line: None),
                  log=lambda line: None)


@pytest.fixture
def hello(tmp_path):
    path = tmp_path / "hello.py"
    path.write_text(SERVER)
    system = System(name="hello", title="hello", side="async", real=False, port=0, needs=(),
                    launcher=lambda checkout: [sys.executable, str(path)],
                    version=lambda checkout: "")
    return Server(system, "hello")


def steps(tmp_path):
    return [line.split("\t") for line in (tmp_path / "steps.tsv").read_text().splitlines()]


def test_a_held_server_records_a_load_and_stops_cleanly(engine, hello, tmp_path):
    held = engine.start(hello, "s-hello")
    assert held.target is not None and held.target.running(), held.cause
    record = engine.record("s-hello-ab", {"experiment": "stress"}, held.target,
                           Load("ab", "/hello", 2, n=50))
    assert record["status"] == "ok" and record["figures"]["complete"] == 50
    assert json.loads((tmp_path / "runs" / "s-hello-ab.json").read_text())["status"] == "ok"
    held.stack.close()
    assert not held.target.running()
    assert held.stop_failures == [] and steps(tmp_path) == []


def test_an_unclean_stop_fails_the_last_run(engine, hello, tmp_path):
    held = engine.start(hello, "s-hello", ("--exit-status", "3"))
    held.stack.close()
    assert held.stop_failures == ["the server exited with status 3 on SIGTERM"]
    assert [row[:3] for row in steps(tmp_path)] == [["s-hello", "failed", held.stop_failures[0]]]
    held.stack.close()  # stopped once: nothing more
    assert len(steps(tmp_path)) == 1


def test_a_process_left_behind_fails_the_stop(engine, hello, tmp_path):
    held = engine.start(hello, "s-hello", ("--child",))
    held.stack.close()
    assert len(held.stop_failures) == 1
    assert held.stop_failures[0].startswith("the server left processes of its tree behind")


def test_a_failed_start_or_run_says_why(engine, hello, tmp_path):
    broken = Server(System(name="broken", title="", side="async", real=False, port=0, needs=(),
                           launcher=lambda checkout: [sys.executable, "-c", "pass"],
                           version=lambda checkout: ""), "broken")
    held = engine.start(broken, "s-broken")
    assert held.target is None and "before it listened" in held.cause
    held = engine.start(hello, "s-hello")
    # ab refuses more clients than requests.
    record = engine.record("s-hello-ab", {}, held.target, Load("ab", "/hello", 5, n=2))
    held.stack.close()
    assert record["status"] == "failed"
    assert [row[:2] for row in steps(tmp_path)] == [["s-hello-ab", "failed"]]
