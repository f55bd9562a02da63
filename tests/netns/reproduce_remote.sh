#!/usr/bin/env bash
# scripts/reproduce.sh --smoke against servers on another "machine", reached only through
# --target: the blocking server, the async server and its cluster run in a network namespace
# joined to the host by a veth pair (scripts/lib/netns.sh), each listening on the namespace's
# address and reading a MariaDB of its own on the host's side of the link (DB_BIND, DB_ALLOW).
# It checks that
#   - reproduce.sh succeeds without starting, stopping or building anything: the servers still
#     run afterwards;
#   - every run of the smoke plan that can reach a remote server ran and succeeded, and each
#     took the server's CPU from its /status (server_cpu_source /status), a positive figure for
#     every run long enough to count a clock tick;
#   - report.md lists the targets and says which steps were not measured for a remote target
#     (E1a, the /tasks demo, E2 with --backlog 128, E5, E6), and its
#     tables show the CPU as the servers' own /status.
# Exits 77 (CTest: skipped) where network namespaces are not available.
#
# Usage: tests/netns/reproduce_remote.sh BLOCKING_SERVER ASYNC_SERVER
# NETNS_TEST_DB_PORT: the database's port on the link's host address (default 3306: free there
# unless something listens on every address).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -ne 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    [ "${1:-}" = -h ] || [ "${1:-}" = --help ] && exit 0
    exit 2
fi
blocking=$1
async=$2
for binary in "$blocking" "$async"; do
    [ -x "$binary" ] || { echo "reproduce_remote: $binary is not an executable" >&2; exit 2; }
done
# shellcheck source=tests/netns/link_database.sh
source "$root/tests/netns/link_database.sh"
link_database reproduce_remote "$0" "$@"

# start_inside NAME BINARY FLAGS...: a server inside the namespace; sets url_NAME.
start_inside() {
    local name=$1 log=$work/$1.log url=""
    shift
    ip netns exec "$NETNS_NAME" "$@" --listen "$NETNS_NS_ADDR:0" --db-host "$DB_BIND" \
        --db-port "$DB_PORT" >"$log" 2>&1 &
    test_pids+=($!)
    for _ in $(seq 1 100); do
        url=$(sed -n 's|^listening on \(http://[^ ]*\)/$|\1|p' "$log")
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || { echo "reproduce_remote: $name did not start" >&2; cat "$log" >&2; exit 1; }
    printf -v "url_${name//-/_}" '%s' "$url"
    echo "== $name inside $NETNS_NAME at $url"
}
start_inside blocking "$blocking"
start_inside async "$async"
start_inside async-cluster "$async" --workers 0

results=$work/results
echo "== scripts/reproduce.sh --smoke, the servers reached only through --target"
status=0
bash "$root/scripts/reproduce.sh" --smoke --results-dir "$results" \
    --target "blocking=$url_blocking" --target "async=$url_async" \
    --target "async-cluster=$url_async_cluster" >"$work/reproduce.log" 2>&1 || status=$?
cat "$work/reproduce.log"

alive=0
for pid in "${test_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=$((alive + 1)); done

PYTHONPATH=$root/scripts /usr/bin/python3 - "$results" "$status" "$alive" "${#test_pids[@]}" <<'EOF'
import csv
import os
import sys

from modelbench import experiments, remote
from modelbench.engine import plan
from modelbench.experiments.base import Context

results, status, alive, started = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
problems = []


def expect(condition, message):
    if not condition:
        problems.append(message)


expect(status == 0, f"reproduce.sh exited with {status}")
expect(alive == started, f"{started - alive} of the {started} remote servers are gone: "
       "reproduce.sh must leave a remote server alone")
keys = {"blocking": "", "async": "", "async-cluster": ""}
ctx = Context("smoke", remote.system_names(keys), calibrated=True)
expected, skipped = [], []
for experiment in experiments.ALL:
    kept, left_out = remote.split(experiment.plan(ctx), keys)
    expected += [(f"{run.base}-b{number}", run.base)
                 for _, number, run in plan.planned_runs(kept)]
    skipped += left_out
rows = {}
path = os.path.join(results, "results.csv")
if os.path.exists(path):
    with open(path, newline="") as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
for run_id, _ in expected:
    row = rows.get(run_id)
    if row is None:
        problems.append(f"results.csv: no row '{run_id}'")
        continue
    expect(row["status"] == "ok", f"{run_id}: {row['status']}: {row['cause']}")
    expect(row["server_cpu_source"] == "/status",
           f"{run_id}: server CPU from '{row['server_cpu_source']}', expected /status")
    cpu, wall = float(row["server_cpu_s"] or -1), float(row["wall_s"] or 0)
    expect(cpu > 0 or (wall < 0.5 and cpu == 0),
           f"{run_id}: server CPU '{row['server_cpu_s']}' s over {wall} s")
    expect(float(row["server_peak_threads"] or 0) >= 1, f"{run_id}: no peak threads")
for base, _, _ in skipped:
    expect(not any(r["base"] == base for r in rows.values()),
           f"{base} ran, though it needs a local process")
skipped_bases = {base.split("-")[0] for base, _, _ in skipped}
# The calibrated models join E1b and E1a only beside their real systems, which are not targets;
# E7's stall stops the server's processes; E8 reads their memory; E9's loop delay counts from a
# server started for the run; E10's client runs in a namespace beside a server started for it;
# E11's slow connections would outlive a run on a server not started for it.
expect(skipped_bases == {"e1a", "e2", "e4", "e5", "e6", "e7", "e8", "e9", "e10", "e11"},
       f"steps not measured remotely: {sorted(skipped_bases)}, expected e1a, e2, e4, e5, e6, e7, "
       "e8, e9, e10, e11")
report = ""
if os.path.exists(os.path.join(results, "report.md")):
    with open(os.path.join(results, "report.md")) as f:
        report = f.read()
expect("## Remote targets" in report, "report.md: no section 'Remote targets'")
expect("Not measured for a remote target" in report, "report.md: no list of the steps not "
       "measured for a remote target")
for _, title, _ in skipped:
    expect(f"| {title} |" in report, f"report.md: '{title}' not listed as not measured")
# Every run table's server CPU cell (E7's tables give latencies and rates, no CPU).
expect(report.count("(remote: /status only)") >=
       len({base for _, base in expected if not base.startswith("e7-")}),
       "report.md: a table cell of the server CPU is not the server's own /status")
print(f"\n{len(expected)} remote runs expected, {len(rows)} in results.csv, "
      f"{len(skipped)} steps not measured for a remote target")
if problems:
    print(f"{len(problems)} problem(s) in {results}:")
    for problem in problems:
        print("  -", problem)
    sys.exit(1)
print("reproduce.sh --smoke against remote targets: every check passed")
EOF
