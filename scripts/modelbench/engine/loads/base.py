"""What the engine asks of a load tool (Tool), a load generator run as a command (Generator), and
what a tool's run is given (Attempt)."""

import datetime
import json
import re
from dataclasses import dataclass, field
from typing import Optional

from modelbench.engine import measure

# Rough requests/s of one server on a 2-core machine, to estimate a run of n requests.
GUESSED_RATE = {"/hello": 8000, "/html": 1500, "/json": 2000, "/factorial": 3000}


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def utc_time(text):
    """The time of an ISO text in UTC; one without a zone (settings.json's before summary.json's
    format 3) was UTC."""
    time = datetime.datetime.fromisoformat(text)
    return time.astimezone(datetime.timezone.utc) if time.tzinfo else \
        time.replace(tzinfo=datetime.timezone.utc)


class ParseError(Exception):
    pass


class StepFailed(Exception):
    pass


@dataclass
class Attempt:
    """What a tool's run is given; rate: the server's requests/s before (warm-up or last run);
    status: every worker's /status read after the run (a Generator's; [] when none answers)."""

    recorder: object
    record: dict
    load: object
    target: object = None
    server: object = None
    flags: tuple = ()
    rate: Optional[float] = None
    status: list = field(default_factory=list)

    def raw(self, suffix):
        return self.recorder.raw(self.record["id"], suffix)


class Tool:
    """A load tool as the engine asks it: text(load), a title ('ab -c 20 -t 3 /html');
    estimate_s(load), warm-up aside; run(attempt) fills the record (command, raw, figures) or
    raises StepFailed, ParseError, measure.MeasureError or OSError; summary(figures); and
    heading(record). local_only: why its runs need a local server; resolution_ms: of its single
    times (a 0 among its percentiles means under it); binary: the one of the build tree it runs."""

    name = ""
    binary = None
    needs_server = True
    measured = True
    warmed = False
    local_only = ""
    resolution_ms = 0
    always_keepalive = False

    def keepalive(self, load):
        return self.always_keepalive or load.keepalive

    def connections(self, load):
        """New connections a run opens at most (TIME_WAIT); a timed run's n is only its cap."""
        if not self.needs_server:
            return 0
        return load.c if self.keepalive(load) else load.n


class Generator(Tool):
    """A tool run as command(attempt, url) under measure.run; its raw/ID.NAME.txt and .err
    parsed by figures(attempt, stdout, stderr, sampled). end_marker, progress: measure.run's."""

    warmed = True
    end_marker = None
    progress = True
    overhead_s = 0.3  # its start and end, beyond its load

    def estimate_s(self, load):
        return (load.seconds or load.n / GUESSED_RATE.get(load.path, 2000)) + self.overhead_s

    def summary(self, figures):
        return (f"{figures['requests_per_s']:.1f} req/s, mean {figures['mean_ms']:.1f} ms, "
                f"p99 {figures['p99_ms']:.0f} ms, failed {figures['failed']} (length "
                f"{figures['failed_length']}), non-2xx {figures['non2xx']}; CPU server "
                f"{figures.get('server_cpu_pct_core', 0):.0f} %, mariadbd "
                f"{figures.get('db_cpu_pct_core', 0):.0f} % of a core")

    def exit_cause(self, code, stderr, load):
        """Why the tool failed, for steps.tsv: by default its exit status and stderr's last
        lines."""
        return f"{self.name} exited with {code}: {measure.tail(stderr)}"

    def run(self, attempt):
        record, target, load = attempt.record, attempt.target, attempt.load
        stdout, stderr = attempt.raw(f"{self.name}.txt"), attempt.raw(f"{self.name}.err")
        record.update(seconds=load.seconds, raw=[stdout, stderr])
        command = [*(target.client.prefix if target.client else ()),
                   *self.command(attempt, target.url(load.path))]
        record["command"] = " ".join(command)
        # A remote server was not started for the run: its counters count from before it.
        before = 0 if target.local else database_connects(target.status_documents()) or 0
        code, sampled = measure.run(command, stdout, stderr, server=target.watch(),
                                    db_pid=attempt.recorder.db_pid,
                                    helper_pids=target.helper_pids, end_marker=self.end_marker,
                                    log=attempt.recorder.log, progress=self.progress)
        if code is None:
            record["note"] = (f"{self.name} hung after its run (JoeDog/siege#4) and was killed "
                              f"{measure.HANG_GRACE_S:.0f} s later; its summary figures were "
                              "computed from its transaction lines")
            attempt.recorder.log(f"    note: {record['note']}")
        elif code != 0:
            raise StepFailed(self.exit_cause(code, stderr, load))
        attempt.status = target.status_documents()
        record["figures"] = {**self.figures(attempt, stdout, stderr, sampled), **sampled,
                             **server_counters(attempt, before)}


def server_counters(attempt, before):
    """The server's own counters from every worker's /status after the run (attempt.status),
    less before's."""
    documents = attempt.status
    if not documents:
        return {}
    with open(attempt.raw("status.json"), "w") as f:
        json.dump(documents, f, indent=1)
    connects = database_connects(documents)
    figures = {} if connects is None else {"server_db_connects": connects - before}
    if len(documents) > 1:
        # Requests answered by each worker (the run's plus the warm-up and these /status).
        figures["requests_by_worker"] = " / ".join(
            str(d.get("requests", {}).get("total", "?")) for d in documents)
    return figures


def database_connects(documents):
    """The workers' database connects summed; None when none counts them."""
    connects = [d["database"]["connects"] for d in documents if "database" in d]
    return sum(connects) if connects else None


def number(pattern, text, what, cast=float, default=None):
    """The first group of pattern in text (multiline), cast; else default or ParseError."""
    match = re.search(pattern, text, re.MULTILINE)
    if match is None and default is None:
        raise ParseError(f"no '{what}' in the output")
    return default if match is None else cast(match.group(1))
