#!/usr/bin/env bash
# Builds the libFuzzer target over request parsing and routing (clang, address+undefined) and
# runs it, seeded with the hostile request corpus of tests/hostile/.
#   scripts/fuzz.sh [SECONDS]   default 60
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
case $seconds in
    -h|--help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;;
esac
bash "$root/scripts/deps.sh" build test
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMODELBENCH_FUZZ=ON \
    -DCMAKE_CXX_COMPILER=clang++ >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target request_fuzzer | grep -E "error:|warning:" || true
[ -x "$build/bin/request_fuzzer" ] || { echo "fuzz.sh: build failed" >&2; exit 1; }
# Work on a copy of the seeds: libFuzzer adds what it finds to its corpus directory.
corpus="$build/corpus"
mkdir -p "$corpus"
cp "$root"/tests/hostile/*.http "$corpus/"
echo "fuzz: running request_fuzzer for ${seconds}s (seeds: tests/hostile/)"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/bin/request_fuzzer" -max_total_time="$seconds" -max_len=131072 -timeout=10 \
    -artifact_prefix="$build/" -print_final_stats=1 "$corpus" 2>"$build/fuzz.log" \
    || { tail -n 60 "$build/fuzz.log" >&2; echo "fuzz: FAILED, see $build/fuzz.log" >&2; exit 1; }
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz.log" | sed 's/^/fuzz: /'
echo "fuzz: no crash, no sanitizer report in ${seconds}s"
