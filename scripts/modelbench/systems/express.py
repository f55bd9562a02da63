"""express: E2's Express (servers/node/express-server): node's endpoints through Express routing
and res.send, the same npm mysql driver; `--cluster` a worker per core."""

from modelbench.systems.base import System, first_line
from modelbench.systems.node import package_version

SYSTEM = System(
    name="express", title="Express", side="async", real=True, port=8088, needs=("node", "db"),
    launcher=lambda checkout: [checkout.real_system("node", "express-server")],
    cluster_flags=("--cluster",),
    version=lambda checkout: f"Express {package_version(checkout, 'express')} on Node.js "
                             f"{first_line(['node', '--version'])}")
