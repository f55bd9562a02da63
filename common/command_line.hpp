// The command line both servers share: HTTP, database and standalone-mode flags, parsed with
// Boost.Program_options, with MySQL-client environment fallbacks for the database. Each server
// adds its model's flags to model_options().
#pragma once

#include "common/config.hpp"
#include "common/cpu_cost.hpp"

#include <boost/program_options.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mb {

namespace po = boost::program_options;

// An integer flag for a server's model_options(), stored into target after a range check. Parsed
// as long long so that "-1" is rejected instead of wrapping around as an unsigned would; a value
// out of range makes CommandLine::parse() throw ConfigError (message, usage, exit 2).
po::typed_value<long long>* bounded_flag(const char* flag, unsigned& target, long long min,
                                         long long max);

// A duration flag in seconds (fractions allowed) for model_options(), stored into target after a
// check that it is more than 0 and at most max_seconds.
po::typed_value<double>* bounded_seconds_flag(const char* flag, std::chrono::milliseconds& target,
                                              double max_seconds);

// The flags a server accepts. Each server adds its own model's options to model_options().
class CommandLine {
  public:
    enum class Action { run, help, version };
    using Environment = std::function<std::optional<std::string>(const std::string& name)>;

    CommandLine(std::string program, std::string summary, std::uint16_t default_port);

    HttpConfig http;
    DbConfig db;
    CpuCostConfig cost;
    std::optional<unsigned> standalone;  // --standalone N: run the /html workload N times, no HTTP

    po::options_description& model_options() { return model_; }
    // A check across flags, run once every flag is stored; it throws ConfigError to refuse them.
    // The map tells which flags were given (!vm[name].defaulted()).
    void add_check(std::function<void(const po::variables_map& vm)> check) {
        checks_.push_back(std::move(check));
    }

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
    po::options_description cost_{"Cost model (CPU a request spends on its serving thread)"};
    po::options_description model_{"Model"};
    std::string listen_text_;
    std::string keepalive_text_;
    std::string db_port_text_;
    long long standalone_n_ = 1000;
    std::vector<std::function<void(const po::variables_map&)>> checks_;
};

}  // namespace mb
