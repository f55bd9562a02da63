// The intended send times of an open-loop run: the n-th arrival is due at start + offset(n), an
// offset computed from the start alone, never from when the previous request actually went out,
// so that a late timer or a stalled loop delays requests without moving the schedule (the
// correction for coordinated omission measures latency from these times). Pure: it never reads
// a clock, so tests drive it with made-up times.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace mb::openloop {

using Clock = std::chrono::steady_clock;

enum class Arrivals { uniform, poisson };

class Schedule {
  public:
    // rate_per_s > 0; arrivals in [start, start + duration), the first one at start.
    Schedule(Arrivals arrivals, double rate_per_s, std::uint64_t seed, Clock::time_point start,
             Clock::duration duration);

    bool done() const { return offset_ >= duration_; }
    // The intended time of the next arrival (valid while !done()).
    Clock::time_point next() const { return start_ + offset_; }
    std::uint64_t scheduled() const { return index_; }  // arrivals passed by advance()
    void advance();

  private:
    Arrivals arrivals_;
    double period_ns_;
    std::mt19937_64 random_;
    std::exponential_distribution<double> gap_ns_;
    Clock::time_point start_;
    Clock::duration duration_;
    std::uint64_t index_ = 0;
    // Uniform: index_ * period, rounded once. Poisson: the sum of the gaps drawn, each rounded
    // to a whole nanosecond so that the sum is exact integer arithmetic.
    Clock::duration offset_{0};
};

}  // namespace mb::openloop
