#!/usr/bin/env bash
# The test command: from a fresh clone, installs dependencies, checks that every C++ file follows
# .clang-format, builds, starts the private MariaDB, runs every CTest test on the Release build, scripts/stress.sh --quick on it, every test again
# but the load runs on AddressSanitizer+UBSan and ThreadSanitizer builds, fuzzes the request parser for 60 s,
# stops the database it started (even when tests fail), and exits with the tests' status.
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh --quick    the Release build's CTest tests only
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/cli.sh
source "$root/scripts/lib/cli.sh"
cd "$root" || exit 1

variants=(release asan tsan)
quick=0
case "${1:-}" in
    "") ;;
    --quick) variants=(release); quick=1 ;;
    -h|--help) usage; exit 0 ;;
    *) bad_usage "unknown option '$1'" ;;
esac

prepare_deps || exit 1

status=0
echo "== format: clang-format --dry-run --Werror on every C++ file"
git ls-files -z '*.cpp' '*.hpp' | xargs -0 clang-format --dry-run --Werror || status=1

jobs=$(nproc)
build() {  # build DIR [cmake args...]
    local dir=$1; shift
    echo "== build: $dir"
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.configure.log" 2>&1 \
        || { cat "$dir.configure.log"; return 1; }
    cmake --build "$dir" -j "$jobs" 2>&1 | grep -E "error:|warning:|Error " ; return "${PIPESTATUS[0]}"
}

started_db=0
if ! bash scripts/db.sh status >/dev/null 2>&1; then
    bash scripts/db.sh start || exit 1
    started_db=1
fi
stop_db() { [ "$started_db" -eq 1 ] && bash scripts/db.sh stop; }
trap stop_db EXIT

for variant in "${variants[@]}"; do
    case $variant in
        release) dir=build; args=() ;;
        asan) dir=build-asan; args=(-DMODELBENCH_SANITIZE=address) ;;
        tsan) dir=build-tsan; args=(-DMODELBENCH_SANITIZE=thread) ;;
    esac
    if ! build "$dir" "${args[@]}"; then
        echo "== $variant: build FAILED"
        status=1
        continue
    fi
    echo "== tests: $variant"
    # Sanitizer builds skip the load tests (label 'load'): they measure the real build.
    label_args=()
    [ "$variant" != release ] && label_args=(-LE load)
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        ctest --test-dir "$dir" --output-on-failure --timeout 300 "${label_args[@]}" || status=1
    if [ "$variant" = release ] && [ "$quick" -eq 0 ]; then
        echo "== stress: overload, slow clients, database faults, leaks, memory, slowhttptest (--quick)"
        BUILD_DIR="$root/build" bash scripts/stress.sh --quick || status=1
    fi
done

if [ "$quick" -eq 0 ]; then
    echo "== fuzz: the request parser and router, 60 s"
    bash scripts/fuzz.sh 60 || status=1
fi
exit $status
