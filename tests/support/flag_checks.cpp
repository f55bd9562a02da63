#include "tests/support/flag_checks.hpp"

#include "tests/support/server_process.hpp"

#include <gtest/gtest.h>

namespace mb::test {

void expect_flags_rejected(const std::string& binary, const std::vector<std::string>& bad_flags) {
    for (const auto& flags : bad_flags) {
        SCOPED_TRACE(flags);
        std::string output;
        EXPECT_EQ(run_command(binary + " " + flags, output), 2);
        EXPECT_NE(output.find("Usage:"), std::string::npos) << output;
        const std::string flag = flags.substr(0, flags.find(' '));
        EXPECT_NE(output.find(flag), std::string::npos) << output;
    }
}

}  // namespace mb::test
