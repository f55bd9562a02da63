#!/usr/bin/env bash
# The project's private MariaDB: data, socket, pid file and log under var/mariadb/ of this checkout
# (or $DB_DIR), TCP on 127.0.0.1:$DB_PORT (default 3307). Never touches the system's MariaDB service.
# A second instance, e.g. for fault tests: DB_DIR=var/mariadb-faults DB_PORT=3309 scripts/db.sh start
#   scripts/db.sh start   initialise and load sql/ when needed, start, wait until it answers
#   scripts/db.sh stop    shut down cleanly
#   scripts/db.sh status  exit 0 when running (prints where), 3 when not
#   scripts/db.sh reset   stop, wipe the data directory, start again from sql/
#   scripts/db.sh socket  print the unix socket path
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${DB_PORT:-3307}
dir=${DB_DIR:-$root/var/mariadb}
case $dir in /*) ;; *) dir="$root/$dir" ;; esac
data="$dir/data"
sock="$dir/mysqld.sock"
pidfile="$dir/mysqld.pid"
log="$dir/error.log"
sqlstamp="$dir/sql.sha256"
me=$(id -un)

die() { echo "db: $*" >&2; exit 1; }

running_pid() {
    [ -f "$pidfile" ] || return 1
    local pid
    pid=$(cat "$pidfile" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -qa mariadbd "/proc/$pid/cmdline" 2>/dev/null \
        && echo "$pid"
}

client() { mariadb --no-defaults --socket="$sock" -u "$me" "$@"; }

sql_checksum() { cat "$root"/sql/*.sql | sha256sum | cut -d' ' -f1; }

load_sql() {
    echo "db: loading sql/ into the private instance"
    for f in "$root"/sql/*.sql; do
        client < "$f" || die "loading $f failed"
    done
    sql_checksum > "$sqlstamp"
}

start() {
    mkdir -p "$dir"
    if pid=$(running_pid); then
        echo "db: already running (pid $pid, port $port, socket $sock)"
    else
        if [ -e "$pidfile" ] || [ -e "$sock" ]; then
            echo "db: removing stale pid/socket files of a mariadbd that is no longer running"
            rm -f "$pidfile" "$sock"
        fi
        command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] \
            || die "mariadbd not found: run scripts/deps.sh first"
        if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
            die "port 127.0.0.1:$port is already taken by another process; free it or use DB_PORT=<port>"
        fi
        if [ ! -d "$data/mysql" ]; then
            echo "db: initialising $data"
            rm -rf "$data" "$sqlstamp"
            mariadb-install-db --no-defaults --datadir="$data" --user="$me" \
                --auth-root-authentication-method=socket --auth-root-socket-user="$me" \
                --skip-test-db >"$dir/install.log" 2>&1 \
                || die "mariadb-install-db failed, see $dir/install.log"
        fi
        local user_flag=()
        [ "$(id -u)" -eq 0 ] && user_flag=(--user=root)
        # setsid: the instance outlives this script and ignores the caller's Ctrl-C.
        setsid /usr/sbin/mariadbd --no-defaults "${user_flag[@]}" \
            --datadir="$data" --socket="$sock" --pid-file="$pidfile" --log-error="$log" \
            --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
            --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
            --max-connections=2000 --max-connect-errors=1000000 --back-log=1024 \
            --innodb-buffer-pool-size=128M --skip-log-bin \
            </dev/null >/dev/null 2>&1 &
        local launcher=$!
        for _ in $(seq 1 300); do
            if mariadb-admin --no-defaults --socket="$sock" -u "$me" ping >/dev/null 2>&1; then
                break
            fi
            if ! kill -0 "$launcher" 2>/dev/null; then
                tail -n 20 "$log" >&2 || true
                die "mariadbd exited during start-up, see $log"
            fi
            sleep 0.1
        done
        mariadb-admin --no-defaults --socket="$sock" -u "$me" ping >/dev/null 2>&1 \
            || die "mariadbd did not answer within 30 s, see $log"
        echo "db: started (pid $(cat "$pidfile"), port $port, socket $sock)"
    fi
    if [ ! -f "$sqlstamp" ] || [ "$(cat "$sqlstamp")" != "$(sql_checksum)" ]; then
        load_sql
    fi
}

stop() {
    local pid
    if ! pid=$(running_pid); then
        echo "db: not running"
        rm -f "$pidfile" "$sock"
        return 0
    fi
    mariadb-admin --no-defaults --socket="$sock" -u "$me" shutdown >/dev/null 2>&1 || kill -TERM "$pid"
    for _ in $(seq 1 300); do
        kill -0 "$pid" 2>/dev/null || { echo "db: stopped"; return 0; }
        sleep 0.1
    done
    echo "db: mariadbd (pid $pid) ignored shutdown for 30 s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile" "$sock"
}

status() {
    local pid
    if pid=$(running_pid); then
        echo "db: running (pid $pid, port $port, socket $sock, data $data)"
    else
        echo "db: not running"
        return 3
    fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    reset) stop; rm -rf "$data" "$sqlstamp"; start ;;
    socket) echo "$sock" ;;
    *) echo "usage: scripts/db.sh start|stop|status|reset|socket   (env DB_PORT, default 3307; DB_DIR)" >&2
       exit 2 ;;
esac
