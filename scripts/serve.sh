#!/usr/bin/env bash
# Launches one server as a benchmark target: installs what is missing, builds (Release, build/
# or $BUILD_DIR; the C++ servers only), starts the private MariaDB, then runs the server in the
# foreground and, once it listens, prints its URL and ready-to-paste ab and siege command lines for
# every endpoint. Ctrl-C stops the server (it finishes the requests in flight).
#
# usage: scripts/serve.sh blocking|async|php|node [server flags...]
#   scripts/serve.sh async                              the Node.js model on 127.0.0.1:8082
#   scripts/serve.sh async --workers 0                  ... replicated on every core
#   scripts/serve.sh blocking --db-connection persistent
#   scripts/serve.sh php                                the real Apache+PHP on 127.0.0.1:8083
#   scripts/serve.sh node --cluster                     the real Node.js, a worker per core (8084)
#   scripts/serve.sh blocking --help                    every flag of a server
# Exit status: the server's (0 after Ctrl-C), 2 on bad arguments, 1 when preparation failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/prepare.sh
source "$root/scripts/lib/prepare.sh"

usage() { sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; }

case ${1:-} in
    -h|--help) usage; exit 0 ;;
    blocking|async|php|node) model=$1; shift ;;
    "") echo "serve.sh: which server? blocking, async, php or node" >&2; usage >&2; exit 2 ;;
    *) echo "serve.sh: unknown server '$1' (blocking, async, php or node)" >&2; usage >&2; exit 2 ;;
esac

# --help, --version and --standalone need no announcement; only a listening server does.
listening=1
for flag in "$@"; do
    case $flag in -h|--help|--version|--standalone|--standalone=*) listening=0 ;; esac
done

die() { echo "serve.sh: $*" >&2; exit 1; }
prepare_deps || die "installing dependencies failed"
case $model in
    # The real peers need no build; they take the same --listen and print the same ready line.
    php) binary=$root/servers/php/apache-server ;;
    node) binary=$root/servers/node/node-server ;;
    *)
        prepare_build "$build_dir/modelbench-build.log" >&2 || exit 1
        binary=$(server_binary "$model")
        [ -x "$binary" ] || die "$binary was not built"
        ;;
esac
if [ "$listening" -eq 0 ]; then
    case " $* " in *" --standalone"*) prepare_db >&2 || exit 1 ;; esac
    exec "$binary" "$@"
fi
prepare_db >&2 || die "the private MariaDB did not start (scripts/db.sh start)"

print_commands() {  # print_commands URL
    local url=${1%/} host port
    host=${url#http://}
    port=${host##*:}
    host=${host%:*}
    # A wildcard address is not something to connect to; the loopback reaches it.
    case $host in 0.0.0.0|'[::]') url="http://127.0.0.1:$port" ;; esac
    local siege
    siege="siege -R $(printf %q "$root/scripts/siegerc")"
    cat <<EOF

$model server ready at $url/  (Ctrl-C stops it). From another terminal:

# E1b /html: two queries, both tables rendered (31.8 KiB)
ab -c 1 -n 500 $url/html
ab -c 20 -n 2000 $url/html
ab -c 200 -n 20000 $url/html
$siege -c 200 -d 1 -t 60S $url/html

# siege 4.0.7 sometimes hangs after "Lifting the server siege..." (JoeDog/siege#4, a glibc
# thread-cancellation bug): then only kill -9 stops it, and it prints no summary.

# E4 /json: the orders table as JSON (14 KB)
ab -c 200 -n 20000 $url/json
$siege -c 500 -d 1 -t 60S $url/json

# E2 /hello: 16 bytes
ab -c 200 -n 100000 $url/hello
$siege -b -c 200 -t 30S $url/hello

# E3 /factorial: n! for a random n in 10..40 (-l: accept the varying length)
ab -n 1000 -c 5 $url/factorial
ab -l -n 1000 -c 5 $url/factorial
$siege -c 5 -d 1 -t 30S $url/factorial

EOF
    # The real Apache+PHP serves the blog's pages only: no /tasks demo; the peers have no counters.
    [ "$model" = php ] || cat <<EOF
# E4 /tasks: the deferred task; watch this terminal for the task lines
ab -c 10 -n 10 '$url/tasks?delay_ms=2000'
$siege -c 10 -d 1 -t 20S '$url/tasks?delay_ms=2000'

EOF
    case $model in blocking|async) printf '# counters\ncurl -s %s/status\n\n' "$url" ;; esac
}

announce() {  # passes the server's stdout through and prints the commands once it listens
    # Keep reading through Ctrl-C until the server closes its stdout, so its last lines are
    # not lost and it never gets SIGPIPE.
    trap '' INT
    local line
    while IFS= read -r line; do
        printf '%s\n' "$line"
        case $line in "listening on http://"*) print_commands "${line#listening on }" ;; esac
    done
}

"$binary" "$@" | announce
exit "${PIPESTATUS[0]}"
