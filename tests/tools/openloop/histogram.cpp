#include "tests/tools/openloop/histogram.hpp"

#include <algorithm>
#include <bit>

namespace mb::openloop {
namespace {

// 3 significant digits need 2 * 10^3 distinct sub-buckets: the next power of two, 2048, of
// which a bucket past the first uses its upper half (the lower half is the bucket below).
constexpr unsigned kSubBucketHalfMagnitude = 10;
constexpr std::uint64_t kSubBucketHalfCount = std::uint64_t{1} << kSubBucketHalfMagnitude;
constexpr std::uint64_t kSubBucketMask = 2 * kSubBucketHalfCount - 1;
constexpr unsigned kBuckets = 33 - kSubBucketHalfMagnitude;  // buckets 0..22 reach 2^33

std::size_t index_of(std::uint64_t value) {
    const unsigned bucket =
        64 - std::countl_zero(value | kSubBucketMask) - (kSubBucketHalfMagnitude + 1);
    const std::uint64_t sub_bucket = value >> bucket;
    return static_cast<std::size_t>(((std::uint64_t{bucket} + 1) << kSubBucketHalfMagnitude) +
                                    sub_bucket - kSubBucketHalfCount);
}

// The highest value counted at index.
std::uint64_t highest_at(std::size_t index) {
    std::int64_t bucket = static_cast<std::int64_t>(index >> kSubBucketHalfMagnitude) - 1;
    std::uint64_t sub_bucket = (index & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
    if (bucket < 0) {
        sub_bucket -= kSubBucketHalfCount;
        bucket = 0;
    }
    return ((sub_bucket + 1) << bucket) - 1;
}

}  // namespace

Histogram::Histogram() : counts_((kBuckets + 1) * kSubBucketHalfCount, 0) {}

void Histogram::record(std::uint64_t value_us) {
    ++counts_[index_of(std::min(value_us, kHighestTrackable))];
    ++count_;
    min_ = std::min(min_, value_us);
    max_ = std::max(max_, value_us);
    sum_ += value_us;
}

std::uint64_t Histogram::percentile(double percent) const {
    if (count_ == 0) return 0;
    // HdrHistogram's rank: this share of the count, rounded (not ceil: 99.9 % of 1000 is 999
    // whatever the floating point), at least one.
    const auto rank = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(percent / 100 * static_cast<double>(count_) + 0.5));
    // The max's sub-bucket gives the max itself, also when it is past the highest trackable.
    const std::size_t max_index = index_of(std::min(max_, kHighestTrackable));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < max_index; ++i) {
        seen += counts_[i];
        if (seen >= rank) return std::max(highest_at(i), min());
    }
    return max_;
}

std::vector<Histogram::Point> Histogram::distribution() const {
    std::vector<Point> points;
    if (count_ == 0) return points;
    const auto point = [this](double percent) {
        const std::uint64_t value = percentile(percent);
        const std::size_t last = index_of(std::min(value, kHighestTrackable));
        std::uint64_t at_or_below = 0;
        for (std::size_t i = 0; i <= last; ++i) at_or_below += counts_[i];
        return Point{percent, value, at_or_below};
    };
    // Half of the remaining share per step until it is less than one value.
    for (double rest = 50; rest * static_cast<double>(count_) / 100 >= 1; rest /= 2) {
        points.push_back(point(100 - rest));
    }
    points.push_back(point(100));
    return points;
}

}  // namespace mb::openloop
