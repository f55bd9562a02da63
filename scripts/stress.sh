#!/usr/bin/env bash
# Holds the servers to what README's Robustness section promises under overload, slow clients,
# database faults and repeated load, one server at a time, and prints a table per scenario with
# its figures:
#   overload      ab -c 1000 -n 50000 /html, then siege -c 500 -d 1 -t 60S /json: no failed or
#                 non-2xx request; the blocking server stays at its worker cap
#   slow-clients  300 connections sending one header byte a second (tests/tools/slow_clients),
#                 --timeout 5: all closed once it passed; the async server answers others in
#                 under 100 ms meanwhile; the blocking server gets its workers back
#   db-faults     its own MariaDB (var/mariadb-stress, port 3320) stopped, then SIGKILLed, during
#                 ab -c 20 /json: only 200 and 503, 503 within 1 s while it is down, right
#                 answers within 2 s of its return without a restart; queries past --db-timeout
#                 answered 504 at the timeout, their connections free at once
#   leaks         ab -c 200 -n 20000 /html four times: RSS after run 3 within 10 % of
#                 run 1's (run 0 brings the malloc arenas to their steady size)
#   memory        100 connections each sending up to 100 MiB of an endless chunk extension,
#                 trailer or header line while ab -c 20 runs /html beside them: peak RSS within
#                 8 MiB of the same run beside 100 connections that only wait, no failed or
#                 non-2xx request, each connection ended with a 4xx or a reset
#   slowhttptest  slow headers, slow body and slow read (slowhttptest, 300 connections) against
#                 --timeout 5: the server lets go of them within its rounds of --timeout; other
#                 requests answered meanwhile (async: under 100 ms)
# After every load: open descriptors and threads back to their pre-test counts (/proc), /hello
# still answered, and SIGTERM ends the server with exit status 0.
#
# usage: scripts/stress.sh [--quick] [--servers blocking,async] [--only SCENARIO,...]
#                          [--results-dir DIR]
#   --quick          counts for CI: both servers in about 4 minutes on a 2-core machine
#                    (ab -n 10000, siege -t 10S, --timeout 3, shorter outages, leak runs of 5000)
#   --servers LIST   blocking, async (default both)
#   --only LIST      overload, slow-clients, db-faults, leaks, memory, slowhttptest (default all)
#   --results-dir D  instead of results/stress-<timestamp>/ (raw outputs, report.md,
#                    results.json)
# BUILD_DIR selects the Release build (default build/); STRESS_DB_DIR / STRESS_DB_PORT move the
# fault-scenario database. Exit status: 0 when everything holds, 1 when anything does not,
# 2 on bad arguments.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"

size=default
servers=blocking,async
only=overload,slow-clients,db-faults,leaks,memory,slowhttptest
results_dir=""
command_line="scripts/stress.sh $*"
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --quick) size=quick ;;
        --servers) [ $# -ge 2 ] || bad_usage "--servers needs a list, e.g. --servers async"
                   servers=$2; shift ;;
        --servers=*) servers=${1#--servers=} ;;
        --only) [ $# -ge 2 ] || bad_usage "--only needs a list, e.g. --only overload,leaks"
                only=$2; shift ;;
        --only=*) only=${1#--only=} ;;
        --results-dir) [ $# -ge 2 ] || bad_usage "--results-dir needs a directory"
                       results_dir=$2; shift ;;
        --results-dir=*) results_dir=${1#--results-dir=} ;;
        *) bad_usage "unknown argument '$1'" ;;
    esac
    shift
done

# Validated and deduplicated here, in the order given.
pick() {  # pick WHAT LIST ALLOWED...: the LIST items that are ALLOWED, comma-separated
    local what=$1 list=$2 picked="" item allowed
    shift 2
    allowed="$*"
    IFS=, read -ra items <<<"$list"
    for item in "${items[@]}"; do
        [ -n "$item" ] || continue
        [[ " $allowed " == *" $item "* ]] || bad_usage "$what: unknown '$item' (${allowed// /, })"
        [[ ",$picked," == *",$item,"* ]] || picked+=${picked:+,}$item
    done
    [ -n "$picked" ] || bad_usage "$what selects nothing"
    echo "$picked"
}
servers=$(pick --servers "$servers" blocking async) || exit 2
only=$(pick --only "$only" overload slow-clients db-faults leaks memory slowhttptest) || exit 2

results_dir=$(absolute "${results_dir:-$root/results/stress-$(date -u +%Y%m%dT%H%M%SZ)}")
mkdir -p "$results_dir/raw" "$results_dir/runs" || die "cannot create $results_dir"
echo "== stress: $size size, scenarios $only, servers $servers"
echo "== results: $results_dir"

prepare_deps || die "installing dependencies failed"
prepare_build "$results_dir/build.log" slow_clients || exit 1
[ -x "$build_dir/bin/slow_clients" ] || die "$build_dir/bin/slow_clients was not built"
prepare_db || die "the private MariaDB did not start (scripts/db.sh start)"
db_pid_flag=()
if pid=$(db_pid); then db_pid_flag=(--db-pid "$pid"); fi
fault_db_dir=${STRESS_DB_DIR:-$root/var/mariadb-stress}
fault_db_port=${STRESS_DB_PORT:-3320}
if [[ ",$only," == *",db-faults,"* ]]; then
    echo "== the fault scenario's own MariaDB: $fault_db_dir, port $fault_db_port"
    DB_DIR=$fault_db_dir DB_PORT=$fault_db_port bash "$root/scripts/db.sh" start \
        || die "its MariaDB did not start (DB_DIR=$fault_db_dir DB_PORT=$fault_db_port)"
fi

"${harness[@]}" modelbench.stress --dir "$results_dir" --build-dir "$build_dir" \
    --size "$size" --servers "$servers" --only "$only" "${db_pid_flag[@]}" \
    --fault-db-dir "$fault_db_dir" --fault-db-port "$fault_db_port" \
    --command-line "$command_line"
status=$?
if [[ ",$only," == *",db-faults,"* ]]; then
    DB_DIR=$fault_db_dir DB_PORT=$fault_db_port bash "$root/scripts/db.sh" stop >/dev/null
fi
exit $status
