#!/usr/bin/env bash
# Holds the servers to what docs/robustness.md promises: overload, slow clients, database
# faults, leaks, memory, slowhttptest. --help lists the scenarios and flags.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"
harness stress "$@"
