#!/usr/bin/env bash
# A server and its database on two "machines": each server runs in a network namespace joined to
# the host by a veth pair (scripts/lib/netns.sh), listens on the namespace's address and uses a
# MariaDB of its own on the host's side of the link (scripts/db.sh with DB_BIND and DB_ALLOW).
# For each server it checks that
#   - curl on the host gets /hello across the link;
#   - /json comes across the link from the database, byte for byte what the same server on the
#     host returns reading that database by its unix socket;
#   - ab across the link (-n 500 -c 20 /json) has no failed or non-2xx request;
# and for the database that it listens on DB_BIND only and lets bench in from DB_ALLOW only: from
# inside the namespace bench reads sampledb, from the host's address of the link it is refused;
# also when DB_ALLOW, given to the running database as a CIDR block, replaces the address.
# Exits 77 (CTest: skipped) where network namespaces are not available.
#
# Usage: tests/netns/server_across_link.sh SERVER_BINARY...
# NETNS_TEST_DB_PORT: the database's port on the link's host address (default 3306: free there
# unless something listens on every address).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -eq 0 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -gt 0 ] && exit 0
    exit 2
fi
for binary in "$@"; do
    [ -x "$binary" ] || { echo "server_across_link: $binary is not an executable" >&2; exit 2; }
done
for tool in curl ab mariadb; do
    command -v "$tool" >/dev/null || { echo "server_across_link: $tool not found (scripts/deps.sh)" >&2; exit 2; }
done
# shellcheck source=tests/netns/link_database.sh
source "$root/tests/netns/link_database.sh"
link_database server_across_link "$0" "$@"
db_pid=$(cat "$DB_DIR/mysqld.pid")

failures=0
check() {  # check WHAT COMMAND...: runs COMMAND, prints ok or FAIL
    local what=$1
    shift
    if "$@"; then
        echo "ok    $what"
    else
        echo "FAIL  $what"
        failures=$((failures + 1))
    fi
}

listens_only_on_bind() {
    local addresses
    addresses=$(ss -Hltnp | awk -v pid="pid=$db_pid," 'index($0, pid) {print $4}')
    echo "      mariadbd listens on: $addresses"
    [ "$addresses" = "$DB_BIND:$DB_PORT" ]
}
bench_query() {  # bench_query [ip netns exec NAME]: the orders counted by bench over the link
    "$@" mariadb --no-defaults -h "$DB_BIND" -P "$DB_PORT" -u bench -pbench -N \
        -e 'SELECT COUNT(*) FROM sampledb.orders' 2>&1
}
allowed_from_namespace() { [ "$(bench_query ip netns exec "$NETNS_NAME")" = 300 ]; }
refused_from_host() {
    local out
    out=$(bench_query) && return 1
    echo "      from the host: $out"
    [[ $out == *"is not allowed to connect"* ]]
}
check "mariadbd listens on DB_BIND only" listens_only_on_bind
check "bench reads sampledb from inside the namespace ($NETNS_NS_ADDR)" allowed_from_namespace
check "bench is refused from the host's side of the link ($NETNS_HOST_ADDR)" refused_from_host

# start_server LOG COMMAND...: starts a server, waits for its ready line, sets server_pid and url.
start_server() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 &
    server_pid=$!
    test_pids=("$server_pid")
    url=""
    for _ in $(seq 1 100); do
        url=$(sed -n 's|^listening on \(http://[^ ]*/\)$|\1|p' "$log")
        [ -n "$url" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "server did not start: $*" >&2
    cat "$log" >&2
    return 1
}
stop_server() {
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

for binary in "$@"; do
    name=$(basename "$binary")
    echo "== $name on the host, reading the database by its unix socket: the reference /json"
    start_server "$work/$name.host.log" "$binary" --listen 127.0.0.1:0 \
        --db-socket "$DB_DIR/mysqld.sock"
    curl -sS --max-time 10 -o "$work/$name.reference.json" "${url}json"
    stop_server

    echo "== $name inside $NETNS_NAME on $NETNS_NS_ADDR, database at $DB_BIND:$DB_PORT"
    start_server "$work/$name.inside.log" ip netns exec "$NETNS_NAME" "$binary" \
        --listen "$NETNS_NS_ADDR:0" --db-host "$DB_BIND" --db-port "$DB_PORT"
    echo "      $url"
    hello=$(curl -sS --max-time 10 "${url}hello" || true)
    check "$name: /hello from the host across the link" [ "$hello" = "Hello World! 10" ]
    status=$(curl -sS --max-time 10 -o "$work/$name.json" -w '%{http_code}' "${url}json" || true)
    check "$name: /json across the link answers 200" [ "$status" = 200 ]
    check "$name: /json is what the database gives on the host ($(wc -c <"$work/$name.reference.json") bytes)" \
        cmp -s "$work/$name.json" "$work/$name.reference.json"
    ab -q -n 500 -c 20 "${url}json" >"$work/$name.ab.txt" 2>&1 || true
    complete=$(sed -n 's/^Complete requests: *//p' "$work/$name.ab.txt")
    failed=$(sed -n 's/^Failed requests: *//p' "$work/$name.ab.txt")
    non2xx=$(sed -n 's/^Non-2xx responses: *//p' "$work/$name.ab.txt")
    echo "      ab -n 500 -c 20 /json: complete ${complete:-?}, failed ${failed:-?}," \
        "non-2xx ${non2xx:-0}, $(sed -n 's/^Requests per second: *\([0-9.]*\).*/\1/p' \
            "$work/$name.ab.txt") requests/s"
    ab_clean() { [ "${complete:-}" = 500 ] && [ "${failed:-}" = 0 ] && [ -z "$non2xx" ]; }
    check "$name: ab across the link, every request 2xx" ab_clean
    stop_server
done

echo "== DB_ALLOW=$NETNS_NS_ADDR/31 given to the running database replaces the address"
DB_ALLOW=$NETNS_NS_ADDR/31 bash "$root/scripts/db.sh" start >>"$work/db.log" 2>&1
bench_hosts=$(mariadb --no-defaults --socket="$DB_DIR/mysqld.sock" -N -e \
    "SELECT GROUP_CONCAT(Host ORDER BY Host) FROM mysql.user WHERE User = 'bench'")
echo "      bench's hosts: $bench_hosts"
check "the block became its netmask form, the address is gone" \
    [ "$bench_hosts" = "${NETNS_NS_ADDR%.*}.2/255.255.255.254,127.0.0.1,localhost" ]
check "bench still reads sampledb from inside the namespace" allowed_from_namespace
check "bench is still refused from the host's side of the link" refused_from_host

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks held"
