// Command-line configuration shared by both servers: HTTP, database and standalone-mode flags,
// parsed with Boost.Program_options, with MySQL-client environment fallbacks for the database.
#pragma once

#include <boost/program_options.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace mb {

namespace po = boost::program_options;

// Where and how to reach the database. Defaults point at the private MariaDB of scripts/db.sh.
struct DbConfig {
    std::string host = "127.0.0.1";
    std::uint16_t port = 3307;
    std::string socket;  // non-empty: use this unix socket instead of TCP
    std::string user = "bench";
    std::string password = "bench";
    std::string database = "sampledb";
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds query_timeout{10000};  // --db-timeout: past it, 504
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

// "HOST:PORT" (an IPv6 host may be in brackets) given to flag; a ConfigError names the flag.
ListenAddress parse_host_port(const std::string& text, const std::string& flag);
ListenAddress parse_listen_address(const std::string& text);
// "http://HOST:PORT/" (an IPv6 host in brackets): what a server prints once it listens.
std::string listen_url(const ListenAddress& address);

// An integer flag for a server's model_options(), stored into target after a range check. Parsed
// as long long so that "-1" is rejected instead of wrapping around as an unsigned would; a value
// out of range makes CommandLine::parse() throw ConfigError (message, usage, exit 2).
po::typed_value<long long>* bounded_flag(const char* flag, unsigned& target, long long min,
                                         long long max);

// The flags a server accepts. Each server adds its own model's options to model_options().
class CommandLine {
public:
    enum class Action { run, help, version };
    using Environment = std::function<std::optional<std::string>(const std::string& name)>;

    CommandLine(std::string program, std::string summary, std::uint16_t default_port);

    HttpConfig http;
    DbConfig db;
    std::optional<unsigned> standalone;  // --standalone N: run the /html workload N times, no HTTP

    po::options_description& model_options() { return model_; }

    // Throws ConfigError on a bad flag or value. Flags win over the environment.
    Action parse(int argc, const char* const argv[], const Environment& env = process_environment);
    std::string usage() const;
    std::string version() const;

    // parse() for main(): prints help/version (exit 0) or the error and usage (exit 2).
    // Returns true when the server should run.
    bool parse_or_exit(int argc, const char* const argv[]);

    static std::optional<std::string> process_environment(const std::string& name);

private:
    std::string program_;
    std::string summary_;
    po::options_description general_{"General"};
    po::options_description http_{"HTTP"};
    po::options_description db_{"Database (environment fallbacks in brackets)"};
    po::options_description model_{"Model"};
    std::string listen_text_;
    std::string keepalive_text_;
    double keepalive_timeout_s_ = 5;
    double io_timeout_s_ = 30;
    double db_timeout_s_ = 10;
    double connect_timeout_s_ = 2;
    std::string db_port_text_;
    long long standalone_n_ = 1000;
};

}  // namespace mb
