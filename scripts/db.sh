#!/usr/bin/env bash
# The project's private MariaDB: data, socket, pid file and log under var/mariadb/ of this checkout
# (or $DB_DIR), TCP on 127.0.0.1:$DB_PORT (default 3307); never the system's MariaDB service.
#   scripts/db.sh start|stop|status|reset|socket   start: initialise and load sql/ when needed,
#   start, wait until it answers; status: exit 0 when running (prints where), 3 when not; reset:
#   stop, wipe the data, start again from sql/; socket: print the unix socket path.
# A second instance, e.g. for fault tests: DB_DIR=var/mariadb-faults DB_PORT=3309 scripts/db.sh start
# Serving other hosts (DB_BIND: the addresses it listens on; DB_ALLOW: where the user bench may log
# in from besides this machine): docs/network.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${DB_PORT:-3307}
bind=${DB_BIND:-127.0.0.1}
dir=${DB_DIR:-$root/var/mariadb}
case $dir in /*) ;; *) dir="$root/$dir" ;; esac
data="$dir/data"
sock="$dir/mysqld.sock"
pidfile="$dir/mysqld.pid"
log="$dir/error.log"
sqlstamp="$dir/sql.sha256"
me=$(id -un)

die() { echo "db: $*" >&2; exit 1; }

[[ $bind =~ ^[0-9A-Za-z.:*,-]+$ ]] || die "DB_BIND='$bind' is not an address or a comma-separated list"

dotted() { echo "$(($1 >> 24)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"; }

# host_pattern TEXT: DB_ALLOW as the host part of a MariaDB account; a CIDR block becomes
# ADDRESS/NETMASK with the address masked, since MariaDB 10.11 keeps '10.0.0.0/24' as a name that
# no client matches.
host_pattern() {
    local text=$1
    if [[ $text =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})/([0-9]{1,2})$ ]]; then
        local bits=${BASH_REMATCH[5]} i octet mask address=0
        [ "$bits" -le 32 ] || die "DB_ALLOW='$text': a prefix length is 0..32"
        for i in 1 2 3 4; do
            octet=${BASH_REMATCH[$i]}
            [ "$octet" -le 255 ] || die "DB_ALLOW='$text' is not an IPv4 address"
            address=$(((address << 8) | octet))
        done
        mask=$(((0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF))
        echo "$(dotted $((address & mask)))/$(dotted "$mask")"
    elif [[ $text =~ ^[0-9A-Fa-f.:%_]+(/[0-9.]+)?$ ]]; then
        echo "$text"
    else
        die "DB_ALLOW='$text' is not a host pattern (10.0.0.%, 10.0.0.0/24, 10.0.0.0/255.255.255.0)"
    fi
}
allow=""
[ -z "${DB_ALLOW:-}" ] || allow=$(host_pattern "$DB_ALLOW")

running_pid() {
    local pid
    pid=$(cat "$pidfile" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -qa mariadbd "/proc/$pid/cmdline" 2>/dev/null \
        && echo "$pid"
}

client() { mariadb --no-defaults --socket="$sock" -u "$me" "$@"; }
admin() { mariadb-admin --no-defaults --socket="$sock" -u "$me" "$@" >/dev/null 2>&1; }

sql_checksum() { cat "$root"/sql/*.sql | sha256sum | cut -d' ' -f1; }

# bench may log in from localhost and 127.0.0.1 (sql/03_users.sql) and from $allow; any other host
# it has (an earlier DB_ALLOW, the '%' of older checkouts) is dropped.
allow_bench_from_network() {
    local host
    while IFS= read -r host; do
        case $host in localhost | 127.0.0.1 | "$allow") ;; *)
            client -e "DROP USER 'bench'@'$host'" || die "dropping bench@$host failed" ;;
        esac
    done < <(client -N -e "SELECT Host FROM mysql.user WHERE User = 'bench'")
    if [ -n "$allow" ]; then
        client -e "CREATE USER IF NOT EXISTS 'bench'@'$allow' IDENTIFIED BY 'bench';
                   GRANT SELECT ON sampledb.* TO 'bench'@'$allow'" \
            || die "allowing bench from $allow failed"
        echo "db: user bench may log in from $allow"
    fi
}

# port_taken: another listener on $port where mariadbd would bind (the same address, or either
# side a wildcard).
port_taken() {
    local address host b binds
    IFS=, read -ra binds <<<"$bind"
    while read -r address; do
        host=${address%:*}
        host=${host#[}
        host=${host%]}
        host=${host%%%*}
        for b in "${binds[@]}"; do
            case $b in 0.0.0.0 | '*' | ::) return 0 ;; esac
            case $host in "$b" | 0.0.0.0 | '*' | ::) return 0 ;; esac
        done
    done < <(ss -Hltn "sport = :$port" 2>/dev/null | awk '{print $4}')
    return 1
}

running_bind() { client -N -e 'SELECT @@bind_address' 2>/dev/null; }

start() {
    # Interrupted before it is ready: the instance this call started is its to stop.
    trap 'stop_launched 130' INT
    trap 'stop_launched 143' TERM
    mkdir -p "$dir"
    local sync_users=""
    if pid=$(running_pid); then
        local serving
        serving=$(running_bind)
        [ -z "${DB_BIND:-}" ] || [ "$serving" = "$bind" ] \
            || die "already running on $serving, not DB_BIND=$bind: scripts/db.sh stop first"
        echo "db: already running (pid $pid, $serving:$port, socket $sock)"
        [ "${DB_ALLOW+set}" = set ] && sync_users=yes
    else
        sync_users=yes
        if [ -e "$pidfile" ] || [ -e "$sock" ]; then
            echo "db: removing stale pid/socket files of a mariadbd that is no longer running"
            rm -f "$pidfile" "$sock"
        fi
        command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] \
            || die "mariadbd not found: run scripts/deps.sh first"
        ! port_taken || die "port $port on $bind is already taken by another process; free it or use DB_PORT=<port>"
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
            --port="$port" --bind-address="$bind" --skip-name-resolve \
            --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
            --max-connections=2000 --max-connect-errors=1000000 --back-log=1024 \
            --innodb-buffer-pool-size=128M --skip-log-bin \
            </dev/null >/dev/null 2>&1 &
        launcher=$!
        for _ in $(seq 1 300); do
            admin ping && break
            if ! kill -0 "$launcher" 2>/dev/null; then
                tail -n 20 "$log" >&2 || true
                die "mariadbd exited during start-up, see $log"
            fi
            sleep 0.1
        done
        admin ping || die "mariadbd did not answer within 30 s, see $log"
        echo "db: started (pid $(cat "$pidfile"), $bind:$port, socket $sock)"
    fi
    if [ ! -f "$sqlstamp" ] || [ "$(cat "$sqlstamp")" != "$(sql_checksum)" ]; then
        echo "db: loading sql/ into the private instance"
        for f in "$root"/sql/*.sql; do
            client < "$f" || die "loading $f failed"
        done
        sql_checksum > "$sqlstamp"
        sync_users=yes
    fi
    [ -z "$sync_users" ] || allow_bench_from_network
    trap - INT TERM
}

# gone_within PID TENTHS: true once PID has exited (a zombie counts), false after TENTHS × 0.1 s.
gone_within() {
    for _ in $(seq 1 "$2"); do
        [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || echo Z)" != Z ] || return 0
        sleep 0.1
    done
    return 1
}

# stop_launched STATUS: stops the mariadbd this start launched, then exits with STATUS. A TERM
# landing as mariadbd sets up its signal thread (about 0.2 s in) is lost: 5 s, then KILL.
launcher=""
stop_launched() {
    echo "db: interrupted; stopping the mariadbd it started" >&2
    if [ -n "$launcher" ]; then
        kill -TERM "$launcher" 2>/dev/null || true
        gone_within "$launcher" 50 || kill -KILL "$launcher" 2>/dev/null || true
        wait "$launcher" 2>/dev/null || true
    fi
    rm -f "$pidfile" "$sock"
    exit "$1"
}

stop() {
    local pid
    if ! pid=$(running_pid); then
        echo "db: not running"
    else
        admin shutdown || kill -TERM "$pid"
        gone_within "$pid" 300 && { echo "db: stopped"; return 0; }
        echo "db: mariadbd (pid $pid) ignored shutdown for 30 s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile" "$sock"
}

status() {
    local pid
    pid=$(running_pid) || { echo "db: not running"; return 3; }
    echo "db: running (pid $pid, $(running_bind):$port, socket $sock, data $data)"
    echo "db: user bench may log in from: $(client -N -e \
        "SELECT GROUP_CONCAT(Host ORDER BY Host SEPARATOR ', ') FROM mysql.user WHERE User = 'bench'")"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    reset) stop; rm -rf "$data" "$sqlstamp"; start ;;
    socket) echo "$sock" ;;
    *) echo "usage: scripts/db.sh start|stop|status|reset|socket   (env DB_PORT, default 3307; DB_DIR;" \
            "DB_BIND, default 127.0.0.1; DB_ALLOW)" >&2
       exit 2 ;;
esac
