// Where a connection thread's database connection comes from, with blocking libmysqlclient calls:
// one opened for the request (PHP's mysqli default), or a persistent one (mysqli's persistent
// connections), which the process keeps open across client connections.
#pragma once

#include "common/config.hpp"
#include "common/db/blocking_connection.hpp"
#include "common/db/workload.hpp"
#include "common/status_counters.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace mb::blocking {

enum class DbConnectionMode { per_request, persistent };

std::string_view name_of(DbConnectionMode mode);
std::optional<DbConnectionMode> parse_db_connection_mode(std::string_view text);

// The persistent connections no thread holds right now. As PHP keeps mysqli's persistent
// connections in its server processes for later requests, a thread takes one (the most recently
// used) for its client connection and gives it back when that client leaves, so a new client
// connection seldom means a new database connection. Each thread holds at most one, so there are
// never more connections than the most threads alive at once. Thread-safe.
class ConnectionCache {
  public:
    std::unique_ptr<BlockingDbConnection> take();  // nullptr when none is idle
    void give_back(std::unique_ptr<BlockingDbConnection> connection);
    std::size_t idle() const;

  private:
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<BlockingDbConnection>> idle_;
};

class DatabaseAccess {
  public:
    // counters: db_connects counts every connection opened. cache: where persistent connections
    // come from and go back to (unused in per-request mode).
    DatabaseAccess(const DbConfig& config, DbConnectionMode mode, StatusCounters& counters,
                   ConnectionCache& cache);
    // Gives a persistent connection back to the cache.
    ~DatabaseAccess();
    DatabaseAccess(const DatabaseAccess&) = delete;
    DatabaseAccess& operator=(const DatabaseAccess&) = delete;

    // Runs fetch's statements on one connection, this thread waiting for each. Throws DbError. A
    // persistent connection that failed in a way that broke it is dropped, and the next run
    // connects again, so the thread recovers by itself when the database is back; a cached one
    // whose link went while it was idle (a database restart) is replaced for the same run
    // (retry_on_fresh_connection()).
    void run(TableFetch& fetch);

  private:
    std::unique_ptr<BlockingDbConnection> connect();

    const DbConfig& config_;
    DbConnectionMode mode_;
    StatusCounters& counters_;
    ConnectionCache& cache_;
    std::unique_ptr<BlockingDbConnection> persistent_;
    bool persistent_idle_ = false;  // taken from the cache and not used by this thread yet
};

}  // namespace mb::blocking
