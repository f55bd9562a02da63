// when_both(): two awaitables run at once on the caller's executor, the pair of results once
// both finished, or the first exception once both finished.
#include "common/coroutines.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

namespace mb {
namespace {

// A one-shot signal between coroutines: wait() resumes once set() was called.
struct Signal {
    explicit Signal(asio::io_context& io) : timer(io, asio::steady_timer::time_point::max()) {}
    void set() {
        done = true;
        timer.cancel();
    }
    awaitable<void> wait() {
        while (!done) {
            error_code ignored;
            co_await timer.async_wait(into(ignored));
        }
    }
    asio::steady_timer timer;
    bool done = false;
};

// The result of work run on io; nullopt when it did not finish within 5 s (a deadlock).
template <typename T>
std::optional<T> run(asio::io_context& io, awaitable<T> work) {
    std::optional<T> result;
    std::exception_ptr failure;
    asio::steady_timer watchdog(io, std::chrono::seconds(5));
    watchdog.async_wait([&](const error_code& ec) {
        if (!ec) {
            io.stop();
        }
    });
    asio::co_spawn(io, std::move(work), [&](std::exception_ptr e, T value) {
        failure = e;
        if (!e) {
            result = std::move(value);
        }
        watchdog.cancel();
    });
    io.run();
    if (failure) {
        std::rethrow_exception(failure);
    }
    return result;
}

TEST(WhenBoth, RunsBothAtOnceAndPairsTheirResults) {
    asio::io_context io;
    Signal b_started(io);
    // a waits for b to have started: run one after the other, they would never finish.
    auto a = [&]() -> awaitable<int> {
        co_await b_started.wait();
        co_return 1;
    };
    auto b = [&]() -> awaitable<std::string> {
        b_started.set();
        co_return "two";
    };
    auto both = [&]() -> awaitable<std::pair<int, std::string>> {
        co_return co_await when_both(a(), b());
    };
    const auto results = run(io, both());
    ASSERT_TRUE(results.has_value()) << "a and b did not run at once";
    EXPECT_EQ(results->first, 1);
    EXPECT_EQ(results->second, "two");
}

TEST(WhenBoth, RethrowsAFailureOnlyOnceTheOtherHasFinished) {
    asio::io_context io;
    Signal release(io);
    bool other_finished = false;
    auto failing = [&]() -> awaitable<int> {
        release.set();
        throw std::runtime_error("first failed");
        co_return 0;
    };
    auto slow = [&]() -> awaitable<int> {
        co_await release.wait();
        other_finished = true;
        co_return 2;
    };
    auto both = [&]() -> awaitable<bool> {
        try {
            co_await when_both(failing(), slow());
        } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "first failed");
            co_return other_finished;
        }
        co_return false;
    };
    EXPECT_EQ(run(io, both()), std::optional<bool>(true))
        << "rethrown before the other awaitable finished";
}

}  // namespace
}  // namespace mb
