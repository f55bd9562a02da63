// Standalone mode (docs/experiments.md, E1a): the /html workload N times in this process, no HTTP,
// timed like Unix `time`. --concurrency K splits the iterations over K threads, each with its own
// database connection(s), to find the database's own ceiling.
#pragma once

#include "common/config.hpp"
#include "common/cpu_cost.hpp"
#include "servers/blocking/database_access.hpp"

namespace mb::blocking {

// Prints progress on stderr and the report on stdout. Returns the exit code: 0, or 1 (with the
// reason on stderr) when the database failed.
int run_standalone(const DbConfig& db, const CpuCostConfig& cost, DbConnectionMode mode,
                   unsigned iterations, unsigned concurrency);

}  // namespace mb::blocking
