#!/usr/bin/env bash
# Reproduces the blog experiments of EXPERIMENTS.md against both servers, one server at a time:
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
# shellcheck source-path=SCRIPTDIR source=lib/prepare.sh
source "$root/scripts/lib/prepare.sh"
repro="$root/scripts/repro"

usage() { sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; }
bad_usage() { echo "reproduce.sh: $*" >&2; echo "try: scripts/reproduce.sh --help" >&2; exit 2; }

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

declare -A want_experiment=() want_server=()
IFS=, read -ra items <<<"$only"
for item in "${items[@]}"; do
    case ${item^^} in
        E1) want_experiment[E1A]=1; want_experiment[E1B]=1 ;;
        E1A|E1B|E2|E3|E4) want_experiment[${item^^}]=1 ;;
        *) bad_usage "--only: unknown experiment '$item' (E1a, E1b, E2, E3, E4)" ;;
    esac
done
IFS=, read -ra items <<<"$servers"
for item in "${items[@]}"; do
    case $item in
        blocking|async) want_server[$item]=1 ;;
        *) bad_usage "--servers: unknown server '$item' (blocking, async)" ;;
    esac
done
[ ${#want_experiment[@]} -gt 0 ] || bad_usage "--only selects no experiment"
[ ${#want_server[@]} -gt 0 ] || bad_usage "--servers selects no server"

# Counts per size. The blog's: standalone 1000; ab -c 20 -n 2000 and -c 200 -n 20000 (/html);
# ab -c 200 -n 100000 (/hello); ab -n 1000 -c 5 (/factorial); siege -c 500 -d 1 for 5 minutes.
case $size in
    smoke)
        standalone_n=1000; html_c1_n=1000; html_c20_n=2000; html_c200_n=5000; hello_n=10000
        factorial_n=1000; tasks_delay_ms=500; siege_users=500; siege_time=10S; pause_s=1 ;;
    default)
        standalone_n=1000; html_c1_n=500; html_c20_n=2000; html_c200_n=10000; hello_n=50000
        factorial_n=1000; tasks_delay_ms=2000; siege_users=500; siege_time=60S; pause_s=5 ;;
    full)
        standalone_n=1000; html_c1_n=1000; html_c20_n=2000; html_c200_n=20000; hello_n=100000
        factorial_n=1000; tasks_delay_ms=2000; siege_users=500; siege_time=5M; pause_s=10 ;;
esac

started=$(date -u +%Y-%m-%dT%H:%M:%S)
results_dir=${results_dir:-$root/results/$(date -u +%Y%m%dT%H%M%SZ)}
case $results_dir in /*) ;; *) results_dir="$PWD/$results_dir" ;; esac
raw="$results_dir/raw"
die() { echo "reproduce.sh: $*" >&2; exit 1; }
mkdir -p "$raw" "$results_dir/runs" || die "cannot create $results_dir"
steps_file="$results_dir/steps.tsv"
: >"$steps_file"
failures=0

fail_step() {  # fail_step ID CAUSE LOG
    failures=$((failures + 1))
    printf '%s\tfailed\t%s\t%s\n' "$1" "$2" "$3" >>"$steps_file"
    echo "    FAILED: $2"
    echo "    log: $3"
}

echo "== reproduce: size $size, experiments ${!want_experiment[*]}, servers ${!want_server[*]}"
echo "== results: $results_dir"

# ---- preparation: nothing below can run without it ------------------------------------------
prepare_deps || die "installing dependencies failed"
prepare_build "$results_dir/build.log" || exit 1
prepare_db || die "the private MariaDB did not start (scripts/db.sh start)"
db_dir=${DB_DIR:-$root/var/mariadb}
case $db_dir in /*) ;; *) db_dir="$root/$db_dir" ;; esac
db_pid_flag=()
if db_pid=$(cat "$db_dir/mysqld.pid" 2>/dev/null) && [ -n "$db_pid" ]; then
    db_pid_flag=(--db-pid "$db_pid")
else
    echo "reproduce.sh: no $db_dir/mysqld.pid: mariadbd's CPU will not be measured" >&2
fi
db_flags=()
[ -n "${DB_PORT:-}" ] && db_flags=(--db-port "$DB_PORT")
for model in "${!want_server[@]}"; do
    [ -x "$(server_binary "$model")" ] || die "$(server_binary "$model") was not built"
done

# ---- the traps the posts fell into: report, suggest the fix, change nothing -------------------
cores=$(nproc)
checks="$results_dir/checks.txt"
: >"$checks"
check() {  # check ok|warning FIX TEXT...: one line of checks.txt; FIX may be empty
    local status=$1 fix=$2
    shift 2
    local line="- $status: $*"
    [ -n "$fix" ] && line+=" Fix: \`$fix\`"
    echo "$line" >>"$checks"
    echo "  $line"
}
echo "== checks"
needed_fds=$((2 * siege_users + 400))
soft=$(ulimit -Sn)
hard=$(ulimit -Hn)
if [ "$soft" = unlimited ] || [ "$soft" -ge "$needed_fds" ]; then
    check ok "" "open files: soft limit $soft (these runs need about $needed_fds)."
elif [ "$hard" = unlimited ] || [ "$hard" -ge "$needed_fds" ]; then
    ulimit -Sn "$needed_fds"
    check ok "" "open files: soft limit $soft is below the $needed_fds these runs need" \
        "(siege -c $siege_users and the server); raised to $needed_fds for this run's" \
        "processes only (hard limit $hard)."
else
    check warning "ulimit -Hn 65536 (as root, or nofile in /etc/security/limits.conf)" \
        "open files: hard limit $hard is below the $needed_fds these runs need;" \
        "siege and the server will fail with 'Too many open files'."
fi
backlog=511
somaxconn=$(cat /proc/sys/net/core/somaxconn)
syn_backlog=$(cat /proc/sys/net/ipv4/tcp_max_syn_backlog)
if [ "$somaxconn" -lt "$backlog" ]; then
    check warning "sysctl -w net.core.somaxconn=4096" \
        "listen backlog: net.core.somaxconn is $somaxconn, so the servers' --backlog $backlog" \
        "is cut to $somaxconn; bursts of new connections overflow the queue and wait for a SYN" \
        "retransmit (1 s, then 3 s: E2's 3 s longest request)."
else
    check ok "" "listen backlog: net.core.somaxconn $somaxconn ≥ the servers' --backlog" \
        "$backlog (tcp_max_syn_backlog $syn_backlog)."
fi
read -r port_low port_high </proc/sys/net/ipv4/ip_local_port_range
ports=$((port_high - port_low + 1))
tw_reuse=$(cat /proc/sys/net/ipv4/tcp_tw_reuse)
# Without keep-alive every request is a new connection whose port pair then stays in TIME_WAIT
# for 60 s. The heaviest run opens this many within a minute (siege -d 1: two per user a second).
burst=$((hello_n > 120 * siege_users ? hello_n : 120 * siege_users))
if [ "$tw_reuse" = 0 ] && [ "$ports" -lt "$burst" ]; then
    check warning "sysctl -w net.ipv4.tcp_tw_reuse=1 net.ipv4.ip_local_port_range='1024 65535'" \
        "ephemeral ports: $ports ($port_low–$port_high) and tcp_tw_reuse 0, but the heaviest" \
        "run opens about $burst connections within 60 s: the client runs out of ports" \
        "('Cannot assign requested address', E4's client-side failures)."
elif [ "$ports" -lt "$burst" ]; then
    check ok "" "ephemeral ports: $ports ($port_low–$port_high), fewer than the ~$burst" \
        "connections the heaviest run opens within 60 s, but tcp_tw_reuse $tw_reuse lets new" \
        "connections reuse port pairs in TIME_WAIT on loopback."
else
    check ok "" "ephemeral ports: $ports ($port_low–$port_high), tcp_tw_reuse $tw_reuse."
fi
if [ "$tw_reuse" = 0 ]; then
    check warning "sysctl -w net.ipv4.tcp_tw_reuse=1" \
        "TIME_WAIT reuse: net.ipv4.tcp_tw_reuse is 0; outgoing connections cannot reuse port" \
        "pairs in TIME_WAIT."
else
    check ok "" "TIME_WAIT reuse: net.ipv4.tcp_tw_reuse $tw_reuse (1: always, 2: loopback" \
        "only); this script also pauses ${pause_s} s between runs."
fi
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > c / 2) }'; then
    check warning "" "idle machine: load average $load on $cores cores before the runs; other" \
        "work will skew the figures."
else
    check ok "" "idle machine: load average $load on $cores cores."
fi

cat >"$results_dir/settings.txt" <<EOF
started=$started
size=$size
command=$command_line
build_dir=$build_dir
standalone_n=$standalone_n
html_n=$html_c1_n,$html_c20_n,$html_c200_n
hello_n=$hello_n
factorial_n=$factorial_n
tasks_delay_ms=$tasks_delay_ms
siege=$siege_users users, $siege_time
EOF

# ---- servers: one at a time, a fresh process for every run -----------------------------------
server_pid=""
server_url=""

start_server() {  # start_server ID MODEL [flags...]; sets server_pid, server_url
    local id=$1 model=$2
    shift 2
    local out="$raw/$id.server.out" log="$raw/$id.server.log"
    "$(server_binary "$model")" --listen 127.0.0.1:0 "${db_flags[@]}" "$@" >"$out" 2>"$log" &
    server_pid=$!
    local line=""
    for _ in $(seq 1 150); do
        line=$(grep -m1 -o 'listening on http://[^ ]*' "$out" 2>/dev/null) && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$line" ]; then
        stop_server
        fail_step "$id" "$model-server did not get ready: $(tail -n 3 "$log" | tr '\n' ' ')" "$log"
        return 1
    fi
    server_url=${line#listening on }
    server_url=${server_url%/}
}

stop_server() {  # SIGTERM, then SIGKILL after 20 s; returns the exit status
    [ -n "$server_pid" ] || return 0
    local pid=$server_pid
    server_pid=""
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 200); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "    server $pid ignored SIGTERM for 20 s; killing it"
        kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
}

# finish_server ID: stops the server; a server that does not exit 0 on SIGTERM fails the step.
finish_server() {
    local id=$1 status
    stop_server
    status=$?
    [ "$status" -eq 0 ] || fail_step "$id" "the server exited with status $status on SIGTERM" \
        "$raw/$id.server.log"
}

# warm_up ID PATH: one request, which must answer 200, before the measured run.
warm_up() {
    local code
    code=$(curl -s -m 30 -o "$raw/$1.warmup.body" -w '%{http_code}' "$server_url$2")
    [ "$code" = 200 ] && return 0
    fail_step "$1" "GET $2 answered '$code' before the run (body in $raw/$1.warmup.body)" \
        "$raw/$1.server.log"
    return 1
}

time_wait_pause() {
    echo "    pausing ${pause_s} s for TIME_WAIT ($(ss -Htan state time-wait | wc -l) sockets)"
    sleep "$pause_s"
}

cleanup() { stop_server; }
trap cleanup EXIT
trap 'echo; echo "reproduce.sh: interrupted"; stop_server; exit 130' INT TERM

run_py() {  # run_py STEP ID ...: the measured step; a failure is recorded with the step's log
    local step=$1 id=$2 cause
    shift 2
    python3 "$repro/run.py" "$step" --dir "$results_dir" --id "$id" "${db_pid_flag[@]}" "$@" \
        && return 0
    # run.py records why in the run's JSON; without that file it failed before measuring.
    cause=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cause"])' \
        "$results_dir/runs/$id.json" 2>/dev/null) || cause="run.py failed"
    fail_step "$id" "$cause" "$raw/$id.*"
}

step_standalone() {  # MODEL
    local model=$1 id="e1a-$1"
    run_py standalone "$id" --experiment E1a --server "$model" --timeout 1200 \
        -- "$(server_binary "$model")" "${db_flags[@]}" --standalone "$standalone_n"
}

step_ab() {  # EXPERIMENT ID MODEL VARIANT PATH C N [--variable-length]
    local experiment=$1 id=$2 model=$3 variant=$4 path=$5 c=$6 n=$7
    shift 7
    local flags=() tree=()
    [ "$variant" = cluster ] && { flags=(--workers 0); tree=(--server-tree); }
    start_server "$id" "$model" "${flags[@]}" || return
    if warm_up "$id" "$path"; then
        run_py ab "$id" --experiment "$experiment" --server "$model" --variant "$variant" \
            --endpoint "$path" --url "$server_url$path" --status-url "$server_url/status" \
            --server-pid "$server_pid" "${tree[@]}" \
            -c "$c" -n "$n" "$@"
    fi
    finish_server "$id"
    time_wait_pause
}

step_tasks() {  # MODEL
    local model=$1 id="e4-tasks-$1"
    start_server "$id" "$model" || return
    run_py tasks "$id" --experiment E4 --server "$model" --endpoint /tasks --url "$server_url" \
        --delay-ms "$tasks_delay_ms" --server-log "$raw/$id.server.log"
    finish_server "$id"
}

step_siege() {  # MODEL
    local model=$1 id="e4-siege-$1"
    start_server "$id" "$model" || return
    if warm_up "$id" /json; then
        run_py siege "$id" --experiment E4 --server "$model" --endpoint /json \
            --url "$server_url/json" --status-url "$server_url/status" \
            --server-pid "$server_pid" --siegerc "$root/scripts/siegerc" \
            -c "$siege_users" --delay 1 --time "$siege_time" --timeout 900
    fi
    finish_server "$id"
    time_wait_pause
}

# ---- the plan: every step with its title, then run them in order ------------------------------
plan=()
add() { plan+=("$1"$'\t'"$2"); }  # add TITLE COMMAND
models=()
for m in blocking async; do [ -n "${want_server[$m]:-}" ] && models+=("$m"); done
if [ -n "${want_experiment[E1A]:-}" ]; then
    for m in "${models[@]}"; do
        add "E1a $m: --standalone $standalone_n" "step_standalone $m"
    done
fi
if [ -n "${want_experiment[E1B]:-}" ]; then
    variants=()
    [ -n "${want_server[blocking]:-}" ] && variants+=("blocking blocking single")
    [ -n "${want_server[async]:-}" ] \
        && variants+=("async async single" "async-cluster async cluster")
    for v in "${variants[@]}"; do
        read -r key m variant <<<"$v"
        for cn in "1 $html_c1_n" "20 $html_c20_n" "200 $html_c200_n"; do
            read -r c n <<<"$cn"
            add "E1b $key: ab -c $c -n $n /html" "step_ab E1b e1b-$key-c$c $m $variant /html $c $n"
        done
    done
fi
if [ -n "${want_experiment[E2]:-}" ]; then
    for m in "${models[@]}"; do
        add "E2 $m: ab -c 200 -n $hello_n /hello" "step_ab E2 e2-$m $m single /hello 200 $hello_n"
    done
fi
if [ -n "${want_experiment[E3]:-}" ]; then
    for m in "${models[@]}"; do
        add "E3 $m: ab -n $factorial_n -c 5 /factorial" \
            "step_ab E3 e3-$m $m single /factorial 5 $factorial_n"
        add "E3 $m: ab -l -n $factorial_n -c 5 /factorial" \
            "step_ab E3 e3-$m-l $m single /factorial 5 $factorial_n --variable-length"
    done
fi
if [ -n "${want_experiment[E4]:-}" ]; then
    for m in "${models[@]}"; do
        add "E4 $m: /tasks?delay_ms=$tasks_delay_ms demo" "step_tasks $m"
    done
    for m in "${models[@]}"; do
        add "E4 $m: siege -c $siege_users -d 1 -t $siege_time /json" "step_siege $m"
    done
fi

run_started=$SECONDS
for i in "${!plan[@]}"; do
    IFS=$'\t' read -r title action <<<"${plan[$i]}"
    echo "== [$((i + 1))/${#plan[@]}] $title   ($((SECONDS - run_started)) s elapsed)"
    read -ra words <<<"$action"
    "${words[@]}"
done

# ---- report -------------------------------------------------------------------------------------
echo "== report"
if ! python3 "$repro/report.py" --dir "$results_dir" --build-dir "$build_dir" \
        >"$results_dir/report.log" 2>&1; then
    fail_step report "report.py failed: $(tail -n 2 "$results_dir/report.log" | tr '\n' ' ')" \
        "$results_dir/report.log"
fi
[ -f "$results_dir/report.md" ] && cat "$results_dir/report.md"
echo
echo "== results in $results_dir ($((SECONDS - run_started)) s of runs)"
if [ "$failures" -gt 0 ]; then
    echo "== $failures step(s) failed:"
    cut -f1,3 "$steps_file" | sed 's/^/   /'
    exit 1
fi
exit 0
