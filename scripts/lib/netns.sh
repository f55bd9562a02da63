#!/usr/bin/env bash
# A network namespace joined to this host by a veth pair: a second "machine" on one box, for tests
# and experiments across a real network link (another IP stack, its own ports and loopback).
# Usage: scripts/lib/netns.sh check | with COMMAND [ARGS...] | exec COMMAND [ARGS...]
#   check  exit 0 when namespaces can be made here; else say why and exit 77
#   with   make a namespace, run COMMAND on the host side with NETNS_NAME, NETNS_HOST_ADDR and
#          NETNS_NS_ADDR in its environment (start processes inside with
#          `ip netns exec "$NETNS_NAME" ...`), then tear everything down
#   exec   the same, but COMMAND runs inside the namespace
# The pair gets 10.77.N.1/24 on the host side and 10.77.N.2/24 inside (lo is up too), N the first
# free number in 1..254 (NETNS_SUBNET=10.X to use another 10.x block). Everything is removed when
# COMMAND ends, fails or the script is interrupted: processes still inside are killed, then the
# namespace and the pair deleted. A namespace whose owner was killed (SIGKILL) is removed by the next
# run. Exit status: COMMAND's; 77 when no namespace could be made (tests skip on it); 2 on bad usage.
# Needs root and iproute2.
set -euo pipefail

subnet=${NETNS_SUBNET:-10.77}
state_dir=/run/modelbench-netns
lock_file=/run/lock/modelbench-netns.lock

usage() { sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//'; }

unavailable() {
    echo "netns: network namespaces are not available here: $*" >&2
    exit 77
}

# check_available: root, iproute2, and the kernel lets us make a namespace with a veth pair.
check_available() {
    [ "$EUID" -eq 0 ] || unavailable "they need root"
    command -v ip >/dev/null || unavailable "'ip' not found (apt-get install iproute2)"
    if ! [[ $subnet =~ ^10\.([0-9]{1,3})$ ]] || [ "${BASH_REMATCH[1]}" -gt 255 ]; then
        echo "netns: NETNS_SUBNET='$subnet' is not 10.X" >&2
        exit 2
    fi
    local probe=mbprobe$$ out
    out=$(ip netns add "$probe" 2>&1) || unavailable "creating one was refused: $out"
    out=$(ip link add "${probe}h" type veth peer name "${probe}n" netns "$probe" 2>&1) || {
        ip netns del "$probe" 2>/dev/null || true
        unavailable "creating a veth pair was refused: $out"
    }
    ip link del "${probe}h" 2>/dev/null || true
    ip netns del "$probe"
}

# owner_alive N: the process that made namespace N still runs (pid and start time recorded).
owner_alive() {
    local pid start
    read -r pid start <"$state_dir/$1.owner" 2>/dev/null || return 1
    [ -r "/proc/$pid/stat" ] && [ "$(awk '{print $22}' "/proc/$pid/stat")" = "$start" ]
}

kill_inside() {
    local name=$1 pids
    pids=$(ip netns pids "$name" 2>/dev/null) && [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 1 20); do
        pids=$(ip netns pids "$name" 2>/dev/null)
        [ -n "$pids" ] || return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
}

remove() {
    local n=$1
    kill_inside "modelbench$n"
    ip link del "mbveth${n}h" 2>/dev/null || true
    ip netns del "modelbench$n" 2>/dev/null || true
    rm -f "$state_dir/$n.owner"
}

# create: the first free N (removing namespaces of dead owners on the way); sets n.
create() {
    mkdir -p "$state_dir" "$(dirname "$lock_file")"
    exec {lock}>"$lock_file"
    flock "$lock"
    local i out
    for i in $(seq 1 254); do
        if ip netns list | grep -qw "modelbench$i"; then
            owner_alive "$i" && continue
            echo "netns: removing modelbench$i, left behind by a run that was killed" >&2
            remove "$i"
        fi
        # A block some interface of the host already uses is not ours to take.
        ip -4 -o addr show | grep -q " $subnet\.$i\." && continue
        n=$i
        break
    done
    [ -n "$n" ] || unavailable "no free $subnet.N.0/24 block"
    echo "$$ $(awk '{print $22}' "/proc/$$/stat")" >"$state_dir/$n.owner"
    out=$( {
        ip netns add "modelbench$n" &&
            ip link add "mbveth${n}h" type veth peer name "mbveth${n}n" netns "modelbench$n" &&
            ip addr add "$subnet.$n.1/24" dev "mbveth${n}h" &&
            ip link set "mbveth${n}h" up &&
            ip -n "modelbench$n" addr add "$subnet.$n.2/24" dev "mbveth${n}n" &&
            ip -n "modelbench$n" link set "mbveth${n}n" up &&
            ip -n "modelbench$n" link set lo up
    } 2>&1) || {
        remove "$n"
        flock -u "$lock"
        unavailable "setting up modelbench$n failed: $out"
    }
    flock -u "$lock"
}

case ${1:-} in
    check)
        check_available
        echo "netns: network namespaces with veth pairs can be made here"
        exit 0
        ;;
    with | exec) mode=$1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { usage >&2; exit 2; }

check_available
n=""
child=""
cleanup() {
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    if [ -n "$n" ]; then remove "$n"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
create

export NETNS_NAME="modelbench$n" NETNS_HOST_ADDR="$subnet.$n.1" NETNS_NS_ADDR="$subnet.$n.2"
# In the background, so that a signal to this script runs the cleanup at once instead of after
# COMMAND; <&0 keeps the standard input a background job would lose.
inside=()
[ "$mode" = with ] || inside=(ip netns exec "$NETNS_NAME")
"${inside[@]}" "$@" <&0 &
child=$!
status=0
wait "$child" || status=$?
child=""
exit "$status"
