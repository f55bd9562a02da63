#include "servers/blocking/options.hpp"

#include <string>

namespace mb::blocking {

void add_blocking_options(po::options_description& model, BlockingOptions& options) {
    // clang-format off
    model.add_options()
        ("max-workers", bounded_flag("max-workers", options.max_workers, 1, 10000),
         "connection threads alive at most; beyond, clients wait in the listen queue")
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
}

}  // namespace mb::blocking
