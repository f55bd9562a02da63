#!/usr/bin/env bash
# Reproduces the blog experiments (README: "Reproducing the experiments") against both
# servers, one at a time:
#   E1a  standalone: the /html workload N times in one process (--standalone), both models
#   E1b  /html under ab -c 1, -c 20, -c 200: blocking, async, and async in cluster mode
#   E2   /hello under ab -c 200
#   E3   /factorial under ab -c 5, without and with -l (ab's "Length" failures)
#   E4   the /tasks demo (log lines in order, both models) and /json under siege -c 500 -d 1
# It installs what is missing, builds (Release, build/ or $BUILD_DIR), starts the private
# MariaDB, checks the system limits the posts ran into, runs every step (a failed step is
# reported and the rest still run), then writes results/<timestamp>/: raw outputs, results.csv,
# report.md (printed at the end) and PNG plots.
#
# usage: scripts/reproduce.sh [--smoke | --full] [--only E1a,E1b,E2,E3,E4]
#                             [--servers blocking,async] [--results-dir DIR]
#   (default)        reduced counts, under 10 minutes on a 2-core machine
#   --full           the posts' own counts and durations (siege for 5 minutes)
#   --smoke          about a minute, for CI
#   --only LIST      experiments to run (comma-separated)
#   --servers LIST   models to run; async includes its cluster mode
#   --results-dir D  write there instead of results/<timestamp>/
# Exit status: 0 when every step succeeded, 1 when any failed, 2 on bad arguments.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"

size=default
only=E1a,E1b,E2,E3,E4
servers=blocking,async
results_dir=""
command_line="scripts/reproduce.sh $*"
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --smoke) size=smoke ;;
        --full) size=full ;;
        --only) [ $# -ge 2 ] || bad_usage "--only needs a list, e.g. --only E1b,E3"
                only=$2; shift ;;
        --only=*) only=${1#--only=} ;;
        --servers) [ $# -ge 2 ] || bad_usage "--servers needs a list, e.g. --servers async"
                   servers=$2; shift ;;
        --servers=*) servers=${1#--servers=} ;;
        --results-dir) [ $# -ge 2 ] || bad_usage "--results-dir needs a directory"
                       results_dir=$2; shift ;;
        --results-dir=*) results_dir=${1#--results-dir=} ;;
        *) bad_usage "unknown argument '$1'" ;;
    esac
    shift
done

experiments=""
IFS=, read -ra items <<<"$only"
for item in "${items[@]}"; do
    case ${item^^} in
        E1) experiments+=",E1A,E1B" ;;
        E1A|E1B|E2|E3|E4) experiments+=",${item^^}" ;;
        *) bad_usage "--only: unknown experiment '$item' (E1a, E1b, E2, E3, E4)" ;;
    esac
done
models=""
IFS=, read -ra items <<<"$servers"
for item in "${items[@]}"; do
    case $item in
        blocking|async) models+=",$item" ;;
        *) bad_usage "--servers: unknown server '$item' (blocking, async)" ;;
    esac
done
[ -n "$experiments" ] || bad_usage "--only selects no experiment"
[ -n "$models" ] || bad_usage "--servers selects no server"
experiments=${experiments#,}
models=${models#,}

results_dir=$(absolute "${results_dir:-$root/results/$(date -u +%Y%m%dT%H%M%SZ)}")
mkdir -p "$results_dir/raw" "$results_dir/runs" || die "cannot create $results_dir"
echo "== reproduce: size $size, experiments ${experiments//,/ }, servers ${models//,/ }"
echo "== results: $results_dir"

prepare_deps || die "installing dependencies failed"
prepare_build "$results_dir/build.log" || exit 1
prepare_db || die "the private MariaDB did not start (scripts/db.sh start)"
db_pid_flag=()
if pid=$(db_pid); then
    db_pid_flag=(--db-pid "$pid")
else
    echo "$script: no $db_dir/mysqld.pid: mariadbd's CPU will not be measured" >&2
fi

exec "${harness[@]}" modelbench.reproduce --size "$size" --experiments "$experiments" \
    --servers "$models" --results-dir "$results_dir" --build-dir "$build_dir" \
    --command "$command_line" "${db_pid_flag[@]}"
