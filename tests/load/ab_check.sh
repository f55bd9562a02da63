#!/usr/bin/env bash
# Load acceptance with the real ApacheBench: starts a server binary on a free port of 127.0.0.1,
# runs ab against one endpoint, and fails unless every request completed with a 2xx status.
# The check is the harness's (scripts/modelbench/abcheck.py); --help lists its options.
#
# Usage: tests/load/ab_check.sh [options] SERVER_BINARY ENDPOINT [AB_ARGS...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/lib/cli.sh
source "$root/scripts/lib/cli.sh"
harness abcheck "$@"
