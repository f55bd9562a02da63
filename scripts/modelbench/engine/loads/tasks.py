"""The /tasks demo: one GET, the server's task lines and the client's times in one timeline."""

import re
import time
import urllib.request

from modelbench.engine.loads.base import StepFailed, Tool, utc_now
from modelbench.engine.measure import read

TASK_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) tasks #(\d+): (.*)$")
DAY_MS = 24 * 3600 * 1000


class Tasks(Tool):
    name = "tasks"
    measured = False  # the order of three log lines, which other work cannot change
    local_only = "it reads the task lines the server writes to its stderr"

    def connections(self, load):
        return 1

    def text(self, load):
        return f"/tasks?delay_ms={load.delay_ms} demo"

    def estimate_s(self, load):
        return load.delay_ms / 1000 + 0.5

    def run(self, attempt):
        record, target, delay_ms = attempt.record, attempt.target, attempt.load.delay_ms
        timeline_path, server_log = attempt.raw("tasks-timeline.txt"), target.process.stderr_path
        url = target.url(f"/tasks?delay_ms={delay_ms}")
        record.update(command=f"GET {url}", raw=[timeline_path, server_log])
        sent = utc_now()
        # Times of day in UTC, measured from the moment the request was sent (wraps at midnight);
        # lines of an earlier demo on the same server come before it.
        origin = ms_of_day(sent)

        def offset(ms):
            ahead = (ms - origin) % DAY_MS
            return ahead - DAY_MS if ahead > DAY_MS // 2 else ahead
        try:
            with urllib.request.urlopen(url, timeout=delay_ms / 1000 + 30) as response:
                body, status = response.read().decode("utf-8", "replace"), response.status
        except OSError as error:
            raise StepFailed(f"GET {url} failed: {error}")
        received = utc_now()
        if status != 200:
            raise StepFailed(f"GET {url} answered {status}")
        # Wait for task two, which the async model logs after the response.
        deadline = time.monotonic() + delay_ms / 1000 + 10
        while time.monotonic() < deadline:
            lines = [line for line in task_lines(server_log) if offset(line[0]) >= 0]
            if any("two" in task for _, _, task in lines):
                break
            time.sleep(0.05)
        else:
            raise StepFailed(f"no 'task two' line in {server_log} within {delay_ms + 10000} ms")

        response_ms = (received - sent).total_seconds() * 1000
        events = [(ms, f"server  tasks #{demo}: {task}") for ms, demo, task in lines] + [
            (origin, f"client  request sent: GET {url}"),
            (ms_of_day(received), f"client  response received ({response_ms:.0f} ms)")]
        timeline = [f"{clock(ms)}  {text}"
                    for ms, text in sorted(events, key=lambda event: offset(event[0]))]
        with open(timeline_path, "w") as f:
            f.write("\n".join(timeline) + "\n\nresponse body:\n" + body)

        def task_at(name):
            found = [offset(ms) for ms, _, task in lines if name in task]
            if not found:
                raise StepFailed(f"no '{name}' line in {server_log}")
            return found[0]

        one, two, three = task_at("one"), task_at("two"), task_at("three")
        record.update(timeline=timeline, body=body, figures={
            "delay_ms": delay_ms, "response_ms": round(response_ms, 1),
            "task_two_after_task_one_ms": two - one,
            "task_two_after_response": int(two > offset(ms_of_day(received))),
            "task_three_before_task_two": int(three < two)})

    def summary(self, figures):
        order = "after" if figures["task_two_after_response"] else "before"
        return (f"response after {figures['response_ms']:.0f} ms; task two logged {order} the "
                "response")


def ms_of_day(when):
    return ((when.hour * 60 + when.minute) * 60 + when.second) * 1000 + when.microsecond // 1000


def clock(ms):
    ms %= DAY_MS
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def task_lines(log_path):
    """(ms of the day, demo, task) of the server log's task lines."""
    matches = (TASK_LINE.match(line) for line in read(log_path).splitlines())
    return [(((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(ms), int(demo), task)
            for h, m, s, ms, demo, task in (match.groups() for match in matches if match)]
