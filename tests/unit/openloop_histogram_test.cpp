// openloop's histogram: percentiles of known distributions within its 3 significant digits, the
// exact count, min, max and mean, and the percentile distribution's steps.
#include "tests/tools/openloop/histogram.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace mb::openloop {
namespace {

// A value is kept within 1/1024 of itself, and a percentile rounds up to its sub-bucket's top.
void expect_within_precision(std::uint64_t actual, double expected) {
    EXPECT_NEAR(static_cast<double>(actual), expected, expected / 1024 + 1) << expected;
}

TEST(OpenloopHistogram, EmptyReportsZeros) {
    Histogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_EQ(h.max(), 0u);
    EXPECT_EQ(h.percentile(99), 0u);
    EXPECT_TRUE(h.distribution().empty());
}

TEST(OpenloopHistogram, SmallValuesAreExact) {
    Histogram h;
    for (std::uint64_t v = 0; v < 2048; ++v) h.record(v);
    EXPECT_EQ(h.percentile(50), 1023u);
    EXPECT_EQ(h.percentile(100), 2047u);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_DOUBLE_EQ(h.mean(), 1023.5);
}

TEST(OpenloopHistogram, UniformPercentiles) {
    Histogram h;
    for (std::uint64_t v = 1; v <= 1'000'000; ++v) h.record(v);  // 1 us .. 1 s
    for (double p : {10.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
        SCOPED_TRACE(p);
        expect_within_precision(h.percentile(p), p / 100 * 1e6);
    }
    EXPECT_EQ(h.min(), 1u);
    EXPECT_EQ(h.max(), 1'000'000u);
    EXPECT_EQ(h.percentile(100), 1'000'000u);
    EXPECT_DOUBLE_EQ(h.mean(), 500000.5);
}

TEST(OpenloopHistogram, ExponentialPercentiles) {
    std::mt19937_64 random(3);
    std::exponential_distribution<double> exponential(1 / 5000.0);  // mean 5 ms in us
    Histogram h;
    std::vector<std::uint64_t> values;
    for (int i = 0; i < 200000; ++i) {
        values.push_back(static_cast<std::uint64_t>(exponential(random)));
        h.record(values.back());
    }
    std::sort(values.begin(), values.end());
    for (double p : {50.0, 90.0, 99.0, 99.9}) {
        SCOPED_TRACE(p);
        const auto rank = static_cast<std::size_t>(p / 100 * values.size() + 0.5);
        expect_within_precision(h.percentile(p), static_cast<double>(values[rank - 1]));
        // And the distribution's own: -mean * ln(1 - p), within sampling error.
        EXPECT_NEAR(static_cast<double>(h.percentile(p)), -5000 * std::log(1 - p / 100),
                    p < 99.5 ? 0.03 * -5000 * std::log(1 - p / 100) : 2500);
    }
    EXPECT_EQ(h.min(), values.front());
    EXPECT_EQ(h.max(), values.back());
    EXPECT_EQ(h.count(), values.size());
}

TEST(OpenloopHistogram, LargeValuesKeepThreeDigitsAndTheExactMax) {
    Histogram h;
    h.record(3'600'000'000);  // an hour
    h.record(123'456'789);
    expect_within_precision(h.percentile(50), 123'456'789);
    EXPECT_EQ(h.percentile(100), 3'600'000'000u);
    h.record(Histogram::kHighestTrackable + 1000);
    EXPECT_EQ(h.max(), Histogram::kHighestTrackable + 1000);
    EXPECT_EQ(h.percentile(100), Histogram::kHighestTrackable + 1000);
}

TEST(OpenloopHistogram, DistributionHalvesTheRestUpToTheMax) {
    Histogram h;
    for (std::uint64_t v = 1; v <= 1000; ++v) h.record(v);
    const auto points = h.distribution();
    // 50, 75, ... while half the rest is still a value: 1000 * 2^-k >= 1 for k <= 9, then 100.
    ASSERT_EQ(points.size(), 10u);
    EXPECT_DOUBLE_EQ(points[0].percent, 50);
    EXPECT_DOUBLE_EQ(points[1].percent, 75);
    EXPECT_DOUBLE_EQ(points[2].percent, 87.5);
    EXPECT_DOUBLE_EQ(points.back().percent, 100);
    EXPECT_EQ(points[0].value_us, 500u);
    EXPECT_EQ(points[0].count_at_or_below, 500u);
    EXPECT_EQ(points.back().value_us, 1000u);
    EXPECT_EQ(points.back().count_at_or_below, 1000u);
    for (std::size_t i = 1; i < points.size(); ++i) {
        EXPECT_LE(points[i - 1].value_us, points[i].value_us);
    }
}

}  // namespace
}  // namespace mb::openloop
