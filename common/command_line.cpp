#include "common/command_line.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

namespace mb {
namespace {

// MySQL client conventions (MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_UNIX_PORT, MYSQL_PWD) plus the
// names that container images use for database and user.
const std::pair<const char*, const char*> kEnvironmentFallbacks[] = {
    {"MYSQL_HOST", "db-host"},    {"MYSQL_TCP_PORT", "db-port"}, {"MYSQL_UNIX_PORT", "db-socket"},
    {"MYSQL_PWD", "db-password"}, {"MYSQL_USER", "db-user"},     {"MYSQL_DATABASE", "db-name"},
};

constexpr double kMaxTimeoutSeconds = 3600;
constexpr double kMaxConnectSeconds = 600;

std::chrono::milliseconds seconds_flag(const char* flag, double seconds, double max_seconds) {
    if (!std::isfinite(seconds) || seconds <= 0 || seconds > max_seconds) {
        std::ostringstream msg;
        msg << "--" << flag << " must be more than 0 and at most " << max_seconds << " seconds";
        throw ConfigError(msg.str());
    }
    return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000)));
}

}  // namespace

po::typed_value<long long>* bounded_flag(const char* flag, unsigned& target, long long min,
                                         long long max) {
    return po::value<long long>()->default_value(target)->value_name("N")->notifier(
        [flag, &target, min, max](long long value) {
            if (value < min || value > max) {
                throw ConfigError(std::string("--") + flag + " must be between " +
                                  std::to_string(min) + " and " + std::to_string(max));
            }
            target = static_cast<unsigned>(value);
        });
}

po::typed_value<double>* bounded_seconds_flag(const char* flag, std::chrono::milliseconds& target,
                                              double max_seconds) {
    return po::value<double>()
        ->default_value(static_cast<double>(target.count()) / 1000)
        ->value_name("S")
        ->notifier([flag, &target, max_seconds](double value) {
            target = seconds_flag(flag, value, max_seconds);
        });
}

CommandLine::CommandLine(std::string program, std::string summary, std::uint16_t default_port)
    : program_(std::move(program)), summary_(std::move(summary)) {
    http.listen.port = default_port;
    listen_text_ = http.listen.host + ":" + std::to_string(default_port);
    // clang-format off
    general_.add_options()
        ("help,h", "print this help and exit")
        ("version", "print the version and exit")
        ("standalone", po::value<long long>(&standalone_n_)->implicit_value(1000)->value_name("N"),
         "run the /html workload N times (default 1000) without HTTP, print timings, exit");
    http_.add_options()
        ("listen", po::value<std::string>(&listen_text_)->default_value(listen_text_),
         "HOST:PORT to listen on (port 0: any free port, printed at start)")
        ("backlog", po::value<int>(&http.backlog)->default_value(http.backlog),
         "listen queue length")
        ("keepalive", po::value<std::string>(&keepalive_text_)->default_value("on"),
         "on|off: keep connections open between requests")
        ("keepalive-timeout",
         bounded_seconds_flag("keepalive-timeout", http.keepalive_timeout, kMaxTimeoutSeconds),
         "seconds an idle keep-alive connection is kept")
        ("timeout", bounded_seconds_flag("timeout", http.io_timeout, kMaxTimeoutSeconds),
         "seconds to receive a whole request (the first one: from the accept on), or to send a "
         "whole response")
        ("access-log", po::value<std::string>(&http.access_log)->value_name("FILE"),
         "write an Apache Common Log Format line per request to FILE");
    db_.add_options()
        ("db-host", po::value<std::string>(&db.host)->default_value(db.host),
         "database host, an IP address [MYSQL_HOST]")
        ("db-port", po::value<std::string>(&db_port_text_)->default_value(std::to_string(db.port)),
         "database TCP port [MYSQL_TCP_PORT]")
        ("db-socket", po::value<std::string>(&db.socket)->value_name("PATH"),
         "unix socket; when set, used instead of TCP [MYSQL_UNIX_PORT]")
        ("db-user", po::value<std::string>(&db.user)->default_value(db.user),
         "database user [MYSQL_USER]")
        ("db-password", po::value<std::string>(&db.password)->default_value(db.password),
         "database password [MYSQL_PWD]")
        ("db-name", po::value<std::string>(&db.database)->default_value(db.database),
         "database name [MYSQL_DATABASE]")
        ("db-connect-timeout",
         bounded_seconds_flag("db-connect-timeout", db.connect_timeout, kMaxConnectSeconds),
         "seconds to wait for a database connection")
        ("db-timeout", bounded_seconds_flag("db-timeout", db.query_timeout, kMaxTimeoutSeconds),
         "seconds a query may take before the request gets 504; the default covers the "
         "longest ?delay_ms=");
    cost_.add_options()
        ("cpu-per-request-us", bounded_flag("cpu-per-request-us", cost.per_request_us, 0, 100000),
         "microseconds of CPU a page's request (not /status, not an error) spends on the thread "
         "that serves it (0: none)")
        ("cpu-per-row-ns", bounded_flag("cpu-per-row-ns", cost.per_row_ns, 0, 1000000),
         "nanoseconds of CPU per row fetched and rendered (/html: 600 rows, /json: 300; 0: none)");
    // clang-format on
}

