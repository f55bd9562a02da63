// The blocking model's thread lifecycles without sockets: the cap of ConnectionThreads, and
// PreforkThreads' Apache prefork rules (start servers, spare growth, retirement, cap, reuse,
// stop). A "connection" here is a job that holds its thread until the test lets it go; prefork's
// maintenance rounds are run by the test (no maintenance thread), so each round is seen exactly.
#include "servers/blocking/connection_threads.hpp"
#include "servers/blocking/prefork_threads.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <pthread.h>
#include <unistd.h>

#include <future>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mb::blocking {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kStackBytes = 200 * 1024;
constexpr auto kManualRounds = std::chrono::milliseconds(0);

// Jobs call pass() and wait there until the test lets them through, one or all.
class Gate {
  public:
    void pass() {
        std::unique_lock lock(mutex_);
        ++waiting_;
        changed_.notify_all();
        changed_.wait(lock, [this] { return open_ || permits_ > 0; });
        if (!open_) {
            --permits_;
        }
        --waiting_;
    }
    void let_one_through() {
        std::lock_guard lock(mutex_);
        ++permits_;
        changed_.notify_all();
    }
    void open() {
        std::lock_guard lock(mutex_);
        open_ = true;
        changed_.notify_all();
    }
    // True once n jobs wait at the gate (within 5 s).
    bool waiting(std::size_t n) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, 5s, [this, n] { return waiting_ == n; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t waiting_ = 0;
    std::size_t permits_ = 0;
    bool open_ = false;
};

// Threads of this process, as the kernel counts them.
int process_threads() {
    int count = 0;
    if (DIR* tasks = opendir("/proc/self/task")) {
        while (const dirent* entry = readdir(tasks)) {
            count += entry->d_name[0] != '.' ? 1 : 0;
        }
        closedir(tasks);
    }
    return count;
}

// The thread count before a test starts its threads. Sanitizer runtimes start a helper thread of
// their own at the process's first thread creation; one short-lived thread first makes sure it
// already runs, so that it is in the baseline rather than in the test's count.
int threads_before_test() {
    std::thread([] {}).join();
    return process_threads();
}

// Polls until condition holds or 5 s pass: for what a thread does after the call that caused it
// returned (ending, being joined), never as a measurement.
template <typename Condition>
bool eventually(Condition condition) {
    for (const auto until = Clock::now() + 5s; Clock::now() < until;) {
        if (condition()) {
            return true;
        }
        std::this_thread::sleep_for(2ms);
    }
    return condition();
}

// The acceptor's step: wait for a thread, hand it the job.
void hand(ThreadLifecycle& threads, std::function<void()> job) {
    ASSERT_TRUE(threads.wait_for_slot());
    ASSERT_TRUE(threads.start(std::move(job)));
}

// Hands count connections that wait at the gate; returns once all of them do.
void occupy(ThreadLifecycle& threads, Gate& gate, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        hand(threads, [&gate] { gate.pass(); });
    }
    ASSERT_TRUE(gate.waiting(count));
}

// Prefork with the rounds run by the test (maintain()).
PreforkThreads with_manual_rounds(const PreforkRules& rules, unsigned max_workers) {
    return PreforkThreads(rules, max_workers, kStackBytes, kManualRounds);
}

// Stops the lifecycle and expects every thread to end and be joined.
void expect_stopped(ThreadLifecycle& threads) {
    threads.stop();
    EXPECT_EQ(threads.join_all(Clock::now() + 5s), 0u);
}

template <typename Result>
bool still_waiting(std::future<Result>& future) {
    return future.wait_for(100ms) == std::future_status::timeout;
}

