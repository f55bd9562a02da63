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
#   scripts/serve.sh async --listen 0.0.0.0:8082 --db-host 10.0.0.3
#                         on every address, for a load generator on another machine
#                         (scripts/reproduce.sh --target async=http://THIS_HOST:8082), its
#                         database on a third (there: DB_BIND=10.0.0.3 DB_ALLOW=... db.sh start)
# --listen HOST:PORT takes one address of this machine, or 0.0.0.0 for all of them; with a
# --db-host other than the loopback no private MariaDB is started here. The servers
# are benchmark targets, not internet-facing services: they have no TLS, no authentication and
# a /status that tells anyone what runs; listen on a private network only.
# Exit status: the server's (0 after Ctrl-C), 2 on bad arguments, 1 when preparation failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"

case ${1:-} in
    -h|--help) usage; exit 0 ;;
    blocking|async|php|node) model=$1; shift ;;
    "") echo "serve.sh: which server? blocking, async, php or node" >&2; usage >&2; exit 2 ;;
    *) echo "serve.sh: unknown server '$1' (blocking, async, php or node)" >&2; usage >&2; exit 2 ;;
esac

# --help, --version and --standalone need no announcement; only a listening server does. A
# database on another host (--db-host, or MYSQL_HOST) is not the private MariaDB of this one.
listening=1
db_host=${MYSQL_HOST:-127.0.0.1}
previous=""
for flag in "$@"; do
    case $flag in -h|--help|--version|--standalone|--standalone=*) listening=0 ;; esac
    case $flag in --db-host=*) db_host=${flag#--db-host=} ;; esac
    [ "$previous" = --db-host ] && db_host=$flag
    previous=$flag
done
local_db=1
case $db_host in 127.*|localhost|::1) ;; *) local_db=0 ;; esac

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
    case " $* " in *" --standalone"*) [ "$local_db" -eq 0 ] || prepare_db >&2 || exit 1 ;; esac
    exec "$binary" "$@"
fi
if [ "$local_db" -eq 1 ]; then
    prepare_db >&2 || die "the private MariaDB did not start (scripts/db.sh start)"
else
    echo "serve.sh: the database is at $db_host: no private MariaDB started here" >&2
fi

exec "${harness[@]}" modelbench.serve "$model" --build-dir "$build_dir" -- "$@"
