#include "common/cpu_cost.hpp"

#include <time.h>

namespace mb {
namespace {

// Where the burn loop's state goes, so that the compiler must compute it.
std::atomic<std::uint64_t> sink{0};

}  // namespace

std::chrono::nanoseconds thread_cpu_time() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

std::chrono::nanoseconds spend_cpu(std::chrono::nanoseconds amount) {
    if (amount.count() <= 0) {
        return std::chrono::nanoseconds(0);
    }
    const auto start = thread_cpu_time();
    auto now = start;
    std::uint64_t state = 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(start.count());
    do {
        // Some microseconds of xorshift between two looks at the clock (the look is a system
        // call of a few hundred nanoseconds, and a request's cost should be user time, as an
        // interpreter's is), a tenth of a microsecond near the end so as not to overshoot.
        const int rounds = amount - (now - start) > std::chrono::microseconds(50) ? 2048 : 64;
        for (int i = 0; i < rounds; ++i) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
        }
        now = thread_cpu_time();
    } while (now - start < amount);
    sink.fetch_xor(state, std::memory_order_relaxed);
    return now - start;
}

void CpuCost::charge(std::chrono::nanoseconds amount) {
    if (amount.count() > 0) {
        spent_ns_.fetch_add(spend_cpu(amount).count(), std::memory_order_relaxed);
    }
}

nlohmann::json CpuCost::status() const {
    return {{"per_request_us", config_.per_request_us},
            {"per_row_ns", config_.per_row_ns},
            {"spent_cpu_s", static_cast<double>(spent_ns_.load(std::memory_order_relaxed)) / 1e9}};
}

}  // namespace mb
