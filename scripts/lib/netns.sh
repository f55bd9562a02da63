#!/usr/bin/env bash
# A network namespace joined to this host by a veth pair: a second "machine" on one box, for tests
# and experiments across a real network link. scripts/modelbench/engine/netns.py does it (E10's
# client namespaces too); --help says how.
# Usage: scripts/lib/netns.sh check | exec COMMAND [ARGS...] | with COMMAND [ARGS...]
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PYTHONPATH="$root/scripts${PYTHONPATH:+:$PYTHONPATH}" exec /usr/bin/python3 -m modelbench.engine.netns "$@"
