#!/usr/bin/env bash
# Reproduces the blog posts' experiments on the real systems and the C++ models, every claim
# judged for both (docs/experiments.md). Without flags: the posts' experiments in about ten
# minutes of runs. --list shows the plan, --help every flag.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"
harness reproduce "$@"
