// What a server process, or the whole server (a cluster's supervisor and worker processes), uses:
// CPU time, resident memory, threads. /status reports it, so that CPU per request can be measured
// from a client on another machine, where /proc of the server is out of reach.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>

namespace mb {

struct ProcessUsage {
    double user_s = 0;
    double system_s = 0;
    long rss_kib = 0;
    long threads = 0;
    long processes = 0;
};

// This process: CPU from getrusage() (microseconds), memory and threads from /proc/self.
ProcessUsage own_usage();
// root and all its descendants, from /proc (CPU in clock ticks, 10 ms).
ProcessUsage tree_usage(pid_t root);

nlohmann::json to_json(const ProcessUsage& usage);

}  // namespace mb
