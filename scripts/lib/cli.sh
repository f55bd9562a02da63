# shellcheck shell=bash
# Sourced by serve.sh and reproduce.sh: what has to be in place before a server can run —
# packages, the Release build and the private MariaDB. Expects $root (the checkout).
# BUILD_DIR selects the build directory (default build/); an existing, configured one is only
# brought up to date, so a CTest run keeps using the tree it was configured in.

build_dir=${BUILD_DIR:-$root/build}
case $build_dir in /*) ;; *) build_dir="$root/$build_dir" ;; esac

prepare_deps() {
    bash "$root/scripts/deps.sh"
}

# prepare_build LOG [TARGET...]: configure (first time only) and build the servers and the extra
# targets given; quiet unless something fails.
prepare_build() {
    local log=$1
    shift
    mkdir -p "$build_dir"
    : >"$log"
    if [ ! -f "$build_dir/CMakeCache.txt" ]; then
        echo "build: configuring a Release build in $build_dir"
        cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >>"$log" 2>&1 || {
            tail -n 20 "$log" >&2
            echo "build: configure failed, see $log" >&2
            return 1
        }
    fi
    # The servers and what the caller names: the tests are scripts/test.sh's business, and a
    # broken test file must not keep anyone from running the experiments.
    echo "build: bringing the servers in $build_dir up to date (the first build takes a few minutes)"
    cmake --build "$build_dir" -j "$(nproc)" --target blocking-server async-server "$@" \
        >>"$log" 2>&1 || {
        grep -E -m 20 "error|Error" "$log" >&2
        echo "build: failed, see $log" >&2
        return 1
    }
    local type sanitize
    type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
    sanitize=$(sed -n 's/^MODELBENCH_SANITIZE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
    [ "$type" = Release ] || echo "build: note: $build_dir is a '$type' build, not Release" >&2
    [ -z "$sanitize" ] || echo "build: note: $build_dir is instrumented ($sanitize sanitizer)" >&2
    return 0
}

prepare_db() {
    bash "$root/scripts/db.sh" start
}

# server_binary MODEL: the built binary of a model (blocking|async).
server_binary() {
    echo "$build_dir/bin/$1-server"
}
