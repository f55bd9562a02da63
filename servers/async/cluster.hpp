// Cluster mode (--workers N > 1), after Node's cluster module and the run docs/experiments.md
// (E1b) proposes: N single-threaded worker processes, each with its own event loop and its own
// SO_REUSEPORT listener on one shared port, under a supervisor process that serves nothing
// itself. The supervisor restarts a worker that dies (with a back-off), forwards SIGINT/SIGTERM,
// and exits 0 once every worker has stopped.
#pragma once

#include "common/config.hpp"
#include "common/cpu_cost.hpp"
#include "servers/async/options.hpp"

namespace mb::async {

// Runs the cluster. Returns main()'s exit code: in the supervisor once all workers stopped, and
// in each forked worker once that worker stopped.
int run_cluster(const HttpConfig& http, const DbConfig& db, const CpuCostConfig& cost,
                const AsyncOptions& options);

}  // namespace mb::async
