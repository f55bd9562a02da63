"""node4: E1's Node.js of August 2016, Node.js 4.4.7 with the npm mysql driver of that time
(2.11.1), running node's server (servers/node4/node servers/node/node-server): the same pages, the
runtime and driver of the post's year. `--driver mysql-native` is the post's other driver, which
runs on Node.js 4 only. Not 6: mysql-native's login fails there (docs/real-systems.md). No cluster
variant in the plans: E1b's default has no room for it (`--cluster` works by hand)."""

from modelbench.systems.base import System, first_line
from modelbench.systems.node import package_version


def node4(checkout):
    return checkout.real_system("node4", "node")


SYSTEM = System(
    name="node4", title="Node.js 4 of 2016", side="async", real=True, port=8089,
    needs=("node4", "db"),
    launcher=lambda checkout: [node4(checkout), checkout.real_system("node", "node-server")],
    standalone=lambda checkout, n: [node4(checkout), checkout.real_system("node", "standalone.js"),
                                    str(n)],
    version=lambda checkout: f"Node.js {first_line([node4(checkout), '--version'])} with the npm "
                             f"mysql driver {package_version(checkout, 'mysql', 'node4')}")
