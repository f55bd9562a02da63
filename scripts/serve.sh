#!/usr/bin/env bash
# Starts one system as a benchmark target in the foreground, with the ab, siege and wrk lines to
# paste: scripts/serve.sh async (--help lists the systems); flags after the name are the server's.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$(dirname "$0")/lib/cli.sh"
harness serve "$@"
