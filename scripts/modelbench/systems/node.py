"""node: the real Node.js with the plain http module and the npm mysql driver, a pool of 10
(servers/node/node-server); `--cluster` runs a worker per core with node:cluster."""

import json

from modelbench.systems.base import System, first_line


def version(checkout):
    try:
        with open(checkout.peer("node", "package-lock.json")) as f:
            mysql = json.load(f)["packages"]["node_modules/mysql"]["version"]
    except (OSError, ValueError, KeyError):
        mysql = "?"
    return f"Node.js {first_line(['node', '--version'])} with the npm mysql driver {mysql}"


SYSTEM = System(
    name="node", title="Node.js", side="async", real=True, port=8084, needs=("node", "db"),
    launcher=lambda checkout: [checkout.peer("node", "node-server")],
    standalone=lambda checkout, n: ["node", checkout.peer("node", "standalone.js"), str(n)],
    cluster_flags=("--cluster",), version=version)
