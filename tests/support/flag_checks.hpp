// Checks of a built binary's command line, shared by the servers' test suites.
#pragma once

#include <string>
#include <vector>

namespace mb::test {

// Runs `binary FLAGS` for each entry of bad_flags and expects it refused: exit status 2, the usage
// printed, and the flag's name in the message. Reports failures to the running GoogleTest test.
void expect_flags_rejected(const std::string& binary, const std::vector<std::string>& bad_flags);

}  // namespace mb::test
