// Latencies in whole microseconds, counted in HdrHistogram's log-linear layout with 3 significant
// digits: bucket b holds values [2^(b+10), 2^(b+11)) in 1024 sub-buckets of width 2^b (bucket 0
// also holds 0..1023 at width 1), so every value is kept within 1/1024 of itself (< 0.1 %) in a
// fixed table of 23 * 1024 + 1024 counters (1 us to 2^33 us, about 2.4 hours). The count, min,
// max and sum are exact; percentiles are the highest value equivalent to the one found, clamped
// to the exact min and max.
#pragma once

#include <cstdint>
#include <vector>

namespace mb::openloop {

class Histogram {
  public:
    static constexpr std::uint64_t kHighestTrackable = (std::uint64_t{1} << 33) - 1;

    Histogram();

    // Values above kHighestTrackable are counted as it (the max stays exact).
    void record(std::uint64_t value_us);

    std::uint64_t count() const { return count_; }
    std::uint64_t min() const { return count_ ? min_ : 0; }
    std::uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0; }
    // percent in [0, 100]; 0 without values.
    std::uint64_t percentile(double percent) const;

    // HdrHistogram's percentile distribution: 50, 75, 87.5, ... (half the rest each step) while
    // a step still separates values, then 100; each with its value and the count at or below it.
    struct Point {
        double percent;
        std::uint64_t value_us;
        std::uint64_t count_at_or_below;
    };
    std::vector<Point> distribution() const;

  private:
    std::vector<std::uint64_t> counts_;
    std::uint64_t count_ = 0;
    std::uint64_t min_ = UINT64_MAX;
    std::uint64_t max_ = 0;
    std::uint64_t sum_ = 0;
};

}  // namespace mb::openloop
