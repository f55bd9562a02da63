#!/usr/bin/env bash
# The measurements of docs/cost-measurement.md, interleaved: ROUNDS rounds, each of them every
# system on every case once, in the same order, so that a change of the machine's load reaches
# every system alike. Each build directory given is measured as its own variant (e.g. the commit
# before a change and after it, built side by side); nginx and Apache+PHP once per round.
#
# usage: tests/tools/cost/rounds.sh ROUNDS OUT.tsv LABEL=BUILD_BIN_DIR...
# e.g.   tests/tools/cost/rounds.sh 3 cost.tsv base=../wt-base/build/bin new=build/bin
# About 4 minutes per round and variant on 2 cores. Needs ab, Debian's nginx-light, apache2 with
# mod_php, php, and the private MariaDB running. tests/tools/cost/summary.py OUT.tsv prints the
# medians, ranges and the targets' ratios.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
rounds=$1
out=$2
shift 2

cost() { /usr/bin/python3 "$here/cost.py" "$@" | tee -a "$out"; }

# on_case PATH FLAGS WARM: every variant's four servers on one case (/html: and their floors).
# Apache and prefork grow their workers to what the load needs first (prefork starts at most 32
# more a second), for the time WARM gives.
on_case() {
    local path=$1 flags=$2 warm=$3 variant label bin
    for variant in "${variants[@]}"; do
        label=${variant%%=*}
        bin=${variant#*=}
        cost serve blocking "$path" --bin "$bin" --ab "$flags" --label "$label-blocking"
        cost serve prefork "$path" --bin "$bin" --ab "$flags" --warm "$warm" --label "$label-prefork"
        cost serve async "$path" --bin "$bin" --ab "$flags" --label "$label-async"
        cost serve cluster "$path" --bin "$bin" --ab "$flags" --label "$label-cluster"
        if [ "$path" = /html ]; then
            cost floor blocking 3000 --bin "$bin" --label "$label-floor-blocking"
            cost floor async 3000 --bin "$bin" --label "$label-floor-async"
        fi
    done
}

variants=("$@")
for round in $(seq 1 "$rounds"); do
    echo "# round $round $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
    # /hello, a new connection per request.
    cost serve nginx /hello --ab "-c 200 -n 20000" --label nginx
    cost serve apache /hello --ab "-c 200 -n 20000" --warm "-c 200 -t 8 -n 1000000" --label apache
    on_case /hello "-c 200 -n 20000" "-c 200 -t 8 -n 1000000"
    # /hello with keep-alive, below the blocking model's thread cap (150).
    cost serve nginx /hello --ab "-k -c 100 -n 50000" --label nginx
    cost serve apache /hello --ab "-k -c 100 -n 50000" --warm "-k -c 100 -t 12 -n 10000000" \
        --label apache
    on_case /hello "-k -c 100 -n 50000" "-k -c 100 -t 12 -n 10000000"
    # /html at -c 20, and the no-HTTP floors of the same work.
    cost serve apache /html --ab "-c 20 -n 3000" --warm "-c 20 -t 5 -n 1000000" --label apache
    cost floor php 1000 --label floor-php
    on_case /html "-c 20 -n 3000" "-c 20 -t 5 -n 1000000"
done
