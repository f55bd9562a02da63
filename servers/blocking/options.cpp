#include "servers/blocking/options.hpp"

#include <string>

namespace mb::blocking {

namespace {

constexpr const char* kPreforkFlags[] = {"start-servers", "min-spare", "max-spare"};

// What the ranges of the single flags cannot say.
void check_lifecycle(const BlockingOptions& options, const po::variables_map& vm) {
    if (options.lifecycle != Lifecycle::prefork) {
        for (const char* flag : kPreforkFlags) {
            if (!vm[flag].defaulted()) {
                throw ConfigError(std::string("--") + flag + " needs --lifecycle prefork");
            }
        }
        return;
    }
    const PreforkRules& rules = options.prefork;
    if (rules.max_spare <= rules.min_spare) {
        throw ConfigError("--max-spare (" + std::to_string(rules.max_spare) +
                          ") must be more than --min-spare (" + std::to_string(rules.min_spare) +
                          ")");
    }
    if (rules.start_servers > options.max_workers) {
        throw ConfigError("--start-servers (" + std::to_string(rules.start_servers) +
                          ") must be at most --max-workers (" +
                          std::to_string(options.max_workers) + ")");
    }
}

}  // namespace

void add_blocking_options(CommandLine& command_line, BlockingOptions& options) {
    PreforkRules& prefork = options.prefork;
    // clang-format off
    command_line.model_options().add_options()
        ("max-workers", bounded_flag("max-workers", options.max_workers, 1, 10000),
         "connection threads alive at most (Apache's MaxRequestWorkers); beyond, clients wait "
         "in the listen queue")
        ("lifecycle",
         po::value<std::string>()
             ->default_value(std::string(name_of(options.lifecycle)))
             ->value_name("MODE")
             ->notifier([&options](const std::string& text) {
                 const auto lifecycle = parse_lifecycle(text);
                 if (!lifecycle) {
                     throw ConfigError("--lifecycle must be 'per-connection' or 'prefork', not '" +
                                       text + "'");
                 }
                 options.lifecycle = *lifecycle;
             }),
         "per-connection: a new thread for every connection, ending with it; prefork: Apache "
         "prefork's pre-started threads, reused, kept between --min-spare and --max-spare idle "
         "ones")
        ("start-servers", bounded_flag("start-servers", prefork.start_servers, 0, 10000),
         "prefork: threads started before the first client (StartServers); refused with "
         "per-connection, as are the next two")
        ("min-spare", bounded_flag("min-spare", prefork.min_spare, 1, 10000),
         "prefork: fewer idle threads, and more are started, 1, 2, 4 ... up to 32 a second "
         "(MinSpareServers)")
        ("max-spare", bounded_flag("max-spare", prefork.max_spare, 2, 10000),
         "prefork: more idle threads, and one a second ends (MaxSpareServers); more than "
         "--min-spare")
        ("max-keepalive-requests",
         bounded_flag("max-keepalive-requests", options.max_keepalive_requests, 0, 1000000),
         "requests per connection before it is closed (0: unlimited)")
        ("db-connection",
         po::value<std::string>()
             ->default_value(std::string(name_of(options.db_connection)))
             ->value_name("MODE")
             ->notifier([&options](const std::string& text) {
                 const auto mode = parse_db_connection_mode(text);
                 if (!mode) {
                     throw ConfigError("--db-connection must be 'per-request' or 'persistent', "
                                       "not '" + text + "'");
                 }
                 options.db_connection = *mode;
             }),
         "per-request: connect for every request; persistent: one connection per client "
         "connection, kept while it lives")
        ("worker-stack-kib", bounded_flag("worker-stack-kib", options.worker_stack_kib, 64, 65536),
         "stack size of each connection thread, KiB")
        ("concurrency", bounded_flag("concurrency", options.concurrency, 1, 1000),
         "with --standalone: threads running the iterations side by side");
    // clang-format on
    command_line.add_check(
        [&options](const po::variables_map& vm) { check_lifecycle(options, vm); });
}

}  // namespace mb::blocking
