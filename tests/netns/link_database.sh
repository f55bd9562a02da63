# shellcheck shell=bash
# What the namespace tests share (sourced; expects $root): the test runs inside
# scripts/lib/netns.sh, which makes the namespace and the veth pair, runs the script again with
# NETNS_NAME, NETNS_HOST_ADDR and NETNS_NS_ADDR set, and removes them after; then a work
# directory and the test's own MariaDB on the host's side of the link (DB_BIND), bench allowed
# from inside the namespace only (DB_ALLOW), on NETNS_TEST_DB_PORT (default 3306: free on that
# address unless something listens on every address). On exit the processes in test_pids are
# killed, the database stopped and the work directory removed.
#
#   link_database NAME "$0" "$@"     sets work and test_pids; DB_* exported for scripts/db.sh

link_database() {
    local name=$1 script=$2
    shift 2
    if [ -z "${NETNS_NAME:-}" ]; then
        exec bash "$root/scripts/lib/netns.sh" with bash "$script" "$@"
    fi
    work=$(mktemp -d "/tmp/$name.XXXXXX")
    export DB_DIR=$work/db DB_PORT=${NETNS_TEST_DB_PORT:-3306}
    export DB_BIND=$NETNS_HOST_ADDR DB_ALLOW=$NETNS_NS_ADDR
    test_pids=()
    trap link_database_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    echo "== database on $DB_BIND:$DB_PORT, bench allowed from $DB_ALLOW"
    bash "$root/scripts/db.sh" start >"$work/db.log" 2>&1 || { cat "$work/db.log" >&2; exit 1; }
}

link_database_cleanup() {
    local pid
    for pid in "${test_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    bash "$root/scripts/db.sh" stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
