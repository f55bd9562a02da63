#!/usr/bin/env bash
# Reproduces the blog experiments (README: "Reproducing the experiments"; docs/experiments.md)
# on four systems, one server at a time: the real Apache+PHP (php) and Node.js (node), and the
# two C++ models standing for them (blocking, async):
#   E1a  standalone: the /html workload N times in one process, no HTTP, timed like `time`
#   E1b  /html under ab -c 1, -c 20, -c 200; also node and async with a worker per core
#   E2   /hello under ab -c 200, with the servers' listen queue (511) and the posts' (128)
#   E3   /factorial under ab -c 5, without and with -l (ab's "Length" failures)
#   E4   the /tasks demo (log lines in order), /json under siege -c 500 -d 1 and -c 1000 -d 1
#   E5   the crossover: /html under ab -c 20 and -c 200 while the models' CPU cost per request
#        sweeps from 0 to 4 ms (blocking, also with --lifecycle prefork; async; async cluster)
#   E6   /html under ab -c 20 and -c 200 with the database 0 to 2 ms of round trip away (the
#        delaying proxy), blocking per-request and persistent, async and its cluster
# With php and node among the servers it first calibrates the models: it measures the real
# systems' CPU per /html request over mariadbd's, searches the cost that makes each model's
# ratio the same (blocking against php, async against node), and E1a and E1b also run the
# calibrated models.
# Every run is repeated in rounds (3 by default), the servers interleaved, each run on a freshly
# started server once the machine is quiet; the report gives medians and ranges, and a verdict
# per claim of the posts for the real systems and for the models (inconclusive when the rounds
# disagree). It installs what is missing, builds (Release, build/ or $BUILD_DIR), starts the
# private MariaDB when it is not running, checks the system limits the posts ran into, runs every
# step (a failed step is reported and the rest still run), then writes results/<timestamp>/: raw
# outputs, results.csv, report.md (printed at the end) and PNG plots. At the end it stops what it
# started — every server, and the database unless --keep-db — and its last line says what is
# left running.
#
# usage: scripts/reproduce.sh [--smoke | --full] [--only E1a,E1b,E2,E3,E4,E5,E6] [--calibrate]
#                             [--servers php,node,blocking,async | --target NAME=URL...]
#                             [--client ab|wrk] [--repeats N] [--keep-db] [--results-dir DIR]
#                             [--against DIR]
#   (default)        reduced counts and siege for 15 s, about 80 minutes on a 2-core machine
#   --full           the posts' own counts and durations (siege for 5 and 10 minutes)
#   --smoke          one round of small runs, about 4 minutes, for CI
#   --only LIST      experiments to run (comma-separated); without --calibrate, no calibration
#   --calibrate      the calibration alone, or before the experiments of --only
#   --servers LIST   systems to run (php, node, blocking, async); node and async include their
#                    cluster mode in E1b
#   --target NAME=URL  run against a server started elsewhere (scripts/serve.sh on another
#                    machine) instead of starting one; repeatable, NAME one of php, node,
#                    blocking, async, node-cluster, async-cluster (URL http://HOST:PORT). Only
#                    the servers named run; nothing is built or started here, and the steps that
#                    need a local server process (E1a, the /tasks demo, E2 --backlog 128, E5,
#                    E6, the calibration)
#                    are reported as not measured. The server's CPU comes from its /status.
#   --client wrk     /html and /hello under wrk (keep-alive, a thread per core, fixed time)
#                    instead of ab (default: ab, as the posts)
#   --repeats N      rounds of every run (default 3; --smoke 1)
#   --keep-db        leave the private MariaDB running if this run started it
#   --results-dir D  write there instead of results/<timestamp>/
#   --against DIR    an earlier run's results: the report compares E5's crossover costs with it
# Exit status: 0 when every step succeeded, 1 when any failed, 2 on bad arguments.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"

size=default
only=""
calibrate=0
servers=php,node,blocking,async
servers_given=0
remote_targets=()
client=ab
repeats=""
keep_db=0
results_dir=""
against=""
command_line="scripts/reproduce.sh $*"
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --smoke) size=smoke ;;
        --full) size=full ;;
        --only) [ $# -ge 2 ] || bad_usage "--only needs a list, e.g. --only E1b,E3"
                only=$2; shift ;;
        --only=*) only=${1#--only=} ;;
        --calibrate) calibrate=1 ;;
        --servers) [ $# -ge 2 ] || bad_usage "--servers needs a list, e.g. --servers async"
                   servers=$2; servers_given=1; shift ;;
        --servers=*) servers=${1#--servers=}; servers_given=1 ;;
        --target) [ $# -ge 2 ] || bad_usage "--target needs NAME=URL, e.g. --target async=http://10.0.0.2:8082"
                  remote_targets+=(--target "$2"); shift ;;
        --target=*) remote_targets+=(--target "${1#--target=}") ;;
        --client) [ $# -ge 2 ] || bad_usage "--client needs ab or wrk"
                  client=$2; shift ;;
        --client=*) client=${1#--client=} ;;
        --repeats) [ $# -ge 2 ] || bad_usage "--repeats needs a number, e.g. --repeats 5"
                   repeats=$2; shift ;;
        --repeats=*) repeats=${1#--repeats=} ;;
        --keep-db) keep_db=1 ;;
        --results-dir) [ $# -ge 2 ] || bad_usage "--results-dir needs a directory"
                       results_dir=$2; shift ;;
        --results-dir=*) results_dir=${1#--results-dir=} ;;
        --against) [ $# -ge 2 ] || bad_usage "--against needs an earlier run's results directory"
                   against=$2; shift ;;
        --against=*) against=${1#--against=} ;;
        *) bad_usage "unknown argument '$1'" ;;
    esac
    shift
