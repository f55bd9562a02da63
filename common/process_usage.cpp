#include "common/process_usage.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mb {
namespace {

// One process's figures from /proc/PID/stat; false when it is gone.
bool add_process(pid_t pid, ProcessUsage& usage) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) {
        return false;
    }
    // After "pid (comm) " come state (field 3) ... utime (14), stime (15), num_threads (20),
    // rss in pages (24).
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::vector<std::string> values;
    for (std::string value; fields >> value && values.size() < 22;) {
        values.push_back(value);
    }
    if (values.size() < 22) {
        return false;
    }
    static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    static const long page_kib = ::sysconf(_SC_PAGESIZE) / 1024;
    usage.user_s += std::stod(values[14 - 3]) / ticks;
    usage.system_s += std::stod(values[15 - 3]) / ticks;
    usage.threads += std::stol(values[20 - 3]);
    usage.rss_kib += std::stol(values[24 - 3]) * page_kib;
    usage.processes += 1;
    return true;
}

// The children of every thread of pid.
std::vector<pid_t> children_of(pid_t pid) {
    std::vector<pid_t> children;
    std::ifstream file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                       "/children");
    for (pid_t child; file >> child;) {
        children.push_back(child);
    }
    return children;
}

}  // namespace

ProcessUsage own_usage() {
    ProcessUsage usage;
    add_process(::getpid(), usage);
    rusage self{};
    ::getrusage(RUSAGE_SELF, &self);
    usage.user_s = static_cast<double>(self.ru_utime.tv_sec) + self.ru_utime.tv_usec / 1e6;
    usage.system_s = static_cast<double>(self.ru_stime.tv_sec) + self.ru_stime.tv_usec / 1e6;
    return usage;
}

ProcessUsage tree_usage(pid_t root) {
    ProcessUsage usage;
    std::vector<pid_t> pending{root};
    while (!pending.empty()) {
        const pid_t pid = pending.back();
        pending.pop_back();
        if (add_process(pid, usage)) {
            const auto children = children_of(pid);
            pending.insert(pending.end(), children.begin(), children.end());
        }
    }
    return usage;
}

nlohmann::json to_json(const ProcessUsage& usage) {
    return {{"user_s", usage.user_s},
            {"system_s", usage.system_s},
            {"rss_kib", usage.rss_kib},
            {"threads", usage.threads},
            {"processes", usage.processes}};
}

}  // namespace mb
