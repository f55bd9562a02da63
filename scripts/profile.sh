#!/usr/bin/env bash
# Profiles one C++ model under valgrind's callgrind and a bounded ab run: instructions per request
# and the functions that spent them; --help lists the flags.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$(dirname "$0")/lib/cli.sh"
harness profile "$@"
