// The settings both servers share, as plain values (command_line.hpp fills them from flags).
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace mb {

// Where and how to reach the database. Defaults point at the private MariaDB of scripts/db.sh.
struct DbConfig {
    std::string host = "127.0.0.1";
    std::uint16_t port = 3307;
    std::string socket;  // non-empty: use this unix socket instead of TCP
    std::string user = "bench";
    std::string password = "bench";
    std::string database = "sampledb";
    std::chrono::milliseconds connect_timeout{2000};
    // --db-timeout: past it, 504. It must cover the SELECT SLEEP of the longest ?delay_ms=
    // (kMaxDelayMs) with room for the query itself; a shorter one makes long delays time out.
    std::chrono::milliseconds query_timeout{20000};
};

struct ListenAddress {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
};

struct HttpConfig {
    ListenAddress listen;
    int backlog = 511;  // Apache's ListenBacklog
    bool keepalive = true;
    std::chrono::milliseconds keepalive_timeout{5000};
    std::chrono::milliseconds io_timeout{30000};  // --timeout: a whole request or response
    std::string access_log;                       // empty: off
};

// A bad flag or value; what() is the one-line message shown to the user.
struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A TCP port number, 0..65535; ConfigError names what when text is not one.
std::uint16_t parse_port(const std::string& text, const std::string& what);
// "HOST:PORT" (an IPv6 host may be in brackets) given to flag; a ConfigError names the flag.
ListenAddress parse_host_port(const std::string& text, const std::string& flag);
// parse_host_port() for --listen.
ListenAddress parse_listen_address(const std::string& text);
// "http://HOST:PORT/" (an IPv6 host in brackets): what a server prints once it listens.
std::string listen_url(const ListenAddress& address);

}  // namespace mb
