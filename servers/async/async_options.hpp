// The async model's own flags, added to the shared command line: the pool (--db-pool,
// --db-queue-limit), cluster mode (--workers) and the standalone mode's --concurrency.
#pragma once

#include "common/config.hpp"

namespace mb::async {

struct AsyncOptions {
    unsigned db_pool = 10;        // the connectionLimit of Node's mysql pool
    unsigned db_queue_limit = 0;  // 0: unbounded, as Node's queueLimit
    unsigned workers = 1;         // event-loop processes; 0: one per core
    unsigned concurrency = 1;     // standalone: iterations in flight at once

    // Registers the flags; values out of range make CommandLine::parse() throw ConfigError.
    void add_to(CommandLine& command_line);
    // --workers with 0 resolved to the number of cores.
    unsigned worker_processes() const;
};

}  // namespace mb::async
