"""node: the real Node.js with the plain http module and the npm mysql driver, a pool of 10
(servers/node/node-server); `--cluster` runs a worker per core with node:cluster."""

import json

from modelbench.systems.base import System, first_line


def package_version(checkout, package, folder="node"):
    """An npm package's version as the lockfile of servers/FOLDER pins it."""
    try:
        with open(checkout.real_system(folder, "package-lock.json")) as f:
            return json.load(f)["packages"][f"node_modules/{package}"]["version"]
    except (OSError, ValueError, KeyError):
        return "?"


SYSTEM = System(
    name="node", title="Node.js", side="async", real=True, port=8084, needs=("node", "db"),
    launcher=lambda checkout: [checkout.real_system("node", "node-server")],
    standalone=lambda checkout, n: ["node", checkout.real_system("node", "standalone.js"), str(n)],
    cluster_flags=("--cluster",),
    version=lambda checkout: f"Node.js {first_line(['node', '--version'])} with the npm mysql "
                             f"driver {package_version(checkout, 'mysql')}")
