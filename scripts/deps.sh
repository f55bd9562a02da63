#!/usr/bin/env bash
# Installs with apt-get what these groups need (all of them without arguments; each group's use
# beside it below), and for the node and node4 groups their npm packages (npm ci in servers/node
# or servers/node4, from the committed lockfile). Idempotent: when everything is present it prints nothing and touches nothing.
#   scripts/deps.sh [--packages] [GROUP...]   (--packages: print the packages, install nothing)
# Installing apache2, nginx or php8.2-fpm may start the system's service of it; the project never
# uses those, only private instances under var/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

declare -A group=(
    # the harness (python3-markdown: report.html)
    [base]="python3 python3-psutil python3-scipy python3-markdown"
    # the C++ toolchain and libraries of the two servers
    [build]="g++ cmake make pkg-config libboost-dev libboost-program-options-dev default-libmysqlclient-dev nlohmann-json3-dev libgtest-dev"
    [db]="mariadb-server mariadb-client"  # the private instance
    # the load and test clients, gnuplot for the plots, /proc tools
    [tools]="apache2-utils siege wrk curl gnuplot-nox procps iproute2"
    [stress]="slowhttptest"  # scripts/stress.sh
    # pytest, clang's fuzzer and sanitizer runtimes, clang-format, chromium to render report.html
    # (scripts/test.sh)
    [test]="python3-pytest clang libclang-rt-14-dev clang-format chromium"
    [profile]="valgrind linux-perf"  # callgrind and perf (scripts/profile.sh)
    [php]="apache2 libapache2-mod-php php-mysql"  # the real Apache+PHP (prefork, mod_php, mysqli)
    [apache]="apache2"  # Apache alone, for Apache with PHP-FPM
    [fpm]="php8.2-fpm php-mysql"  # the pages behind nginx or Apache (fpm-server, apache-fpm-server)
    [nginx]="nginx-light"  # nginx 1.22, the reverse proxy of E2 (behind-nginx)
    [node]=""  # the real Node.js and its npm packages (mysql, Express)
    [node4]=""  # E1's Node.js 4 and its drivers, all npm packages (npm itself from node's)
)
order=(base build db tools stress test profile php apache fpm nginx node node4)

list_only=0
if [ "${1:-}" = --packages ]; then list_only=1; shift; fi
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${order[@]}")
packages=()
for name in "${wanted[@]}"; do
    [ -n "${group[$name]+set}" ] || { echo "deps: unknown group '$name' (${order[*]})" >&2; exit 2; }
    # shellcheck disable=SC2206  # the groups are word lists
    packages+=(${group[$name]})
    if [ "$name" = node ] || [ "$name" = node4 ]; then
        # A node that is already there (NodeSource's bundles npm) is kept: Debian's npm package
        # conflicts with it.
        command -v node >/dev/null || packages+=(nodejs)
        command -v npm >/dev/null || packages+=(npm)
    fi
done

[ "$list_only" -eq 0 ] || { printf '%s\n' "${packages[@]}"; exit 0; }

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "deps: done"
fi

# npm ci in servers/GROUP when its node_modules is missing or older than the lockfile; npm ci
# leaves node_modules newer than the lockfile, so a second run does nothing.
for name in node node4; do
    [[ " ${wanted[*]} " == *" $name "* ]] || continue
    node_dir="$root/servers/$name"
    if [ ! -d "$node_dir/node_modules" ] || [ "$node_dir/package-lock.json" -nt "$node_dir/node_modules" ]; then
        echo "deps: npm ci in servers/$name"
        (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
            || { echo "deps: npm ci in servers/$name failed" >&2; exit 1; }
        touch "$node_dir/node_modules"
    fi
done
