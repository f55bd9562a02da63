#!/usr/bin/env bash
# Installs every build and run-time dependency with apt-get.
# Idempotent: when everything is present it prints nothing and touches nothing.
set -euo pipefail

packages=(
    g++ cmake make pkg-config                   # toolchain
    libboost-dev libboost-program-options-dev   # Asio, Beast, Program_options (1.74)
    default-libmysqlclient-dev                  # MariaDB Connector/C (non-blocking API)
    nlohmann-json3-dev libgtest-dev             # JSON, GoogleTest
    mariadb-server mariadb-client               # the private database instance
    apache2-utils siege curl                    # ab, siege, curl: the load and test clients
    slowhttptest                                # slow headers, body and read (stress.sh)
    gnuplot-nox procps iproute2                 # plots, /proc tools, ss
    python3 python3-psutil                      # the harness (scripts/modelbench): processes, reports
    clang libclang-rt-14-dev                    # libFuzzer and sanitizer runtimes
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

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
