#!/usr/bin/env bash
# Profiles one server with valgrind's callgrind under a bounded ab run: instruction counts, which
# repeat from run to run on a busy machine where timings do not. The server starts under
# callgrind, answers one warm-up request per endpoint (and ab -n 100 on the measured one), the
# counters are zeroed, ab runs, the server stops; what is printed covers the measured requests
# (and the shutdown): instructions per request and the functions that spent the most (exclusive).
#
# usage: scripts/profile.sh blocking|async [options] [-- server flags...]
#   --endpoint PATH   the endpoint ab requests (default /html)
#   -c C              ab's concurrency (default 20)
#   -n N              ab's requests (default 2000; under callgrind a server is ~50x slower)
#   -k                ab keep-alive
#   --top N           functions listed (default 25)
#   --out FILE        keep the callgrind output there (default: a temporary file)
# Examples:
#   scripts/profile.sh async --endpoint /hello -k -n 20000
#   scripts/profile.sh blocking -- --db-connection persistent
# BUILD_DIR selects the build tree (default build/); use a Release build.
# Exit status: 0 on success, 1 when the run failed, 2 on bad arguments.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/prepare.sh
source "$root/scripts/lib/prepare.sh"

usage() { sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; }
bad_usage() { echo "profile.sh: $*" >&2; echo "try: scripts/profile.sh --help" >&2; exit 2; }
die() { echo "profile.sh: $*" >&2; exit 1; }

case ${1:-} in
    -h|--help) usage; exit 0 ;;
    blocking|async) model=$1; shift ;;
    "") bad_usage "which server? blocking or async" ;;
    *) bad_usage "unknown server '$1' (blocking or async)" ;;
esac
endpoint=/html
concurrency=20
requests=2000
keepalive=()
top=25
out=""
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then bad_usage "$1 needs a value"; fi; }
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --endpoint) need_value "$@"; endpoint=$2; shift ;;
        -c) need_value "$@"; concurrency=$2; shift ;;
        -n) need_value "$@"; requests=$2; shift ;;
        -k) keepalive=(-k) ;;
        --top) need_value "$@"; top=$2; shift ;;
        --out) need_value "$@"; out=$2; shift ;;
        --) shift; break ;;
        *) bad_usage "unknown argument '$1' (server flags go after --)" ;;
    esac
    shift
done
server_flags=("$@")
[[ $endpoint == /* ]] || bad_usage "--endpoint must be a path, not '$endpoint'"
for value in "$concurrency" "$requests" "$top"; do
    [[ $value =~ ^[1-9][0-9]*$ ]] || bad_usage "-c, -n and --top take a positive number, not '$value'"
done
[ "$concurrency" -le "$requests" ] || bad_usage "-c $concurrency is more than -n $requests"
for tool in valgrind callgrind_control callgrind_annotate ab curl; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install valgrind apache2-utils curl)"
done

work=$(mktemp -d /tmp/profile.XXXXXX)
out=${out:-$work/callgrind.out}
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "profile.sh: interrupted" >&2; exit 130' INT TERM

# prepare_build prints the compiler's errors itself when the build fails.
prepare_build "$work/build.log" >&2 || exit 1
prepare_db >&2 || die "the private MariaDB did not start (scripts/db.sh start)"

binary=$(server_binary "$model")
echo "== callgrind: $binary ${server_flags[*]}"
valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$binary" --listen 127.0.0.1:0 "${server_flags[@]}" >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
url=""
for _ in $(seq 1 300); do
    url=$(grep -m1 -o 'http://[^ ]*/' "$work/stdout" 2>/dev/null) && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$url" ] || die "the server did not start under valgrind: $(tail -n 5 "$work/stderr")"
url=${url%/}

for path in /html /json /hello "$endpoint"; do
    code=$(curl -s -m 60 -o /dev/null -w '%{http_code}' "$url$path")
    [ "$code" = 200 ] || die "GET $path answered '$code' before the run"
done
ab -q "${keepalive[@]}" -c "$concurrency" -n 100 "$url$endpoint" >/dev/null 2>&1 \
    || die "the warm-up ab run failed"
callgrind_control -z "$server_pid" >/dev/null || die "callgrind_control -z failed"
echo "== ab ${keepalive[*]} -c $concurrency -n $requests $url$endpoint"
ab -r "${keepalive[@]}" -c "$concurrency" -n "$requests" "$url$endpoint" >"$work/ab" 2>&1 \
    || die "ab failed: $(tail -n 3 "$work/ab")"
grep -E '^(Complete|Failed) requests|^Non-2xx' "$work/ab"
# The profile is written when the server exits: counted from the zeroing on, so the measured
# requests and the shutdown, which costs little next to them. (A dump taken mid-run would book
# the frames then on a stack with whole-run costs.)
kill -TERM "$server_pid"
wait "$server_pid" 2>/dev/null
server_pid=""

dump="$out"
[ -s "$dump" ] || die "no callgrind output in $dump"
complete=$(sed -n 's/^Complete requests: *//p' "$work/ab")
total=$(callgrind_annotate "$dump" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' \
    | tr -d ,)
if [ -z "$total" ] || [ "${complete:-0}" -eq 0 ]; then die "no totals in $dump"; fi
echo "== $((total / complete)) instructions per request ($total over $complete requests)"
echo "== top $top functions by instructions spent in them (exclusive), per request"
# Function names shortened: no argument lists, no template arguments, no library paths.
callgrind_annotate --inclusive=no --threshold=100 "$dump" 2>/dev/null \
    | awk -v n="$top" -v requests="$complete" '
        /^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ {
            count = $1; gsub(",", "", count)
            # Frames that were on a stack when the counters were zeroed (program and thread
            # entry, the event loop) come out with the costs of all they called since.
            if ($0 ~ /ld-linux|start_thread|_M_run|__libc_start_main|:main |Worker::run/ ||
                $0 ~ /\(below main\)|:clone |:0x[0-9a-f]+ \[.*libstdc\+\+/) next
            name = $0; sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "", name)
            sub(/ \[[^]]*\]$/, "", name); sub(/^[^:]*:/, "", name)
            while (gsub(/<[^<>]*>/, "", name)) {}
            while (gsub(/\([^()]*\)/, "", name)) {}
            if (name == "") next
            if (++shown > n) exit
            printf "%10.0f  %5.1f%%  %s\n", count / requests, 100 * count / total, name
        }' total="$total"
[ "$out" = "$work/callgrind.out" ] || echo "== callgrind output: $out"
