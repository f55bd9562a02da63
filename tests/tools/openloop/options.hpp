// openloop's flags: what to request, at which rate, for how long, over which connections, and
// the caps that bound every queue.
#pragma once

#include "tests/tools/openloop/schedule.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace mb::openloop {

struct Target {
    std::string url;   // as given
    std::string host;  // for the connect and the Host header
    std::uint16_t port = 80;
    std::string path = "/";
};

struct Options {
    Target target;
    double rate_per_s = 1000;
    std::chrono::milliseconds duration{10000};
    Arrivals arrivals = Arrivals::uniform;
    unsigned seed = 1;
    unsigned connections = 0;       // 0: a new connection per request (Connection: close)
    unsigned max_in_flight = 1000;  // with a new connection each: connections open at once
    unsigned max_pending = 100000;  // requests waiting for a connection
    std::chrono::milliseconds timeout{10000};  // from a request's intended send time
    unsigned max_response_kib = 1024;
    std::chrono::milliseconds progress{5000};  // stderr progress period; 0: none
    std::optional<std::string> json_file;      // else stdout

    bool keepalive() const { return connections > 0; }
    // Requests on the wire at once: the pool, or the cap on new connections.
    unsigned slots() const { return keepalive() ? connections : max_in_flight; }
};

// "http://HOST[:PORT][/PATH]"; throws ConfigError naming --url.
Target parse_url(const std::string& url);

// Prints --help or --version (exit 0), or the error and the usage (exit 2); otherwise returns
// the options.
Options parse_or_exit(int argc, const char* const argv[]);

}  // namespace mb::openloop
