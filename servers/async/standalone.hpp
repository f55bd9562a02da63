// Standalone mode (E1a): the /html workload N times on the event loop, no HTTP. Each iteration
// sends its two queries at once on two connections, as the Node.js script did; --concurrency K
// keeps K iterations in flight (2K connections).
#pragma once

#include "common/config.hpp"
#include "common/cpu_cost.hpp"

namespace mb::async {

// Prints the timing report on stdout; returns 0, or 1 (with the reason on stderr) when the
// database fails.
int run_standalone(const DbConfig& db, const CpuCostConfig& cost, unsigned iterations,
                   unsigned concurrency);

}  // namespace mb::async
