// ConnectionPool's queue without a database: leases are handed out before any connection opens,
// so who gets a connection when, the queue's limit and deadline, dropped and cancelled waiters
// can all be checked on an io_context of the test's own.
#include "servers/async/connection_pool.hpp"
#include "common/exchange.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace mb::async {
namespace {

using namespace std::chrono_literals;
using Lease = ConnectionPool::Lease;

class PoolQueue : public ::testing::Test {
  protected:
    // A pool of two connections and a queue of two places, waits of at most queue_timeout.
    void make_pool(std::chrono::milliseconds queue_timeout = 10s) {
        pool_.emplace(io_.get_executor(), db_, 2, 2, queue_timeout, counters_);
    }

    // Runs scenario on the loop until it and everything it started have finished.
    void run(awaitable<void> scenario) {
        std::exception_ptr failure;
        asio::co_spawn(io_, std::move(scenario), [&](std::exception_ptr e) { failure = e; });
        io_.run();
        if (failure) {
            std::rethrow_exception(failure);
        }
    }

    // Lets every coroutine that can run, run.
    static awaitable<void> settle() {
        for (int i = 0; i < 20; ++i) {
            co_await asio::post(co_await asio::this_coro::executor, use_awaitable);
        }
    }

    // A waiter: acquires for requester, then keeps its lease in held and says how it went.
    awaitable<void> wait_in_line(const void* requester, std::optional<Lease>& held,
                                 std::string& outcome) {
        try {
            held = co_await pool_->acquire(requester);
            outcome = "granted";
        } catch (const ServiceUnavailable& e) {
            outcome = e.what();
        } catch (const ClientGone&) {
            outcome = "client gone";
        } catch (const DbError& e) {
            outcome = e.what();
        }
    }

    nlohmann::json status() const { return pool_->status(); }

    asio::io_context io_;
    StatusCounters counters_;
    DbConfig db_;  // never connected: no lease here runs a statement
    std::optional<ConnectionPool> pool_;
    const int a_ = 0, b_ = 0, c_ = 0, d_ = 0, e_ = 0;
};

TEST_F(PoolQueue, ConnectionsGivenBackGoToTheWaitersInArrivalOrder) {
    make_pool();
    run([&]() -> awaitable<void> {
        std::optional<Lease> first = co_await pool_->acquire(&a_);
        std::optional<Lease> second = co_await pool_->acquire(&b_);
        EXPECT_EQ(status()["busy"], 2);
        std::optional<Lease> third, fourth;
        std::string third_outcome, fourth_outcome;
        asio::co_spawn(io_, wait_in_line(&c_, third, third_outcome), asio::detached);
        asio::co_spawn(io_, wait_in_line(&d_, fourth, fourth_outcome), asio::detached);
        co_await settle();
        EXPECT_EQ(status()["queued"], 2);
        EXPECT_EQ(third_outcome, "");

        second.reset();  // given back: to the first in line
        co_await settle();
        EXPECT_EQ(third_outcome, "granted");
        EXPECT_EQ(fourth_outcome, "");
        first.reset();
        co_await settle();
        EXPECT_EQ(fourth_outcome, "granted");
        EXPECT_EQ(status()["queued"], 0);
        EXPECT_EQ(status()["busy"], 2);
        third.reset();
        fourth.reset();
        EXPECT_EQ(status()["idle"], 2);
        EXPECT_EQ(status()["open"], 0) << "no connection opens before a statement needs it";
    }());
}

TEST_F(PoolQueue, PastTheQueueLimitARequestIsRefusedAtOnce) {
    make_pool();
    run([&]() -> awaitable<void> {
        std::optional<Lease> first = co_await pool_->acquire(&a_);
        std::optional<Lease> second = co_await pool_->acquire(&b_);
        std::optional<Lease> third, fourth, fifth;
        std::string outcomes[3];
        asio::co_spawn(io_, wait_in_line(&c_, third, outcomes[0]), asio::detached);
        asio::co_spawn(io_, wait_in_line(&d_, fourth, outcomes[1]), asio::detached);
        asio::co_spawn(io_, wait_in_line(&e_, fifth, outcomes[2]), asio::detached);
        co_await settle();
        EXPECT_EQ(outcomes[2], "database queue full");
        EXPECT_EQ(status()["rejected"], 1);
        pool_->cancel_all();  // let the two in line go
        co_await settle();
        EXPECT_EQ(outcomes[0], "server stopping");
        EXPECT_EQ(outcomes[1], "server stopping");
    }());
}

TEST_F(PoolQueue, AWaitPastTheQueueTimeoutEndsWith503) {
    make_pool(50ms);
    run([&]() -> awaitable<void> {
        std::optional<Lease> first = co_await pool_->acquire(&a_);
        std::optional<Lease> second = co_await pool_->acquire(&b_);
        std::optional<Lease> third;
        std::string outcome;
        co_await wait_in_line(&c_, third, outcome);  // nobody gives a connection back
        EXPECT_EQ(outcome, "database queue wait timed out");
        EXPECT_EQ(status()["timed_out"], 1);
        EXPECT_EQ(status()["queued"], 0);
    }());
}

TEST_F(PoolQueue, TheWaitsOfAClientThatLeftAreDroppedTheOthersStay) {
    make_pool();
    run([&]() -> awaitable<void> {
        std::optional<Lease> first = co_await pool_->acquire(&a_);
        std::optional<Lease> second = co_await pool_->acquire(&b_);
        std::optional<Lease> gone, staying;
        std::string gone_outcome, staying_outcome;
        asio::co_spawn(io_, wait_in_line(&c_, gone, gone_outcome), asio::detached);
        asio::co_spawn(io_, wait_in_line(&d_, staying, staying_outcome), asio::detached);
        co_await settle();
        pool_->drop_waiters_of(&c_);
        co_await settle();
        EXPECT_EQ(gone_outcome, "client gone");
        EXPECT_EQ(staying_outcome, "");
        EXPECT_EQ(status()["dropped"], 1);
        first.reset();  // goes to the one still in line
        co_await settle();
        EXPECT_EQ(staying_outcome, "granted");
    }());
}

}  // namespace
}  // namespace mb::async
