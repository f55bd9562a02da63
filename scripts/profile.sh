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
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"

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
for tool in valgrind callgrind_control callgrind_annotate ab; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install valgrind apache2-utils)"
done

# prepare_build prints the compiler's errors itself when the build fails.
log=$(mktemp /tmp/profile-build.XXXXXX)
prepare_build "$log" >&2 || { rm -f "$log"; exit 1; }
rm -f "$log"
prepare_db >&2 || die "the private MariaDB did not start (scripts/db.sh start)"

out_flag=()
[ -n "$out" ] && out_flag=(--out "$(absolute "$out")")
exec "${harness[@]}" modelbench.profile "$model" --build-dir "$build_dir" --endpoint "$endpoint" \
    -c "$concurrency" -n "$requests" "${keepalive[@]}" --top "$top" "${out_flag[@]}" \
    -- "${server_flags[@]}"
