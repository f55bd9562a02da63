#!/usr/bin/env bash
# The test command. From a fresh clone: installs what the tests need, checks that every C++ file
# follows .clang-format, builds, starts the private MariaDB, runs every CTest test on the Release
# build (the C++ unit and integration tests, the harness's own tests, the real systems, the load
# checks, reproduce.sh --smoke), scripts/stress.sh --quick on it, the C++ tests again (not the
# load runs, the harness's or the real systems') on AddressSanitizer+UBSan and ThreadSanitizer
# builds, fuzzes the request parser for 60 s, stops the database it started (even when tests
# fail), and exits with the tests' status.
#   scripts/test.sh            everything (what CI runs; about 52 minutes on 2 cores)
#   scripts/test.sh --quick    the Release build's CTest tests only (about 24 minutes from a
#                              fresh clone, 17 once built)
#   scripts/test.sh --unit     the C++ unit tests and the harness's own tests (CTest label unit;
#                              under 3 minutes once the packages are installed)
# CTest labels: unit, harness, database, server, load, repro, real-systems, proxy, tool, netns.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

variants=(release asan tsan)
tier=all
case "${1:-}" in
    "") ;;
    --quick) variants=(release); tier=quick ;;
    --unit) variants=(release); tier=unit ;;
    -h|--help) sed -n '2,14p' "$root/scripts/test.sh" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/test.sh: unknown option '$1' (--quick, --unit, --help)" >&2; exit 2 ;;
esac

groups=()  # the unit tier needs only these; the others every group
[ "$tier" = unit ] && groups=(base build tools test)
bash scripts/deps.sh "${groups[@]}" || exit 1

status=0
echo "== format: clang-format --dry-run --Werror on every C++ file"
git ls-files -z '*.cpp' '*.hpp' | xargs -0 clang-format --dry-run --Werror || status=1

build() {  # build DIR [cmake args...]
    local dir=$1; shift
    echo "== build: $dir"
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.configure.log" 2>&1 \
        || { cat "$dir.configure.log"; return 1; }
    local targets=()
    [ "$tier" = unit ] && targets=(--target unit_tests server_unit_tests)
    cmake --build "$dir" -j "$(nproc)" "${targets[@]}" 2>&1 | grep -E "error:|warning:|Error "
    return "${PIPESTATUS[0]}"
}

started_db=0
stop_db() { [ "$started_db" -eq 1 ] && bash scripts/db.sh stop; }
trap stop_db EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$tier" != unit ] && ! bash scripts/db.sh status >/dev/null 2>&1; then
    bash scripts/db.sh start || exit 1
    started_db=1
fi

for variant in "${variants[@]}"; do
    case $variant in
        release) dir=build; args=() ;;
        asan) dir=build-asan; args=(-DMODELBENCH_SANITIZE=address) ;;
        tsan) dir=build-tsan; args=(-DMODELBENCH_SANITIZE=thread) ;;
    esac
    build "$dir" "${args[@]}" || { echo "== $variant: build FAILED"; status=1; continue; }
    echo "== tests: $variant"
    # The unit tier runs the label unit. Sanitizer builds skip the load runs (they measure the
    # real build), the harness's own tests (Python: nothing to instrument) and the real systems'
    # (Apache, Node.js, the launchers: none of it is this build's code, and the servers' own
    # signals and bytes are the server tests').
    label_args=()
    [ "$tier" = unit ] && label_args=(-L unit)
    [ "$variant" != release ] && label_args=(-LE "load|harness|real-systems")
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        ctest --test-dir "$dir" --output-on-failure --timeout 300 "${label_args[@]}" || status=1
    if [ "$variant" = release ] && [ "$tier" = all ]; then
        echo "== stress: overload, slow clients, database faults, leaks, memory, slowhttptest (--quick)"
        BUILD_DIR="$root/build" bash scripts/stress.sh --quick || status=1
    fi
done

if [ "$tier" = all ]; then
    echo "== fuzz: the request parser and router, 60 s"
    bash scripts/fuzz.sh 60 || status=1
fi
exit $status
