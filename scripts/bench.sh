#!/usr/bin/env bash
# Benchmarks each C++ server against the database's own ceiling (docs/performance.md); --help.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$(dirname "$0")/lib/cli.sh"
harness bench "$@"