std::optional<std::string> CommandLine::process_environment(const std::string& name) {
    if (const char* value = std::getenv(name.c_str()); value != nullptr) {
        return std::string(value);
    }
    return std::nullopt;
}

CommandLine::Action CommandLine::parse(int argc, const char* const argv[], const Environment& env) {
    po::options_description all;
    all.add(general_).add(http_).add(db_).add(cost_).add(model_);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).run(), vm);
        // Environment second: store() keeps values already given as flags.
        std::vector<std::string> from_env;
        for (const auto& [variable, option] : kEnvironmentFallbacks) {
            if (vm.count(option) != 0 && !vm[option].defaulted()) {
                continue;
            }
            if (auto value = env(variable); value && !value->empty()) {
                from_env.push_back(std::string("--") + option + "=" + *value);
            }
        }
        po::store(po::command_line_parser(from_env).options(all).run(), vm);
        if (vm.count("help") != 0) {
            return Action::help;
        }
        if (vm.count("version") != 0) {
            return Action::version;
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw ConfigError(e.what());
    }

    http.listen = parse_listen_address(listen_text_);
    if (http.backlog < 1 || http.backlog > 65535) {
        throw ConfigError("--backlog must be between 1 and 65535");
    }
    if (keepalive_text_ != "on" && keepalive_text_ != "off") {
        throw ConfigError("--keepalive must be 'on' or 'off', not '" + keepalive_text_ + "'");
    }
    http.keepalive = keepalive_text_ == "on";
    db.port = parse_port(db_port_text_, "--db-port");
    if (db.port == 0) {
        throw ConfigError("--db-port must be between 1 and 65535");
    }
    if (db.socket.empty() && db.host.empty()) {
        throw ConfigError("--db-host must not be empty");
    }
    if (vm.count("standalone") != 0) {
        if (standalone_n_ < 1 || standalone_n_ > 100'000'000) {
            throw ConfigError("--standalone takes 1 to 100000000 iterations");
        }
        standalone = static_cast<unsigned>(standalone_n_);
    }
    for (const auto& check : checks_) {
        check(vm);
    }
    return Action::run;
}

std::string CommandLine::usage() const {
    std::ostringstream out;
    out << "Usage: " << program_ << " [options]\n" << summary_ << "\n\n";
    out << general_ << "\n" << http_ << "\n" << db_ << "\n" << cost_;
    if (!model_.options().empty()) {
        out << "\n" << model_;
    }
    return out.str();
}

std::string CommandLine::version() const { return program_ + " " + MODELBENCH_VERSION; }

bool CommandLine::parse_or_exit(int argc, const char* const argv[]) {
    try {
        switch (parse(argc, argv)) {
            case Action::help:
                std::cout << usage();
                std::exit(0);
            case Action::version:
                std::cout << version() << "\n";
                std::exit(0);
            case Action::run:
                return true;
        }
    } catch (const ConfigError& e) {
        std::cerr << program_ << ": " << e.what() << "\n\n" << usage();
        std::exit(2);
    }
    return false;
}

}  // namespace mb
