#include "common/standalone_report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace mb {
namespace {

void cpu_seconds(double& user, double& sys) {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    user = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
    sys = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

// "0m7.410s", as bash's time keyword prints it.
std::string time_format(double seconds) {
    char text[32];
    const auto minutes = static_cast<long>(seconds / 60);
    std::snprintf(text, sizeof text, "%ldm%.3fs", minutes, seconds - 60.0 * minutes);
    return text;
}

}  // namespace

RunTimer::RunTimer() : wall_start_(std::chrono::steady_clock::now()) {
    cpu_seconds(user_start_, sys_start_);
}

RunTimes RunTimer::elapsed() const {
    RunTimes times;
    times.real_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    cpu_seconds(times.user_s, times.sys_s);
    times.user_s -= user_start_;
    times.sys_s -= sys_start_;
    return times;
}

void report_standalone_progress(unsigned done, unsigned total) {
    const unsigned step = std::max(1u, total / 10);
    if (done % step == 0 || done == total) {
        char line[64];
        std::snprintf(line, sizeof line, "standalone: %u/%u\n", done, total);
        std::fputs(line, stderr);
    }
}

void print_standalone_report(std::ostream& out, std::string_view model, unsigned iterations,
                             std::size_t page_bytes, const RunTimes& times, const CpuCost& cost) {
    out << "standalone: " << iterations << " iterations of the /html workload (2 queries, "
        << page_bytes << " bytes rendered each), " << model << " model\n"
        << "real\t" << time_format(times.real_s) << "\n"
        << "user\t" << time_format(times.user_s) << "\n"
        << "sys\t" << time_format(times.sys_s) << "\n";
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.1f", times.real_s > 0 ? iterations / times.real_s : 0.0);
    out << "iterations/s\t" << rate << "\n";
    const nlohmann::json spent = cost.status();
    if (spent["per_request_us"] != 0 || spent["per_row_ns"] != 0) {
        char line[160];
        std::snprintf(line, sizeof line,
                      "cpu cost\t%u us per request, %u ns per row: %.3f s spent\n",
                      spent["per_request_us"].get<unsigned>(), spent["per_row_ns"].get<unsigned>(),
                      spent["spent_cpu_s"].get<double>());
        out << line;
    }
}

}  // namespace mb
