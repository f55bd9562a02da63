#!/usr/bin/env bash
# Installs every build and run-time dependency with apt-get, then the Node.js peer's npm packages
# (npm ci, from the committed lockfile).
# Idempotent: when everything is present it prints nothing and touches nothing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
    g++ cmake make pkg-config                   # toolchain
    libboost-dev libboost-program-options-dev   # Asio, Beast, Program_options (1.74)
    default-libmysqlclient-dev                  # MariaDB Connector/C (non-blocking API)
    nlohmann-json3-dev libgtest-dev             # JSON, GoogleTest
    mariadb-server mariadb-client               # the private database instance
    apache2-utils siege wrk curl                # ab, siege, wrk, curl: the load and test clients
    slowhttptest                                # slow headers, body and read (stress.sh)
    gnuplot-nox procps iproute2                 # plots, /proc tools, ss
    python3 python3-psutil                      # the harness (scripts/modelbench): processes, reports
    clang libclang-rt-14-dev                    # libFuzzer and sanitizer runtimes
    clang-format                                # the style check of scripts/test.sh
    apache2 libapache2-mod-php php-mysql        # the real Apache+PHP peer (prefork, mod_php, mysqli)
    # The real systems behind nginx and PHP-FPM (servers/nginx/behind-nginx, servers/php/fpm-server,
    # servers/php/apache-fpm-server: apache2's mpm_event, mod_proxy_fcgi and mod_buffer). Installing
    # them may start the system's nginx and php8.2-fpm services; the project never uses them.
    nginx-light                                 # nginx 1.22: the reverse proxy of E2
    php8.2-fpm                                  # PHP-FPM 8.2 (php-fpm8.2), the pages' pool
)
# The real Node.js peer. A node that is already there (NodeSource's bundles npm) is kept: Debian's
# npm package conflicts with it.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
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
    # Installing apache2 may start the system's Apache on port 80; the project never uses it.
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "deps: done"
fi

# npm ci when node_modules is missing or older than the lockfile; npm ci leaves node_modules
# newer than the lockfile, so a second run does nothing.
node_dir="$root/servers/node"
if [ ! -d "$node_dir/node_modules" ] || [ "$node_dir/package-lock.json" -nt "$node_dir/node_modules" ]; then
    echo "deps: npm ci in servers/node"
    (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || {
        echo "deps: npm ci in servers/node failed" >&2
        exit 1
    }
    touch "$node_dir/node_modules"
fi
