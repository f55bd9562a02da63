// The async model's own flags, added to the shared command line: the pool (--db-pool,
// --db-queue-limit), cluster mode (--workers) and the standalone mode's --concurrency.
#pragma once

#include "common/config.hpp"

#include <chrono>

namespace mb::async {

struct AsyncOptions {
    unsigned db_pool = 10;  // the connectionLimit of Node's mysql pool
    // Node's pool queues without limit (queueLimit 0). Here the queue has a cap: /html waits for
    // two connections, so 4096 waiters are 2048 clients waiting at once, twice the largest
    // concurrency the experiments use (ab -c 1000), and still a few kilobytes each.
    unsigned db_queue_limit = 4096;  // 0: unbounded
    // How long a request may wait for a pool connection before it gets 503 (mysqljs' own
    // acquireTimeout is 10 s too): a queue the pool cannot drain must not hold clients forever.
    std::chrono::milliseconds db_queue_timeout{10000};
    // /tasks' task twos waiting on timers at most; past it, 503.
    unsigned max_pending_tasks = 10000;
    unsigned workers = 1;      // event-loop processes; 0: one per core
    unsigned concurrency = 1;  // standalone: iterations in flight at once

    // Registers the flags; values out of range make CommandLine::parse() throw ConfigError.
    void add_to(CommandLine& command_line);
    // --workers with 0 resolved to the number of cores.
    unsigned worker_processes() const;
};

}  // namespace mb::async