TEST(ConnectionThreads, WaitForSlotBlocksAtTheCapUntilAThreadEnds) {
    ConnectionThreads threads(3, kStackBytes);
    Gate gate;
    ASSERT_NO_FATAL_FAILURE(occupy(threads, gate, 3));
    auto stats = threads.stats();
    EXPECT_EQ(stats.serving, 3u);
    EXPECT_EQ(stats.threads, 3u);
    EXPECT_EQ(stats.peak, 3u);
    EXPECT_EQ(stats.started, 3u);
    EXPECT_EQ(stats.idle, 0u);
    EXPECT_EQ(stats.waits_at_cap, 0u);
    EXPECT_TRUE(threads.all_busy());

    auto acceptor = std::async(std::launch::async, [&threads] { return threads.wait_for_slot(); });
    EXPECT_TRUE(still_waiting(acceptor)) << "wait_for_slot() returned at the cap";
    gate.let_one_through();
    ASSERT_EQ(acceptor.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(acceptor.get());
    stats = threads.stats();
    EXPECT_EQ(stats.waits_at_cap, 1u);
    EXPECT_EQ(stats.serving, 2u);
    EXPECT_EQ(stats.threads, 2u) << "the ended thread still holds its slot";
    EXPECT_FALSE(threads.all_busy());

    gate.open();
    expect_stopped(threads);
    EXPECT_EQ(threads.stats().peak, 3u);
}

TEST(ConnectionThreads, StopReleasesTheAcceptorWaitingAtTheCap) {
    ConnectionThreads threads(1, kStackBytes);
    Gate gate;
    ASSERT_NO_FATAL_FAILURE(occupy(threads, gate, 1));
    auto acceptor = std::async(std::launch::async, [&threads] { return threads.wait_for_slot(); });
    EXPECT_TRUE(still_waiting(acceptor));
    threads.stop();
    ASSERT_EQ(acceptor.wait_for(5s), std::future_status::ready);
    EXPECT_FALSE(acceptor.get());
    EXPECT_FALSE(threads.wait_for_slot()) << "a stopped lifecycle gave a slot";
    gate.open();
    EXPECT_EQ(threads.join_all(Clock::now() + 5s), 0u);
}

TEST(ConnectionThreads, JoinAllReturnsWhatRemainsAtItsDeadline) {
    ConnectionThreads threads(4, kStackBytes);
    Gate gate;
    ASSERT_NO_FATAL_FAILURE(occupy(threads, gate, 2));
    threads.stop();
    const auto before = Clock::now();
    EXPECT_EQ(threads.join_all(before + 50ms), 2u);
    EXPECT_LT(Clock::now() - before, 2s) << "join_all() overran its deadline";
    gate.let_one_through();
    EXPECT_TRUE(eventually([&] { return threads.join_all(Clock::now() + 10ms) == 1; }));
    gate.open();
    EXPECT_EQ(threads.join_all(Clock::now() + 5s), 0u);
}

TEST(ConnectionThreads, EveryConnectionGetsANewThread) {
    ConnectionThreads threads(2, kStackBytes);
    std::set<pid_t> ids;
    std::mutex ids_mutex;
    for (int i = 0; i < 5; ++i) {
        std::promise<void> done;
        hand(threads, [&] {
            std::lock_guard lock(ids_mutex);
            ids.insert(::gettid());
            done.set_value();
        });
        done.get_future().wait();
        // Each thread ends with its job: wait until it is gone, so the next one gets another id.
        EXPECT_TRUE(eventually([&] { return threads.stats().serving == 0; }));
    }
    expect_stopped(threads);
    EXPECT_EQ(threads.stats().started, 5u);
    EXPECT_EQ(ids.size(), 5u) << "a thread served two connections";
}

// A connection's thread runs on the stack of one that ended and was joined, not on a new mapping,
// and the stack keeps the size asked for.
TEST(ConnectionThreads, ANewThreadRunsOnTheStackOfAThreadThatEnded) {
    const int baseline = threads_before_test();
    ConnectionThreads threads(2, kStackBytes);
    std::vector<void*> stacks;
    for (int i = 0; i < 3; ++i) {
        std::promise<void*> stack;
        hand(threads, [&stack] {
            pthread_attr_t attributes;
            void* address = nullptr;
            std::size_t bytes = 0;
            pthread_getattr_np(pthread_self(), &attributes);
            pthread_attr_getstack(&attributes, &address, &bytes);
            pthread_attr_destroy(&attributes);
            EXPECT_GE(bytes, kStackBytes);
            stack.set_value(address);
        });
        stacks.push_back(stack.get_future().get());
        // Gone from the kernel, so that the next wait_for_slot() joins it and frees its stack.
        EXPECT_TRUE(eventually([&] { return process_threads() == baseline; }));
    }
    expect_stopped(threads);
    EXPECT_EQ(stacks[1], stacks[0]);
    EXPECT_EQ(stacks[2], stacks[0]);
}

// Both lifecycles give their threads the stack size they were asked for.
template <typename Lifecycle>
void expect_stack_size(Lifecycle& threads) {
    std::promise<std::size_t> stack;
    hand(threads, [&stack] {
        pthread_attr_t attributes;
        std::size_t bytes = 0;
        pthread_getattr_np(pthread_self(), &attributes);
        pthread_attr_getstacksize(&attributes, &bytes);
        pthread_attr_destroy(&attributes);
        stack.set_value(bytes);
    });
    const std::size_t bytes = stack.get_future().get();
    EXPECT_GE(bytes, kStackBytes);
#if !defined(__SANITIZE_THREAD__)  // ThreadSanitizer enlarges every stack by its own share
    EXPECT_LT(bytes, kStackBytes + 64 * 1024);
#endif
    expect_stopped(threads);
}

TEST(ConnectionThreads, ThreadsHaveTheStackSizeAskedFor) {
    ConnectionThreads threads(1, kStackBytes);
    expect_stack_size(threads);
    EXPECT_THROW(ConnectionThreads(1, 1), std::system_error);
}

TEST(PreforkThreads, ThreadsHaveTheStackSizeAskedFor) {
    PreforkThreads threads = with_manual_rounds({.start_servers = 1}, 1);
    expect_stack_size(threads);
    EXPECT_THROW(PreforkThreads({}, 10, 1, kManualRounds), std::system_error);
}

TEST(PreforkThreads, StartServersWaitIdleBeforeTheFirstConnection) {
    const int before = threads_before_test();
    PreforkThreads threads =
        with_manual_rounds({.start_servers = 5, .min_spare = 5, .max_spare = 10}, 150);
    const auto stats = threads.stats();
    EXPECT_EQ(stats.threads, 5u);
    EXPECT_EQ(stats.idle, 5u);
    EXPECT_EQ(stats.serving, 0u);
    EXPECT_EQ(stats.started, 5u);
    EXPECT_EQ(process_threads(), before + 5);
    EXPECT_FALSE(threads.all_busy());
    expect_stopped(threads);
    EXPECT_TRUE(eventually([&] { return process_threads() == before; }));
}

TEST(PreforkThreads, SpareThreadsGrowByOneTwoFourPerRoundWhileTooFewAreIdle) {
    PreforkThreads threads =
        with_manual_rounds({.start_servers = 0, .min_spare = 5, .max_spare = 10}, 150);
    EXPECT_EQ(threads.stats().threads, 0u);
    EXPECT_TRUE(threads.all_busy()) << "no thread yet, yet one is free";
    // Each round starts the spawn rate's worth (not just the shortfall) and doubles the rate;
    // once enough are idle the rate falls back to 1.
    const std::size_t totals[] = {1, 3, 7, 7};
    const unsigned rates_after[] = {2, 4, 8, 1};
    for (int round = 0; round < 4; ++round) {
        threads.maintain();
        EXPECT_EQ(threads.stats().threads, totals[round]) << "round " << round;
        EXPECT_EQ(threads.stats().idle, totals[round]) << "round " << round;
        EXPECT_EQ(threads.spawn_rate(), rates_after[round]) << "round " << round;
    }
    expect_stopped(threads);
}

TEST(PreforkThreads, GrowthIsAtMost32PerRoundAndStopsAtTheCap) {
    PreforkThreads threads =
        with_manual_rounds({.start_servers = 0, .min_spare = 1000, .max_spare = 2000}, 150);
    const std::size_t totals[] = {1, 3, 7, 15, 31, 63, 95, 127, 150, 150};
    for (int round = 0; round < 10; ++round) {
        threads.maintain();
        EXPECT_EQ(threads.stats().threads, totals[round]) << "round " << round;
    }
    EXPECT_EQ(threads.spawn_rate(), 1u) << "at the cap the rate falls back to 1";
    EXPECT_EQ(threads.stats().peak, 150u);
    expect_stopped(threads);
}

TEST(PreforkThreads, IdleThreadsAboveMaxSpareRetireOnePerRound) {
    const int before = threads_before_test();
    PreforkThreads threads =
        with_manual_rounds({.start_servers = 15, .min_spare = 5, .max_spare = 10}, 150);
    for (std::size_t round = 1; round <= 5; ++round) {
        threads.maintain();
        EXPECT_EQ(threads.stats().idle, 15 - round) << "round " << round;
    }
    threads.maintain();
    EXPECT_EQ(threads.stats().idle, 10u) << "retired below --max-spare";
    // The retired threads end on their own; a round joins those that have.
    EXPECT_TRUE(eventually([&] {
        threads.maintain();
        return threads.stats().threads == 10;
    }));
    EXPECT_EQ(threads.stats().idle, 10u);
    EXPECT_EQ(threads.stats().started, 15u);
    EXPECT_EQ(process_threads(), before + 10);
    expect_stopped(threads);
}

TEST(PreforkThreads, WhenAllAreBusyTheAcceptorWaitsForTheNextRoundOrAFreeThread) {
    PreforkThreads threads =
        with_manual_rounds({.start_servers = 2, .min_spare = 2, .max_spare = 4}, 3);
    Gate gate;
    ASSERT_NO_FATAL_FAILURE(occupy(threads, gate, 2));
    EXPECT_TRUE(threads.all_busy());
    EXPECT_EQ(threads.stats().serving, 2u);

    // Below the cap too, a connection starts no thread: the acceptor waits for a round.
    auto acceptor = std::async(std::launch::async, [&threads] { return threads.wait_for_slot(); });
    EXPECT_TRUE(still_waiting(acceptor));
    threads.maintain();
    ASSERT_EQ(acceptor.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(acceptor.get());
    EXPECT_EQ(threads.stats().threads, 3u);
    EXPECT_EQ(threads.stats().waits_at_cap, 1u);
    ASSERT_TRUE(threads.start([&gate] { gate.pass(); }));
    ASSERT_TRUE(gate.waiting(3));

    // At the cap a round starts nothing; a thread that finishes its connection is free again.
    threads.maintain();
    EXPECT_EQ(threads.stats().threads, 3u);
    EXPECT_TRUE(threads.all_busy());
    acceptor = std::async(std::launch::async, [&threads] { return threads.wait_for_slot(); });
    EXPECT_TRUE(still_waiting(acceptor));
    gate.let_one_through();
    ASSERT_EQ(acceptor.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(acceptor.get());
    EXPECT_EQ(threads.stats().idle, 1u);
    EXPECT_EQ(threads.stats().started, 3u);
    EXPECT_EQ(threads.stats().peak, 3u);

    gate.open();
    expect_stopped(threads);
}

TEST(PreforkThreads, TheSameThreadsServeConnectionAfterConnection) {
    PreforkThreads threads =
        with_manual_rounds({.start_servers = 2, .min_spare = 1, .max_spare = 10}, 150);
    std::set<pid_t> ids;
    std::mutex ids_mutex;
    for (int i = 0; i < 20; ++i) {
        std::promise<void> done;
        hand(threads, [&, i] {
            {
                std::lock_guard lock(ids_mutex);
                ids.insert(::gettid());
            }
            done.set_value();
            if (i % 5 == 0) {
                throw std::runtime_error("a failing connection");  // logged; the thread goes on
            }
        });
        done.get_future().wait();
        threads.maintain();
        // Idle again once its work returned; the next connection may take either thread.
        EXPECT_TRUE(eventually([&] { return threads.stats().idle == 2; })) << "connection " << i;
    }
    EXPECT_LE(ids.size(), 2u);
    const auto stats = threads.stats();
    EXPECT_EQ(stats.started, 2u);
    EXPECT_EQ(stats.threads, 2u);
    expect_stopped(threads);
}

TEST(PreforkThreads, StopEndsIdleThreadsAtOnceAndBusyOnesAfterTheirConnection) {
    PreforkThreads threads =
        with_manual_rounds({.start_servers = 5, .min_spare = 5, .max_spare = 10}, 150);
    Gate gate;
    ASSERT_NO_FATAL_FAILURE(occupy(threads, gate, 1));
    threads.stop();
    EXPECT_FALSE(threads.wait_for_slot());
    EXPECT_TRUE(eventually([&] { return threads.join_all(Clock::now() + 10ms) == 1; }))
        << "idle threads did not end on stop";
    threads.maintain();
    EXPECT_EQ(threads.stats().started, 5u) << "a round after stop() started threads";
    gate.open();
    EXPECT_EQ(threads.join_all(Clock::now() + 5s), 0u);
}

// With its own maintenance thread: the rounds run by themselves, and a stop does not wait for
// the next one.
TEST(PreforkThreads, TheMaintenanceThreadRunsTheRoundsAndEndsOnStop) {
    {
        PreforkThreads threads({.start_servers = 0, .min_spare = 5, .max_spare = 10}, 150,
                               kStackBytes, 5ms);
        EXPECT_TRUE(eventually([&] { return threads.stats().threads == 7; }));
        expect_stopped(threads);
    }
    PreforkThreads slow({.start_servers = 3, .min_spare = 5, .max_spare = 10}, 150, kStackBytes,
                        std::chrono::hours(1));
    const auto before = Clock::now();
    slow.stop();
    EXPECT_EQ(slow.join_all(before + 5s), 0u);
    EXPECT_LT(Clock::now() - before, 5s);
}

}  // namespace
}  // namespace mb::blocking
