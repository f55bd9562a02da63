// openloop's schedule against made-up clock times: uniform times exact and without drift over
// millions of arrivals, Poisson's mean rate and gaps, the same seed the same times.
#include "tests/tools/openloop/schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace mb::openloop {
namespace {

using namespace std::chrono_literals;

const Clock::time_point kStart = Clock::time_point(123456789ns);

TEST(OpenloopSchedule, UniformTimesAreExactMultiplesOfThePeriod) {
    Schedule schedule(Arrivals::uniform, 5000, 1, kStart, 1s);
    std::uint64_t n = 0;
    for (; !schedule.done(); schedule.advance(), ++n) {
        ASSERT_EQ(schedule.next(), kStart + n * 200us) << n;
    }
    EXPECT_EQ(n, 5000u);
    EXPECT_EQ(schedule.scheduled(), 5000u);
}

// A period that is not a whole number of nanoseconds (1/3 ms): each time is rounded from the
// start once, so the error never exceeds half a nanosecond, however far the schedule goes.
TEST(OpenloopSchedule, UniformTimesDoNotDrift) {
    Schedule schedule(Arrivals::uniform, 3000, 1, kStart, 3600s);
    for (std::uint64_t n = 0; !schedule.done(); schedule.advance(), ++n) {
        const long double exact_ns = static_cast<long double>(n) * 1e9L / 3000;
        const auto offset = (schedule.next() - kStart).count();
        ASSERT_LE(std::fabs(static_cast<long double>(offset) - exact_ns), 0.5L) << n;
    }
    EXPECT_EQ(schedule.scheduled(), 3000u * 3600);
}

TEST(OpenloopSchedule, UniformStopsAtTheDuration) {
    Schedule schedule(Arrivals::uniform, 3, 1, kStart, 1s);  // 0, 333.3 ms, 666.7 ms
    std::vector<Clock::time_point> times;
    for (; !schedule.done(); schedule.advance()) times.push_back(schedule.next());
    ASSERT_EQ(times.size(), 3u);
    EXPECT_EQ(times[1], kStart + 333333333ns);
    EXPECT_EQ(times[2], kStart + 666666667ns);
}

TEST(OpenloopSchedule, PoissonMeanRateAndGapsOverManyArrivals) {
    const double rate = 2000;
    Schedule schedule(Arrivals::poisson, rate, 42, kStart, 500s);  // about a million arrivals
    Clock::time_point previous = schedule.next();
    EXPECT_EQ(previous, kStart);
    double sum_squares_ms = 0;
    std::uint64_t gaps = 0, short_gaps = 0;
    for (schedule.advance(); !schedule.done(); schedule.advance(), ++gaps) {
        ASSERT_GE(schedule.next(), previous);
        const double gap_ms =
            std::chrono::duration<double, std::milli>(schedule.next() - previous).count();
        sum_squares_ms += gap_ms * gap_ms;
        if (gap_ms < 0.5) ++short_gaps;  // P(gap < mean) = 1 - 1/e for exponential gaps
        previous = schedule.next();
    }
    const double expected = rate * 500;
    // A Poisson count's standard deviation is sqrt(expected), about 1000: 5 of them.
    EXPECT_NEAR(static_cast<double>(schedule.scheduled()), expected, 5 * std::sqrt(expected));
    // An exponential's second moment is 2 * mean^2 = 0.5 ms^2.
    EXPECT_NEAR(sum_squares_ms / static_cast<double>(gaps), 0.5, 0.01);
    EXPECT_NEAR(static_cast<double>(short_gaps) / static_cast<double>(gaps), 1 - std::exp(-1.0),
                0.005);
}

TEST(OpenloopSchedule, PoissonTimesFollowFromTheSeedAlone) {
    Schedule a(Arrivals::poisson, 1000, 7, kStart, 1s);
    Schedule b(Arrivals::poisson, 1000, 7, kStart + 5s, 1s);
    Schedule c(Arrivals::poisson, 1000, 8, kStart, 1s);
    bool differs = false;
    for (; !a.done() && !b.done(); a.advance(), b.advance(), c.advance()) {
        ASSERT_EQ(a.next() - kStart, b.next() - (kStart + 5s));
        differs = differs || c.done() || a.next() != c.next();
    }
    EXPECT_TRUE(a.done() && b.done());
    EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace mb::openloop
