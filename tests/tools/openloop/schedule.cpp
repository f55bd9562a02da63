#include "tests/tools/openloop/schedule.hpp"

#include <cmath>

namespace mb::openloop {

Schedule::Schedule(Arrivals arrivals, double rate_per_s, std::uint64_t seed,
                   Clock::time_point start, Clock::duration duration)
    : arrivals_(arrivals),
      period_ns_(1e9 / rate_per_s),
      random_(seed),
      gap_ns_(1 / period_ns_),
      start_(start),
      duration_(duration) {}

void Schedule::advance() {
    ++index_;
    if (arrivals_ == Arrivals::uniform) {
        offset_ = std::chrono::nanoseconds(
            std::llround(static_cast<long double>(index_) * static_cast<long double>(period_ns_)));
    } else {
        offset_ += std::chrono::nanoseconds(std::llround(gap_ns_(random_)));
    }
}

}  // namespace mb::openloop
