#include "servers/blocking/options.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace mb::blocking {

namespace {

constexpr const char* kPreforkFlags[] = {"start-servers", "min-spare", "max-spare"};

// A flag naming one of a mode's values: parse turns the text into one, or refuses it (then
// "--FLAG must be CHOICES, not 'TEXT'").
template <typename Mode>
po::typed_value<std::string>* mode_flag(const char* flag, Mode& target,
                                        std::optional<Mode> (*parse)(std::string_view),
                                        const char* choices) {
    return po::value<std::string>()
        ->default_value(std::string(name_of(target)))
        ->value_name("MODE")
        ->notifier([flag, &target, parse, choices](const std::string& text) {
            const auto mode = parse(text);
            if (!mode) {
                throw ConfigError(std::string("--") + flag + " must be " + choices + ", not '" +
                                  text + "'");
            }
            target = *mode;
        });
}

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
         mode_flag("lifecycle", options.lifecycle, parse_lifecycle,
                   "'per-connection' or 'prefork'"),
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
         mode_flag("db-connection", options.db_connection, parse_db_connection_mode,
                   "'per-request' or 'persistent'"),
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
