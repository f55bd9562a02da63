// The connection pool of the Node.js model (the `mysql` npm pool): up to --db-pool connections,
// opened lazily on first use, reopened lazily after an error, and a FIFO queue of requests
// waiting for one, bounded by --db-queue-limit (0 = unbounded). Single-threaded: all of it runs
// on the event loop.
#pragma once

#include "common/config.hpp"
#include "common/status_counters.hpp"
#include "servers/async/coro.hpp"
#include "servers/async/db/connection.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <list>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace mb::async {

// Thrown by acquire() when --db-queue-limit requests are waiting already, or when a request
// waited --db-queue-timeout without getting a connection: 503.
struct PoolUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Thrown by acquire() when the requester's client left while it waited (drop_waiters_of()).
struct ClientGone : std::runtime_error {
    ClientGone() : std::runtime_error("client gone") {}
};

class ConnectionPool {
    struct Slot;

  public:
    // A connection on loan: returned to the pool (or handed to the next waiter) on destruction.
    class Lease {
      public:
        Lease() = default;
        Lease(Lease&& other) noexcept;
        Lease& operator=(Lease&& other) noexcept;
        ~Lease();

        // Runs sql on this connection, connecting first when it is not open. A connection that
        // sat idle may have been cut by a database restart; when its first statement finds the
        // link gone, the statement runs once more on a fresh connection.
        awaitable<MysqlResult> query(std::string_view sql);

      private:
        friend class ConnectionPool;
        Lease(ConnectionPool* pool, Slot* slot) : pool_(pool), slot_(slot) {}
        void give_back();

        ConnectionPool* pool_ = nullptr;
        Slot* slot_ = nullptr;
        bool used_ = false;
    };

    ConnectionPool(asio::any_io_executor executor, const DbConfig& config, std::size_t size,
                   std::size_t queue_limit, std::chrono::milliseconds queue_timeout,
                   StatusCounters& counters);
    ~ConnectionPool();
    ConnectionPool(const ConnectionPool&) = delete;
    ConnectionPool& operator=(const ConnectionPool&) = delete;

    // An idle connection, else a new one while fewer than size exist, else the next one given
    // back, in arrival order. requester (may be null) names who waits, for drop_waiters_of().
    // Throws PoolUnavailable past the queue limit or the queue timeout, ClientGone when dropped,
    // and DbError(unavailable) once the pool is stopping.
    awaitable<Lease> acquire(const void* requester);
    // Ends the waits of requester (its client left): their work is not done at all.
    void drop_waiters_of(const void* requester);

    // Shutdown: waiting requests fail, connections in use have their operation cancelled.
    void cancel_all();
    // Says goodbye on every idle open connection; call when no request is left.
    awaitable<void> close();

    // size, open, busy, idle, queued, queue_limit, queue_timeout_s, rejected, timed_out, dropped.
    nlohmann::json status() const;

  private:
    struct Slot {
        Slot(asio::any_io_executor executor, const DbConfig& config)
            : connection(executor, config) {}
        DbConnection connection;
        bool reused = false;  // handed out before: may have gone stale while idle
    };
    struct Waiter {
        Waiter(asio::any_io_executor executor, const void* requester)
            : wake(executor), requester(requester) {}
        asio::steady_timer wake;  // expires at the queue deadline; cancelled to wake the waiter
        const void* requester;
        Slot* granted = nullptr;
        bool queued = false;  // in waiters_; whoever takes it out clears this
        bool dropped = false;
    };

    awaitable<void> open(Slot& slot);
    void release(Slot* slot);
    void note_database_state(bool reachable, const char* error);

    asio::any_io_executor executor_;
    DbConfig config_;
    std::size_t size_;
    std::size_t queue_limit_;
    std::chrono::milliseconds queue_timeout_;
    StatusCounters& counters_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::vector<Slot*> idle_;  // most recently used last: reuse warm connections first
    std::list<Waiter*> waiters_;
    std::size_t rejected_ = 0;
    std::size_t timed_out_ = 0;
    std::size_t dropped_ = 0;
    bool stopping_ = false;
    bool reachable_ = true;
};

}  // namespace mb::async
