"""idle-openloop and idle-ab: `held` idle keep-alive connections opened first (each after one
GET /hello, answered), the server's processes, threads, descriptors and memory read before and
with them held, then a probe (openloop's /hello latency, or ab's /html rate) run while they are
held, then the connections closed (E8, docs/experiments.md).

The connections are held from this process (selectors over non-blocking sockets, OPENING at a
time, so that a burst stays under the servers' listen backlog). They are not touched again: a
request on each to keep it open would be load, not idleness. So they stay open only for the
server's keep-alive timeout (5 s for Apache, Node.js and the blocking model; E8 says why and
which are longer). `held` counts the answered ones still open when the memory is read, and
open_after_probe those still open after the probe. Opening stops short of `held` at the first
of: the open-file limit (EMFILE), the ephemeral ports (EADDRNOTAVAIL), NO_PROGRESS_S without an
answer while connections wait (the server's cap: every worker busy, or its open files), OPEN_S
in all (Apache spawning workers a few a second while the first connections time out); refused,
reset and closed connections are counted and opening goes on. The record's `stopped` says which,
and the figures the count reached."""

import collections
import errno
import resource
import selectors
import socket
import time

import psutil

from modelbench.engine import processes
from modelbench.engine.loads.ab import Ab
from modelbench.engine.loads.base import StepFailed
from modelbench.engine.loads.openloop import Openloop

HOLD_PATH = "/hello"
OPENING = 256  # connections being opened at once: under the servers' listen backlog (511)
OPEN_S = 10  # within it 10,000 are opened at 1,000 a second
NO_PROGRESS_S = 2.0
OPEN_RATE = 8000  # connections opened per second where nothing caps them, about, for the
# estimate (10,000 in 0.5 to 1.7 s, 2026-12-07)
SERVED_CLOSED = 0.1  # of the answered connections closed before the memory is read, at most,
# for the growth to be theirs (per_connection)
SETTLE_S = 0.2  # after the last answer, for the server to finish its bookkeeping
CAUSES = {errno.ECONNREFUSED: "refused", errno.ECONNRESET: "reset",
          errno.ETIMEDOUT: "connect timeout", errno.EADDRNOTAVAIL: "ephemeral ports",
          errno.EMFILE: "open files", errno.ENFILE: "open files (system)"}
STOPPING = {"open files", "open files (system)", "ephemeral ports"}  # no other connect can work


class Opening:
    """One connection on its way to held: connect, send the GET, read the whole answer."""

    def __init__(self, address):
        self.socket = socket.socket(socket.AF_INET6 if ":" in address[0] else socket.AF_INET)
        self.socket.setblocking(False)
        self.request = f"GET {HOLD_PATH} HTTP/1.1\r\nHost: {address[0]}\r\n\r\n".encode()
        self.data = b""
        code = self.socket.connect_ex(address)
        if code not in (0, errno.EINPROGRESS):
            self.socket.close()
            raise OSError(code, errno.errorcode.get(code, str(code)))

    def step(self, events):
        """Moves on after events: 'held', None (not yet) or a failure's cause."""
        try:
            if events & selectors.EVENT_WRITE and self.request:
                code = self.socket.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if code:
                    return CAUSES.get(code, errno.errorcode.get(code, str(code)))
                self.socket.send(self.request)  # a few bytes: one send takes them
                self.request = b""
                return None
            chunk = self.socket.recv(65536)
        except OSError as error:
            return CAUSES.get(error.errno, str(error))
        if not chunk:
            return "closed by the server"
        self.data += chunk
        return answered(self.data)


def answered(data):
    """'held' once data is a whole 200 answer (Content-Length), None before, else its cause."""
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return None
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split()[1] if len(lines[0].split()) > 1 else "?"
    if status != "200":
        return f"answered {status}"
    headers = {name.strip().lower(): value.strip() for name, _, value in
               (line.partition(":") for line in lines[1:])}
    return "held" if len(body) >= int(headers.get("content-length", 0)) else None


class Holder:
    """Idle keep-alive connections to address; close() closes them all."""

    def __init__(self, address):
        self.address = address
        self.answered = []
        self.waiting = []  # those still waiting for their answer when opening stopped
        self.failures = collections.Counter()
        self.stopped = ""
        self.open_s = 0.0  # how long opening took: against the keep-alive timeouts

    def open(self, count, open_s=OPEN_S, no_progress_s=NO_PROGRESS_S):
        """Opens connections until count are answered or a cause stops it (self.stopped)."""
        selector, started = selectors.DefaultSelector(), time.monotonic()
        last_progress, tried = started, 0
        try:
            while len(self.answered) < count:
                while tried < count and len(selector.get_map()) < OPENING and not self.stopped:
                    tried += 1
                    try:
                        opening = Opening(self.address)
                    except OSError as error:
                        self._failed(CAUSES.get(error.errno, str(error)))
                        continue
                    selector.register(opening.socket, selectors.EVENT_WRITE, opening)
                if not selector.get_map():
                    break
                now = time.monotonic()
                if now - started > open_s:
                    self.stopped = f"{open_s:g} s of opening"
                    break
                if now - last_progress > no_progress_s:
                    self.stopped = (f"no answer for {no_progress_s:g} s while "
                                    f"{len(selector.get_map())} waited (the server's cap)")
                    break
                for key, events in selector.select(timeout=0.1):
                    opening, outcome = key.data, key.data.step(events)
                    if outcome is None:
                        if not opening.request:
                            selector.modify(opening.socket, selectors.EVENT_READ, opening)
                        continue
                    selector.unregister(opening.socket)
                    last_progress = time.monotonic()
                    if outcome == "held":
                        self.answered.append(opening.socket)
                    else:
                        opening.socket.close()
                        self._failed(outcome)
        finally:
            # Waiting ones stay open through the probe, as clients queued for a worker would.
            self.waiting = [key.fileobj for key in list(selector.get_map().values())]
            selector.close()
            self.open_s = time.monotonic() - started

    def _failed(self, cause):
        self.failures[cause] += 1
        if cause in STOPPING and not self.stopped:
            self.stopped = cause

    def still_open(self):
        """How many of the answered connections the server has not closed (no EOF or reset
        pending): a server may close one at its keep-alive timeout while others are opened."""
        closed = 0
        for connection in self.answered:
            try:
                if connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    closed += 1
            except BlockingIOError:
                continue
            except OSError:
                closed += 1
        return len(self.answered) - closed

    def close(self):
        for connection in self.answered + self.waiting:
            connection.close()
        self.answered, self.waiting = [], []


