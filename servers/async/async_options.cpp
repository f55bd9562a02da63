#include "servers/async/async_options.hpp"

#include <algorithm>
#include <thread>

namespace mb::async {

void AsyncOptions::add_to(CommandLine& command_line) {
    // clang-format off
    command_line.model_options().add_options()
        ("db-pool", bounded_flag("db-pool", db_pool, 1, 1000),
         "database connections in the pool, each opened on first use")
        ("db-queue-limit", bounded_flag("db-queue-limit", db_queue_limit, 0, 1000000),
         "requests that may wait for a pool connection; past it: 503 (0: no limit)")
        ("db-queue-timeout", bounded_seconds_flag("db-queue-timeout", db_queue_timeout, 3600),
         "seconds a request may wait for a pool connection; past it: 503")
        ("max-pending-tasks", bounded_flag("max-pending-tasks", max_pending_tasks, 1, 1000000),
         "/tasks' task twos waiting at most; past it: 503")
        ("workers", bounded_flag("workers", workers, 0, 256),
         "event-loop processes sharing the port (SO_REUSEPORT) under a supervisor; 0: one per "
         "core")
        ("concurrency", bounded_flag("concurrency", concurrency, 1, 1000),
         "with --standalone: iterations in flight at once, on 2 database connections each");
    // clang-format on
}

unsigned AsyncOptions::worker_processes() const {
    return workers != 0 ? workers : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace mb::async
