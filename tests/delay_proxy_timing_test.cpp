// The delay that delay_proxy adds is the one asked for: round trips of a small message to a TCP
// echo server through the proxy, against the same round trips without it, median of many.
#include "tests/support/echo_server.hpp"
#include "tests/support/server_process.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace mb::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMessageBytes = 64;

void send_and_receive(int fd) {
    char message[kMessageBytes] = {};
    if (write(fd, message, sizeof message) != static_cast<ssize_t>(sizeof message)) {
        throw std::runtime_error("write failed");
    }
    for (std::size_t got = 0; got < sizeof message;) {
        const ssize_t n = read(fd, message, sizeof message - got);
        if (n <= 0) throw std::runtime_error("the echo did not come back");
        got += static_cast<std::size_t>(n);
    }
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

double elapsed_ms(Clock::time_point since) {
    return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// Median of `count` round trips on one connection (after a few not counted).
double round_trip_ms(std::uint16_t port, int count) {
    const int fd = connect_loopback(port);
    std::vector<double> times;
    for (int i = 0; i < count + 10; ++i) {
        const auto start = Clock::now();
        send_and_receive(fd);
        if (i >= 10) times.push_back(elapsed_ms(start));
    }
    close(fd);
    return median(times);
}

// Median of `count` times from connect() to the first echo on a new connection.
double connect_round_trip_ms(std::uint16_t port, int count) {
    std::vector<double> times;
    for (int i = 0; i < count; ++i) {
        const auto start = Clock::now();
        const int fd = connect_loopback(port);
        send_and_receive(fd);
        times.push_back(elapsed_ms(start));
        close(fd);
    }
    return median(times);
}

class DelayProxyTiming : public ::testing::Test {
  protected:
    ServerProcess start_proxy(double rtt_ms) {
        return ServerProcess(binary_path("delay_proxy"),
                             {"--target", "127.0.0.1:" + std::to_string(echo_.port()), "--rtt-ms",
                              std::to_string(rtt_ms)});
    }

    EchoServer echo_;
};

TEST_F(DelayProxyTiming, AddsTheAskedRoundTripWithinTenPercent) {
    const double direct = round_trip_ms(echo_.port(), 400);
    for (const double rtt : {0.5, 1.0, 2.0, 5.0}) {
        auto proxy = start_proxy(rtt);
        const int count = rtt < 2 ? 400 : 150;
        const double added = round_trip_ms(proxy.port(), count) - direct;
        std::printf("rtt %.1f ms: %.3f ms added (%+.1f %%), direct %.3f ms\n", rtt, added,
                    (added - rtt) / rtt * 100, direct);
        EXPECT_NEAR(added, rtt, rtt * 0.1) << "asked " << rtt << " ms";
    }
}

// A new connection pays the handshake too: 1.5 round trips before the target sees the client's
// first bytes, and half of one back, as across a real link.
TEST_F(DelayProxyTiming, NewConnectionPaysTwoRoundTrips) {
    const double direct = connect_round_trip_ms(echo_.port(), 100);
    for (const double rtt : {1.0, 2.0}) {
        auto proxy = start_proxy(rtt);
        const double added = connect_round_trip_ms(proxy.port(), 100) - direct;
        std::printf("rtt %.1f ms, connect and first echo: %.3f ms added (%+.1f %% of %.1f)\n", rtt,
                    added, (added - 2 * rtt) / (2 * rtt) * 100, 2 * rtt);
        EXPECT_NEAR(added, 2 * rtt, 2 * rtt * 0.1) << "asked " << rtt << " ms";
    }
}

TEST_F(DelayProxyTiming, ForwardsAtOnceWithoutDelay) {
    const double direct = round_trip_ms(echo_.port(), 400);
    auto proxy = start_proxy(0);
    const double added = round_trip_ms(proxy.port(), 400) - direct;
    std::printf("rtt 0: %.3f ms added by the extra hop, direct %.3f ms\n", added, direct);
    EXPECT_LT(added, 0.2);
}

}  // namespace
}  // namespace mb::test
