"""Hostile senders for the memory scenario (docs/robustness.md, which says when each stops):
connections that each start a request, then send bytes that never end the part being parsed as
fast as the server takes them. A server without a cap on its read buffer keeps them all."""

import contextlib
import errno
import selectors
import socket
import time
from dataclasses import dataclass

# Requests whose last part never ends: the endless byte is FILLER.
OPENINGS = {
    "chunk extension": b"GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;",
    "trailer": b"GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n"
               b"0\r\nX-Trailer: ",
    "header": b"GET /hello HTTP/1.1\r\nHost: x\r\nX-Header: ",
}
FILLER = b"a" * 65536
GUARD_INTERVAL_S = 0.05

ANSWERED, RESET, CLOSED, LIMIT, TIMEOUT, STOPPED = (
    "answered", "reset", "closed without an answer", "byte limit sent", "time limit",
    "stopped by the guard")


@dataclass
class Result:
    """How one hostile connection ended (a constant above), the status of a response that came
    (with or before a reset), bytes sent."""

    kind: str
    end: str = ""
    status: int = 0
    bytes_sent: int = 0


class _Connection:
    def __init__(self, kind, address):
        self.result = Result(kind)
        self.pending = OPENINGS[kind]
        self.received = b""
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setblocking(False)
        self.socket.connect_ex(address)

    def end(self, how):
        """Records how it ended; the caller closes it."""
        self.result.end = how
        return True

    def _status(self):
        """The status of the response line received so far, or 0."""
        line, separator, _ = self.received.partition(b"\r\n")
        parts = line.split()
        if separator and len(parts) >= 2 and parts[0].startswith(b"HTTP/") and parts[1].isdigit():
            return int(parts[1])
        return 0

    def read(self):
        """Takes what the server sent; True when over (a status line, a close, a reset)."""
        try:
            data = self.socket.recv(65536)
        except BlockingIOError:
            return False
        except OSError:
            self.result.status = self._status()
            return self.end(ANSWERED if self.result.status else RESET)
        self.received += data
        self.result.status = self._status()
        if self.result.status:
            return self.end(ANSWERED)
        return self.end(CLOSED) if not data else False

    def write(self, limit):
        """Sends what the socket takes; True when the connection is over."""
        try:
            while True:
                if not self.pending:
                    if self.result.bytes_sent >= limit:
                        return self.end(LIMIT)
                    self.pending = FILLER[:limit - self.result.bytes_sent]
                sent = self.socket.send(self.pending)
                self.result.bytes_sent += sent
                self.pending = self.pending[sent:]
        except BlockingIOError:
            return False
        except OSError as error:
            if error.errno not in (errno.EPIPE, errno.ECONNRESET):
                return self.end(f"error: {error.strerror}")
            # The server may have answered before it reset: take what it sent (a reset socket
            # gives its received bytes, then the reset or an end; never "would block").
            return any(self.read() for _ in range(16)) or self.end(RESET)


@contextlib.contextmanager
def waiting_connections(address, count):
    """What the hostile connections cost without their bytes: open sockets, closed on leaving,
    that each sent the start of a request head and wait (a blocking server's worker each)."""
    with contextlib.ExitStack() as stack:
        for _ in range(count):
            connection = stack.enter_context(socket.create_connection(address, timeout=10))
            connection.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\n")
        yield


def send(address, connections, bytes_each, time_limit_s, guard):
    """The Results of `connections` hostile connections to address, the kinds in turn, fed until
    each has ended; guard() asked every GUARD_INTERVAL_S stops them all when it answers True."""
    kinds = list(OPENINGS)
    started = time.monotonic()
    selector = selectors.DefaultSelector()
    opened = [_Connection(kinds[i % len(kinds)], address) for i in range(connections)]
    for connection in opened:
        selector.register(connection.socket, selectors.EVENT_READ | selectors.EVENT_WRITE,
                          connection)
    live = set(opened)

    def close(connection):
        selector.unregister(connection.socket)
        connection.socket.close()
        live.discard(connection)

    stop = STOPPED  # how the connections still open at the end ended
    try:
        next_guard = started
        while live:
            now = time.monotonic()
            if now - started > time_limit_s:
                stop = TIMEOUT
                break
            if now >= next_guard:
                next_guard = now + GUARD_INTERVAL_S
                if guard():
                    break
            for key, events in selector.select(GUARD_INTERVAL_S):
                connection = key.data
                over = bool(events & selectors.EVENT_READ) and connection.read()
                if not over and events & selectors.EVENT_WRITE:
                    over = connection.write(bytes_each)
                if over:
                    close(connection)
    finally:
        for connection in list(live):
            connection.end(stop)
            close(connection)
        selector.close()
    return [connection.result for connection in opened]
