"""async: the C++ model of Node.js (servers/async): one thread running one event loop,
non-blocking MySQL, a pool of 10; `--workers 0` runs a worker process per core."""

from modelbench.systems.base import built_model

SYSTEM = built_model("async", 8082, stands_for="node", cluster_flags=("--workers", "0"))
