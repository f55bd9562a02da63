#include "common/pages/factorial.hpp"

#include <gtest/gtest.h>

namespace mb {
namespace {

TEST(Factorial, SmallValuesAreExact) {
    EXPECT_EQ(factorial_digits(0), "1");
    EXPECT_EQ(factorial_digits(1), "1");
    EXPECT_EQ(factorial_digits(10), "3628800");
    EXPECT_EQ(factorial_digits(20), "2432902008176640000");
}

TEST(Factorial, FortyCrossesSeveralLimbs) {
    EXPECT_EQ(factorial_digits(40), "815915283247897734345611269596115894272000000000");
}

TEST(Factorial, ThousandHas2568Digits) {
    const std::string digits = factorial_digits(1000);
    EXPECT_EQ(digits.size(), 2568u);
    EXPECT_EQ(digits.substr(0, 10), "4023872600");
    // 1000! ends in exactly 249 zeros.
    EXPECT_EQ(digits.find_last_not_of('0'), digits.size() - 250);
}

TEST(Factorial, InnerLimbsKeepLeadingZeros) {
    // 13! = 6227020800: the low limb is 227020800, the high limb 6; a missing zero pad would
    // print a shorter number.
    EXPECT_EQ(factorial_digits(13), "6227020800");
    EXPECT_EQ(factorial_digits(25), "15511210043330985984000000");
}

TEST(Factorial, BodyFormat) { EXPECT_EQ(render_factorial(5), "5! = 120\n"); }

}  // namespace
}  // namespace mb
