#!/usr/bin/env bash
# Benchmarks each C++ server against the database's own ceiling (docs/performance.md).
# --help lists the flags.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"
harness bench "$@"
