#include "tests/support/stop_checks.hpp"

#include "tests/support/http_client.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <thread>

namespace mb::test {

void expect_second_signal_stops_at_once(ServerProcess& server) {
    using namespace std::chrono_literals;
    HttpConnection busy(server.port(), 30s);
    busy.send("GET /json?delay_ms=8000 HTTP/1.1\r\nHost: x\r\n\r\n");
    std::this_thread::sleep_for(300ms);
    ASSERT_EQ(::kill(server.pid(), SIGTERM), 0);
    std::this_thread::sleep_for(300ms);
    ASSERT_TRUE(server.running()) << "the request in flight may finish";
    const auto asked = std::chrono::steady_clock::now();
    EXPECT_EQ(server.stop(SIGTERM, 5s), 0);
    EXPECT_LT(std::chrono::steady_clock::now() - asked, 2s);
}

}  // namespace mb::test
