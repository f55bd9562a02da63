"""`c` idle keep-alive connections, each after one GET of path: the server's memory then."""

import time

from modelbench.engine import httpclient
from modelbench.engine.loads.base import StepFailed, Tool


class Hold(Tool):
    name = "hold"
    measured = False  # a memory snapshot, which other processes' CPU does not pollute
    always_keepalive = True

    def text(self, load):
        return f"{load.c} idle keep-alive connections after GET {load.path}"

    def estimate_s(self, load):
        return 2.0

    def run(self, attempt):
        path, connections, held = attempt.load.path, attempt.load.c, []
        attempt.record["command"] = f"{connections} × GET {path}, connections held"
        try:
            for _ in range(connections):
                status, connection = attempt.target.get_and_hold(path)
                held.append(connection)
                if status != 200:
                    raise StepFailed(f"GET {path} answered {status}")
            time.sleep(0.5)
            figures = attempt.target.snapshot()
        except (httpclient.ProtocolError, OSError) as error:
            raise StepFailed(f"holding {connections} connections: {error}") from error
        finally:
            for connection in held:
                connection.close()
        attempt.record["figures"] = {
            "held": connections, "rss_mib": round(figures["rss_kib"] / 1024, 1),
            "threads": figures["threads"], "fds": figures["fds"]}

    def summary(self, figures):
        return (f"RSS {figures['rss_mib']} MiB with {figures['held']} connections held: "
                f"{figures['threads']} threads, {figures['fds']} descriptors open")
