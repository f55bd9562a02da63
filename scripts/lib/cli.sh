# shellcheck shell=bash
# The preamble of every entry point in scripts/: usage from the script's header comment, bad
# usage (exit 2) and fatal errors (exit 1), what has to be in place before a server can run —
# packages, the Release build, the private MariaDB — and how the Python harness is run.
# Expects $root (the checkout). BUILD_DIR selects the build directory (default build/); an
# existing, configured one is only brought up to date, so a CTest run keeps using the tree it was
# configured in. DB_DIR and DB_PORT select the MariaDB instance, as for scripts/db.sh.

script=${0##*/}
build_dir=${BUILD_DIR:-$root/build}
case $build_dir in /*) ;; *) build_dir="$root/$build_dir" ;; esac
db_dir=${DB_DIR:-$root/var/mariadb}
case $db_dir in /*) ;; *) db_dir="$root/$db_dir" ;; esac
# The Python harness, run as `"${harness[@]}" modelbench.MODULE ...`: Debian's interpreter, the
# one that has python3-psutil (a python3 earlier on PATH may be another installation).
# shellcheck disable=SC2034  # used by the scripts that source this file
harness=(env "PYTHONPATH=$root/scripts${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 -m)

# usage: the header comment of the script, from its second line to the first line that is not a
# comment.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
bad_usage() { echo "$script: $*" >&2; echo "try: scripts/$script --help" >&2; exit 2; }
die() { echo "$script: $*" >&2; exit 1; }
# need_value FLAG [VALUE]: FLAG must be followed by a non-empty value (call as need_value "$@").
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then bad_usage "$1 needs a value"; fi; }
# absolute PATH: PATH made absolute against the current directory.
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

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

# prepare_db: the private MariaDB runs. The servers find it by their defaults, or through MySQL's
# own port variable when DB_PORT moved it (flags win over the variable).
prepare_db() {
    bash "$root/scripts/db.sh" start || return 1
    if [ -n "${DB_PORT:-}" ]; then export MYSQL_TCP_PORT=$DB_PORT; fi
}

# db_running: the private MariaDB runs (quietly).
db_running() {
    bash "$root/scripts/db.sh" status >/dev/null 2>&1
}

# db_command ARGS: the db.sh command line for this instance, as a user would type it.
db_command() {
    local env=""
    [ -z "${DB_DIR:-}" ] || env+="DB_DIR=$DB_DIR "
    [ -z "${DB_PORT:-}" ] || env+="DB_PORT=$DB_PORT "
    echo "${env}scripts/db.sh $*"
}

# db_pid: mariadbd's pid, for its CPU; fails when its pid file is missing.
db_pid() {
    local pid
    pid=$(cat "$db_dir/mysqld.pid" 2>/dev/null) && [ -n "$pid" ] && echo "$pid"
}

# server_binary MODEL: the built binary of a model (blocking|async).
server_binary() {
    echo "$build_dir/bin/$1-server"
}
