#!/usr/bin/env bash
# Profiles one C++ model with valgrind's callgrind under a bounded ab run: instructions per
# request and the functions that spent them. --help lists the flags.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"
harness profile "$@"