def memory(pid):
    """processes.snapshot of the server with its pss_kib (None: unreadable)."""
    figures = processes.snapshot(pid)
    if figures is None:
        raise StepFailed("the server is gone")
    return {**figures, "pss_kib": processes.pss_kib(pid)}


def open_files_limits(pid):
    """The soft open-file limits of the harness and of the server's root process (its workers
    inherit it; None: unreadable), which reproduce's checks raised before the servers started."""
    try:
        server = psutil.Process(pid).rlimit(psutil.RLIMIT_NOFILE)[0]
    except (psutil.Error, OSError):
        server = None
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0], server


def held_figures(holder, asked, held, before, during, after, open_after, limits):
    """The run's figures of the held connections: counts (held: the answered ones still open
    when the memory was read), why opening stopped, and the memory, threads, processes and
    descriptors before, while held (after opening) and after the probe. holder: before close()."""
    figures = {"held_asked": asked, "held": held, "held_answered": len(holder.answered),
               "held_waiting": len(holder.waiting), "held_failed": sum(holder.failures.values()),
               "held_open_s": round(holder.open_s, 2), "open_after_probe": open_after,
               "open_files_limit": limits[0], "server_open_files_limit": limits[1]}
    for key in ("processes", "threads", "fds", "rss_kib", "pss_kib"):
        figures[f"before_{key}"] = before[key]
        figures[f"held_{key}"] = during[key]
        figures[f"after_{key}"] = after[key]
    figures.update(per_connection(held, before, during, len(holder.answered),
                                  len(holder.waiting)))
    return figures


def per_connection(held, before, during, answered=None, waiting=0):
    """KiB per held connection: the memory's growth over the connections held, PSS where every
    process's was readable both times, else RSS (memory_measure says which). Only where the
    connections held are those the server took on: none waiting for it, and at most SERVED_CLOSED
    of those answered closed since (its keep-alive timeout while the rest were opened). Else the
    growth is that of workers that served connections closed since, over too few."""
    measure = "pss" if before["pss_kib"] is not None and during["pss_kib"] is not None else "rss"
    answered = held if answered is None else answered
    if not held or waiting or held < (1 - SERVED_CLOSED) * answered:
        return {"memory_measure": measure}
    grown = during[f"{measure}_kib"] - before[f"{measure}_kib"]
    return {"memory_measure": measure, "kib_per_connection": round(grown / held, 2),
            "rss_kib_per_connection": round((during["rss_kib"] - before["rss_kib"]) / held, 2)}


def stop_text(figures, stopped, failures):
    """Why opening ended short of held_asked ('' when it did not), with the failures' causes."""
    if figures["held"] >= figures["held_asked"]:
        return ""
    counted = ", ".join(f"{n} {cause}" for cause, n in sorted(failures.items()))
    return (f"{figures['held']:,} of {figures['held_asked']:,} held: "
            f"{stopped or 'every connection tried'}" + (f" (failed: {counted})" if counted else "")
            + f"; open-file limits: harness {figures['open_files_limit']}, server "
            f"{figures['server_open_files_limit'] or '?'}")


class Holding:
    """Before a probe tool in the bases: its run with `held` connections held around it."""

    local_only = "it reads the memory of the server's processes"

    def connections(self, load):
        return load.held + super().connections(load)

    def text(self, load):
        return f"{load.held:,} idle connections held, probe: {super().text(load)}"

    def estimate_s(self, load):
        return load.held / OPEN_RATE + SETTLE_S + super().estimate_s(load)

    def heading(self, record):
        return (f"{record.get('held_asked', '?')} idle keep-alive connections held, probe: "
                f"{super().heading(record)}")

    def summary(self, figures):
        return (f"held {figures['held']} of {figures['held_asked']} "
                f"({figures.get('kib_per_connection', '?')} KiB each, "
                f"{figures['held_threads']} threads, {figures['held_processes']} processes); "
                f"probe: {super().summary(figures)}")

    def run(self, attempt):
        target, asked = attempt.target, attempt.load.held
        holder = Holder((target.host.strip("[]"), target.port))
        try:
            before = memory(target.pid)
            holder.open(asked)
            time.sleep(SETTLE_S)
            held, during = holder.still_open(), memory(target.pid)
            super().run(attempt)
            after, open_after = memory(target.pid), holder.still_open()
            figures = held_figures(holder, asked, held, before, during, after, open_after,
                                   open_files_limits(target.pid))
        finally:
            holder.close()
        attempt.record["figures"].update(figures)
        attempt.record["stopped"] = stop_text(figures, holder.stopped, holder.failures)


class IdleOpenloop(Holding, Openloop):
    name = "idle-openloop"


class IdleAb(Holding, Ab):
    name = "idle-ab"
