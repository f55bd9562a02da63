// Checks of how a running server stops, shared by the servers' test suites.
#pragma once

#include "tests/support/server_process.hpp"

namespace mb::test {

// With a request in flight (a slow /json), SIGTERM lets it go on, and a second SIGTERM ends the
// process at once, exit 0. Reports failures to the running GoogleTest test.
void expect_second_signal_stops_at_once(ServerProcess& server);

}  // namespace mb::test
