// The cost model's knob: CPU time a request spends on the thread that serves it, on top of what
// the C++ server itself needs. PHP and the JavaScript MySQL driver spend far more CPU per request
// than these servers do; that cost decided the posts' outcome, and this makes it a setting. The
// work is real (it keeps a core busy, it cannot be optimised away), measured against the
// thread's own CPU clock, so that it costs the same CPU time on any machine and under any load.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace mb {

struct CpuCostConfig {
    unsigned per_request_us = 0;  // --cpu-per-request-us: every request but /status
    unsigned per_row_ns = 0;      // --cpu-per-row-ns: every row fetched and rendered
};

// Spends amount of the calling thread's CPU time in a loop whose result is kept; returns the CPU
// time it took (amount, plus at most one check's worth).
std::chrono::nanoseconds spend_cpu(std::chrono::nanoseconds amount);

// This thread's CPU time so far (CLOCK_THREAD_CPUTIME_ID).
std::chrono::nanoseconds thread_cpu_time();

// The configured cost and what it has spent, shared by a server's threads.
class CpuCost {
  public:
    explicit CpuCost(const CpuCostConfig& config) : config_(config) {}

    void spend_request() { charge(std::chrono::microseconds(config_.per_request_us)); }
    void spend_rows(std::size_t rows) {
        charge(std::chrono::nanoseconds(std::uint64_t{config_.per_row_ns} * rows));
    }

    // /status: the settings and the CPU seconds spent on them.
    nlohmann::json status() const;

  private:
    void charge(std::chrono::nanoseconds amount);

    CpuCostConfig config_;
    std::atomic<std::int64_t> spent_ns_{0};
};

}  // namespace mb
