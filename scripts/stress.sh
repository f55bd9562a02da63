#!/usr/bin/env bash
# Holds the servers to docs/robustness.md: overload, slow clients, database faults, leaks,
# memory, slowhttptest; --help lists the scenarios and flags.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$(dirname "$0")/lib/cli.sh"
harness stress "$@"
