// The blocking model's own flags, added to the shared CommandLine's "Model" section.
#pragma once

#include "common/command_line.hpp"
#include "servers/blocking/database_access.hpp"
#include "servers/blocking/prefork_threads.hpp"
#include "servers/blocking/thread_lifecycle.hpp"

#include <cstddef>

namespace mb::blocking {

struct BlockingOptions {
    unsigned max_workers = 150;  // Debian's Apache prefork MaxRequestWorkers
    // A thread per connection, or Apache prefork's pre-started threads (rules: prefork).
    Lifecycle lifecycle = Lifecycle::per_connection;
    PreforkRules prefork;
    // Apache's MaxKeepAliveRequests: after this many requests a connection closes, so its worker
    // can take a client from the listen queue; without it, when there are more keep-alive clients
    // than workers, those beyond the cap would wait for as long as the others keep talking.
    unsigned max_keepalive_requests = 100;                           // 0: unlimited
    DbConnectionMode db_connection = DbConnectionMode::per_request;  // PHP mysqli's default
    // A worker's deepest call chain (Beast parser, libmysqlclient connect and query, rendering)
    // touches at most about 24 KiB of stack (28 KiB under AddressSanitizer; measured over every
    // endpoint and error path), so 256 KiB leaves a wide margin. glibc's
    // 8 MiB default would reserve 80 GiB of address space at 10000 workers, and the stacks of
    // ended threads are kept for reuse only up to 40 MiB (glibc's cache, and StackPool's): 5
    // stacks of 8 MiB, but 160 of 256 KiB, so a new connection's thread mostly reuses a stack
    // instead of mapping a fresh one.
    unsigned worker_stack_kib = 256;
    unsigned concurrency = 1;  // --standalone only: threads sharing the iterations

    std::size_t worker_stack_bytes() const { return std::size_t{worker_stack_kib} * 1024; }
};

// Registers --max-workers, --lifecycle, --start-servers, --min-spare, --max-spare,
// --max-keepalive-requests, --db-connection, --worker-stack-kib and --concurrency; bad values
// make CommandLine::parse() throw ConfigError.
void add_blocking_options(CommandLine& command_line, BlockingOptions& options);

}  // namespace mb::blocking
