// The async model's event-loop delay: its percentiles from recorded delays, and on a real loop
// a callback that holds the thread shows as a delay of at least what it held.
#include "servers/async/loop_delay.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace mb::async {
namespace {

using namespace std::chrono_literals;

TEST(LoopDelay, NoSampleSaysSo) {
    boost::asio::io_context io;
    LoopDelay delay(io.get_executor());
    EXPECT_EQ(delay.status(), nlohmann::json({{"samples", 0}}));
}

TEST(LoopDelay, PercentilesAreBinEdgesAndTheMaxBeyond) {
    boost::asio::io_context io;
    LoopDelay delay(io.get_executor());
    for (int i = 0; i < 98; ++i) {
        delay.record(0.04);  // in the 0.1-ms bin
    }
    delay.record(2.33);  // its bin's upper edge: 2.4 ms, the max below it: 2.33
    delay.record(1500);  // beyond the last bin
    const auto status = delay.status();
    EXPECT_EQ(status["samples"], 100);
    EXPECT_DOUBLE_EQ(status["p50_ms"].get<double>(), 0.1);
    EXPECT_DOUBLE_EQ(status["p99_ms"].get<double>(), 2.4);
    EXPECT_DOUBLE_EQ(status["max_ms"].get<double>(), 1500);
    EXPECT_NEAR(status["mean_ms"].get<double>(), (98 * 0.04 + 2.33 + 1500) / 100, 1e-9);
    delay.record(1600);  // now the 99th of 101 is past the last bin: the max
    EXPECT_DOUBLE_EQ(delay.status()["p99_ms"].get<double>(), 1600);
}

TEST(LoopDelay, ACallbackHoldingTheLoopIsMeasuredAndStopEndsTheLoop) {
    boost::asio::io_context io;
    LoopDelay delay(io.get_executor());
    delay.start();
    boost::asio::steady_timer hold(io, 25ms);
    boost::asio::steady_timer end(io);
    hold.async_wait([&](const boost::system::error_code&) {
        std::this_thread::sleep_for(60ms);  // a heavy request's computation
        // The sample the hold delayed is taken first: its timer is overdue, this one is not.
        end.expires_after(25ms);
        end.async_wait([&](const boost::system::error_code&) { delay.stop(); });
    });
    io.run();  // returns only once stop() has cancelled the sampling timer
    const auto status = delay.status();
    EXPECT_GE(status["samples"].get<int>(), 2);
    EXPECT_GE(status["max_ms"].get<double>(), 45.0);  // 60 ms held, less one 10-ms interval
}

}  // namespace
}  // namespace mb::async
