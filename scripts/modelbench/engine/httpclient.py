"""Plain HTTP/1.1 GETs: one, or one whose connection is then held open."""

import http.client
import socket
import time
from dataclasses import dataclass, field


@dataclass
class Reply:
    """One HTTP exchange; status None and error when there was no answer."""
    status: int | None = None
    body: bytes = b""
    headers: dict = field(default_factory=dict)
    seconds: float = 0.0
    error: str = ""


def get(host, port, path, timeout=10.0):
    """GET path on a new connection (Connection: close)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", path, headers={"Connection": "close"})
        response = connection.getresponse()
        return Reply(response.status, response.read(),
                     {k.lower(): v for k, v in response.getheaders()}, time.monotonic() - started)
    except (OSError, http.client.HTTPException) as error:
        return Reply(seconds=time.monotonic() - started, error=str(error) or type(error).__name__)
    finally:
        connection.close()


class ProtocolError(Exception):
    pass


def get_and_hold(host, port, path, timeout=30.0):
    """GET path on a new keep-alive connection (Content-Length bodies only): (status, socket)."""
    connection = socket.create_connection((host, port), timeout=timeout)
    try:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += _receive(connection)
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {name.strip().lower(): value for name, _, value in
                   (line.partition(":") for line in lines[1:])}
        while len(body) < int(headers.get("content-length", 0)):
            body += _receive(connection)
        return int(lines[0].split()[1]), connection
    except BaseException:
        connection.close()
        raise


def _receive(connection):
    chunk = connection.recv(65536)
    if not chunk:
        raise ProtocolError("the server closed the connection before its response ended")
    return chunk
