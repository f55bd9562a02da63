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

#include <cstddef>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace mb::async {

// Thrown by acquire() when --db-queue-limit requests are waiting already: 503.
struct PoolQueueFull : std::runtime_error {
    PoolQueueFull() : std::runtime_error("database queue full") {}
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
                   std::size_t queue_limit, StatusCounters& counters);
    ~ConnectionPool();
    ConnectionPool(const ConnectionPool&) = delete;
    ConnectionPool& operator=(const ConnectionPool&) = delete;

    // An idle connection, else a new one while fewer than size exist, else the next one given
    // back, in arrival order. Throws PoolQueueFull past the queue limit, and DbError(unavailable)
    // once the pool is stopping.
    awaitable<Lease> acquire();

    // Shutdown: waiting requests fail, connections in use have their operation cancelled.
    void cancel_all();
    // Says goodbye on every idle open connection; call when no request is left.
    awaitable<void> close();

    // size, open, busy, idle, queued, queue_limit, rejected.
    nlohmann::json status() const;

  private:
    struct Slot {
        Slot(asio::any_io_executor executor, const DbConfig& config)
            : connection(executor, config) {}
        DbConnection connection;
        bool reused = false;  // handed out before: may have gone stale while idle
    };
    struct Waiter {
        explicit Waiter(asio::any_io_executor executor) : wake(executor) {}
        asio::steady_timer wake;  // cancelled to wake the waiting coroutine
        Slot* granted = nullptr;
    };

    awaitable<void> open(Slot& slot);
    void release(Slot* slot);
    void note_database_state(bool reachable, const char* error);

    asio::any_io_executor executor_;
    DbConfig config_;
    std::size_t size_;
    std::size_t queue_limit_;
    StatusCounters& counters_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::vector<Slot*> idle_;  // most recently used last: reuse warm connections first
    std::deque<Waiter*> waiters_;
    std::size_t rejected_ = 0;
    bool stopping_ = false;
    bool reachable_ = true;
};

}  // namespace mb::async
