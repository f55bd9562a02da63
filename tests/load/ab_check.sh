#!/usr/bin/env bash
# Load acceptance with the real ApacheBench: starts a server binary on a free port of 127.0.0.1,
# runs ab against one endpoint, and fails unless every request completed with a 2xx status.
#
# Usage: tests/load/ab_check.sh [options] SERVER_BINARY ENDPOINT [AB_ARGS...]
#   --server-arg=ARG        pass ARG to the server (repeat for several)
#   --max-extra-threads N   sample the server's thread count during the run and fail if it ever
#                           has more than N threads beyond those it has when idle (a worker cap).
#                           The count is the Threads: line of /proc/PID/status, the kernel's own
#                           counter: listing /proc/PID/task is a walk, not a snapshot, and when a
#                           thread ends and another starts during the walk it can list both.
# Example: tests/load/ab_check.sh build/bin/blocking-server /html -k -c 200 -n 20000
set -euo pipefail

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }

server_args=()
max_extra_threads=""
while [ $# -gt 0 ]; do
    case $1 in
        --server-arg=*) server_args+=("${1#--server-arg=}"); shift ;;
        --max-extra-threads) max_extra_threads=${2:?--max-extra-threads needs a number}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        -*) echo "ab_check: unknown option '$1'" >&2; usage >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -lt 2 ]; then
    usage >&2
    exit 2
fi
binary=$1
endpoint=$2
shift 2
ab_args=("$@")
[ -x "$binary" ] || { echo "ab_check: $binary is not an executable" >&2; exit 2; }
command -v ab >/dev/null || { echo "ab_check: ab not found (apt-get install apache2-utils)" >&2; exit 2; }

work=$(mktemp -d /tmp/ab_check.XXXXXX)
server_pid=""
sampler_pid=""
cleanup() {
    [ -n "$sampler_pid" ] && kill "$sampler_pid" 2>/dev/null || true
    [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$binary" --listen 127.0.0.1:0 "${server_args[@]}" >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
port=""
for _ in $(seq 1 150); do
    port=$(sed -n 's|^listening on http://[^/]*:\([0-9]*\)/$|\1|p' "$work/stdout")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "ab_check: the server did not start:" >&2
    cat "$work/stderr" >&2
    exit 1
fi
url="http://127.0.0.1:$port$endpoint"

# Reads with shell builtins only: a sample costs no fork, so the sampler can run every 5 ms.
threads_of() {
    local key value
    while read -r key value _; do
        if [ "$key" = "Threads:" ]; then echo "$value"; return; fi
    done <"/proc/$1/status"
}
idle_threads=$(threads_of "$server_pid")
if [ -n "$max_extra_threads" ]; then
    (
        most=0 samples=0
        while [ ! -e "$work/stop-sampling" ] && threads=$(threads_of "$server_pid"); do
            if [ "$threads" -gt "$most" ]; then most=$threads; fi
            samples=$((samples + 1))
            sleep 0.005
        done 2>/dev/null
        echo "$most $samples" >"$work/threads"
    ) &
    sampler_pid=$!
fi

echo "ab_check: ab ${ab_args[*]} $url (server: $binary ${server_args[*]})"
ab_status=0
ab "${ab_args[@]}" "$url" >"$work/ab" 2>&1 || ab_status=$?
grep -vE '^(Completed|Finished) ' "$work/ab" | sed -n '/^Server Software/,$p'

failed=0
if [ "$ab_status" -ne 0 ]; then
    echo "ab_check: FAIL: ab exited with $ab_status:" >&2
    tail -n 5 "$work/ab" >&2
    failed=1
fi
if ! grep -qE '^Failed requests: +0$' "$work/ab"; then
    echo "ab_check: FAIL: ab counted failed requests" >&2
    failed=1
fi
if grep -q '^Non-2xx responses' "$work/ab"; then
    echo "ab_check: FAIL: $(grep '^Non-2xx responses' "$work/ab")" >&2
    failed=1
fi

if [ -n "$sampler_pid" ]; then
    touch "$work/stop-sampling"
    wait "$sampler_pid"
    sampler_pid=""
    read -r most samples <"$work/threads"
    extra=$((most - idle_threads))
    echo "ab_check: threads: $idle_threads when idle, at most $most during the run" \
         "($extra extra, limit $max_extra_threads; $samples samples)"
    if [ "$extra" -gt "$max_extra_threads" ]; then
        echo "ab_check: FAIL: $extra threads beyond the idle ones, more than $max_extra_threads" >&2
        failed=1
    fi
fi

kill -TERM "$server_pid"
server_status=0
wait "$server_pid" || server_status=$?
server_pid=""
if [ "$server_status" -ne 0 ]; then
    echo "ab_check: FAIL: the server exited with $server_status after SIGTERM" >&2
    tail -n 5 "$work/stderr" >&2
    failed=1
fi
[ "$failed" -eq 0 ] && echo "ab_check: PASS"
exit "$failed"
