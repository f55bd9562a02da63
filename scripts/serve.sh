#!/usr/bin/env bash
# Starts one system as a benchmark target in the foreground and prints the ab, siege and wrk
# lines to paste: scripts/serve.sh async (or blocking, php, node; --help lists them). Flags after
# the name are the server's own. SIGINT or SIGTERM stops the server and its whole process tree.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"
harness serve "$@"
