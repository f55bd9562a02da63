#!/usr/bin/env bash
# Reproduces the blog posts' experiments on the real systems and the C++ models, every claim
# judged for both (docs/experiments.md): about 12 to 15 minutes of runs by default; --list, --help.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$(dirname "$0")/lib/cli.sh"
harness reproduce "$@"
