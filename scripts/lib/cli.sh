# shellcheck shell=bash
# The preamble of every entry point in scripts/ that runs the harness: sets $root (the checkout),
# makes sure of Python, psutil, scipy and markdown (scripts/deps.sh base, quiet when they are
# there), then replaces the script by the harness's verb, so that a signal sent to the script's
# pid reaches the harness, which stops what it started. Every flag is parsed there (--help too).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# harness VERB ARGS...: `python3 -m modelbench VERB ARGS...` in place of this script, under
# Debian's interpreter, the one with python3-psutil, python3-scipy and python3-markdown (a python3
# earlier on PATH may be another installation).
harness() {
    bash "$root/scripts/deps.sh" base || exit 1
    exec env "PYTHONPATH=$root/scripts${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 -m modelbench "$@"
}
