#!/usr/bin/env bash
# Measures each server against the database's own ceiling, side by side in one run
# (docs/performance.md):
#   ceilings  each model's --standalone loop (the /html queries, every row fetched, rendered; no
#             HTTP) with --concurrency K for K = 1 and K = cores: blocking threads with a
#             connection per iteration and with persistent connections, and the async loop
#   servers   blocking per-request, blocking persistent, async (1 worker), async (1 per core):
#             /html, /json and /hello under ab -c 1, -c 20, -c 200, and /hello also with -k;
#             /html and /hello also under wrk (keep-alive, a thread per core, its latency
#             distribution), reported beside ab's figures
#   memory    async holding 1000 idle keep-alive connections; blocking with 150 live workers
# Every measurement runs --repetitions times (interleaved) and the median is reported, with the
# CPU per request of the server, mariadbd and ab (from /proc and ab's rusage). It waits for a
# quiet machine first (1-minute load average below --max-load). Writes bench/<timestamp>/:
# bench.csv (medians and ratios), runs.csv (every run), report.md (printed at the end), raw/.
#
# usage: scripts/bench.sh [--quick] [--repetitions N] [--results-dir DIR]
#                         [--max-load L] [--max-wait S]
#   --quick          1 s per run, about 7 minutes on 2 cores (default: 5 s per run, ~25 minutes)
#   --repetitions N  runs of every measurement; the median is reported (default 3)
#   --results-dir D  write there instead of bench/<timestamp>/
#   --max-load L     wait until the 1-minute load average is below L (default 1.0)
#   --max-wait S     ... for at most S seconds, then measure anyway and say so (default 900)
# BUILD_DIR selects the build tree (default build/), as for reproduce.sh.
# Exit status: 0 when every run succeeded (whatever the figures), 1 when one failed, 2 on bad
# arguments.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"

quick=()
repetitions=3
results_dir=""
max_load=1.0
max_wait=900
command_line="scripts/bench.sh $*"
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --quick) quick=(--quick) ;;
        --repetitions) need_value "$@"; repetitions=$2; shift ;;
        --repetitions=*) repetitions=${1#*=} ;;
        --results-dir) need_value "$@"; results_dir=$2; shift ;;
        --results-dir=*) results_dir=${1#*=} ;;
        --max-load) need_value "$@"; max_load=$2; shift ;;
        --max-load=*) max_load=${1#*=} ;;
        --max-wait) need_value "$@"; max_wait=$2; shift ;;
        --max-wait=*) max_wait=${1#*=} ;;
        *) bad_usage "unknown argument '$1'" ;;
    esac
    shift
done
[[ $repetitions =~ ^[1-9][0-9]?$ ]] || bad_usage "--repetitions must be 1..99, not '$repetitions'"
[[ $max_load =~ ^[0-9]+([.][0-9]+)?$ ]] || bad_usage "--max-load must be a number, not '$max_load'"
[[ $max_wait =~ ^[0-9]+$ ]] || bad_usage "--max-wait must be whole seconds, not '$max_wait'"

results_dir=$(absolute "${results_dir:-$root/bench/$(date -u +%Y%m%dT%H%M%SZ)}")
mkdir -p "$results_dir" || die "cannot create $results_dir"
echo "== bench: results in $results_dir"

prepare_deps || die "installing dependencies failed"
prepare_build "$results_dir/build.log" || exit 1
prepare_db || die "the private MariaDB did not start (scripts/db.sh start)"
pid=$(db_pid) || die "no $db_dir/mysqld.pid: is MariaDB running?"

exec "${harness[@]}" modelbench.bench --build-dir "$build_dir" --results-dir "$results_dir" \
    --db-pid "$pid" --repetitions "$repetitions" --max-load "$max_load" --max-wait "$max_wait" \
    --command "$command_line" "${quick[@]}"