done

# The calibration runs by default (when its systems are selected), with --calibrate, and not
# when --only names the experiments without it.
experiments=""
if [ -z "$only" ] && [ "$calibrate" -eq 0 ]; then
    only=E1a,E1b,E2,E3,E4,E5,E6
    calibrate=1
fi
[ "$calibrate" -eq 0 ] || experiments=",CAL"
IFS=, read -ra items <<<"$only"
for item in "${items[@]}"; do
    case ${item^^} in
        E1) experiments+=",E1A,E1B" ;;
        E1A|E1B|E2|E3|E4|E5|E6) experiments+=",${item^^}" ;;
        *) bad_usage "--only: unknown experiment '$item' (E1a, E1b, E2, E3, E4, E5, E6)" ;;
    esac
done
systems=""
IFS=, read -ra items <<<"$servers"
for item in "${items[@]}"; do
    case $item in
        php|node|blocking|async) systems+=",$item" ;;
        *) bad_usage "--servers: unknown server '$item' (php, node, blocking, async)" ;;
    esac
done
[ -n "$experiments" ] || bad_usage "--only selects no experiment"
case $client in ab|wrk) ;; *) bad_usage "--client: '$client' is not ab or wrk" ;; esac
if [ ${#remote_targets[@]} -gt 0 ] && [ "$servers_given" -eq 1 ]; then
    bad_usage "--servers and --target do not mix: the targets are the servers that run"
fi
for ((i = 1; i < ${#remote_targets[@]}; i += 2)); do
    spec=${remote_targets[i]}
    case ${spec%%=*} in
        php|node|blocking|async|node-cluster|async-cluster) ;;
        *) bad_usage "--target '$spec': NAME is one of php, node, blocking, async, node-cluster, async-cluster" ;;
    esac
    [[ ${spec#*=} =~ ^http://[^/[:space:]]+:[0-9]+/?$ ]] ||
        bad_usage "--target '$spec': the URL must be http://HOST:PORT"
done
[ -n "$systems" ] || bad_usage "--servers selects no server"
if [ -n "$against" ]; then
    [ -d "$against/runs" ] || bad_usage "--against: '$against' has no runs/ of reproduce.sh"
    against=$(absolute "$against")
fi
if [ -n "$repeats" ]; then
    [[ $repeats =~ ^[1-9][0-9]?$ ]] || bad_usage "--repeats: '$repeats' is not a number from 1 to 99"
fi
experiments=${experiments#,}
systems=${systems#,}

results_dir=$(absolute "${results_dir:-$root/results/$(date -u +%Y%m%dT%H%M%SZ)}")
mkdir -p "$results_dir/raw" "$results_dir/runs" || die "cannot create $results_dir"
if [ ${#remote_targets[@]} -gt 0 ]; then
    targets_text=""
    for ((i = 1; i < ${#remote_targets[@]}; i += 2)); do targets_text+=" ${remote_targets[i]}"; done
    echo "== reproduce: size $size, experiments ${experiments//,/ }, remote targets:$targets_text"
else
    echo "== reproduce: size $size, experiments ${experiments//,/ }, servers ${systems//,/ }"
fi
echo "== results: $results_dir"

# What this run started and leaves: the servers are the harness's (it stops every one); the
# database is ours to stop only when it was not running before.
db_started=0
finish() {
    local status=$?
    if [ "$db_started" -eq 1 ] && [ "$keep_db" -eq 0 ]; then
        bash "$root/scripts/db.sh" stop >/dev/null || echo "$script: stopping the private MariaDB failed" >&2
    fi
    if [ "$db_started" -eq 1 ] && [ "$keep_db" -eq 1 ] && db_running; then
        echo "left running: the private MariaDB in $db_dir (--keep-db), stop it with $(db_command stop)"
    elif [ "$db_started" -eq 0 ] && db_running; then
        echo "left running: nothing; the private MariaDB in $db_dir was running before this run and still is"
    elif db_running; then
        echo "left running: the private MariaDB in $db_dir (it did not stop), stop it with $(db_command stop)"
    else
        echo "left running: nothing"
    fi
    exit "$status"
}
trap finish EXIT

prepare_deps || die "installing dependencies failed"
db_pid_flag=()
if [ ${#remote_targets[@]} -gt 0 ]; then
    # The servers and their database are elsewhere: nothing to build or start here. A private
    # MariaDB of this checkout that runs here (it may serve the remote servers) is measured.
    if db_running && pid=$(db_pid); then
        db_pid_flag=(--db-pid "$pid")
    else
        echo "== mariadbd's CPU is not measured: no private MariaDB runs here ($db_dir)"
    fi
else
    extra_targets=()
    [[ ,$experiments, == *,E6,* ]] && extra_targets=(delay_proxy)
    prepare_build "$results_dir/build.log" "${extra_targets[@]}" || exit 1
    db_running || db_started=1
    prepare_db || die "the private MariaDB did not start (scripts/db.sh start)"
    if pid=$(db_pid); then
        db_pid_flag=(--db-pid "$pid")
    else
        echo "$script: no $db_dir/mysqld.pid: mariadbd's CPU will not be measured" >&2
    fi
fi

"${harness[@]}" modelbench.reproduce --size "$size" --experiments "$experiments" \
    --servers "$systems" ${repeats:+--repeats "$repeats"} --results-dir "$results_dir" \
    --build-dir "$build_dir" --command "$command_line" --client "$client" \
    ${against:+--against "$against"} "${db_pid_flag[@]}" "${remote_targets[@]}"
