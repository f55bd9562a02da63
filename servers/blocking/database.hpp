// One worker's database access with blocking libmysqlclient calls: the queries of /html and
// /json on a connection opened for the request (PHP's mysqli default) or on a persistent one
// (mysqli's persistent connections), which the process keeps open across client connections.
#pragma once

#include "common/config.hpp"
#include "common/mysql_connection.hpp"
#include "common/status_counters.hpp"
#include "common/workload.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace mb::blocking {

enum class DbConnectionMode { per_request, persistent };

std::string_view name_of(DbConnectionMode mode);
std::optional<DbConnectionMode> parse_db_connection_mode(std::string_view text);

// The persistent connections no worker holds right now. As PHP keeps mysqli's persistent
// connections in its server processes for later requests, a worker takes one (the most recently
// used) for its client connection and gives it back when that client leaves, so a new client
// connection seldom means a new database connection. Each worker holds at most one, so there are
// never more connections than the most workers alive at once. Thread-safe.
class ConnectionCache {
  public:
    std::unique_ptr<MysqlConnection> take();  // nullptr when none is idle
    void give_back(std::unique_ptr<MysqlConnection> connection);
    std::size_t idle() const;

  private:
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<MysqlConnection>> idle_;
};

class Database {
  public:
    // counters: db_connects counts every connection opened. cache: where persistent connections
    // come from and go back to (unused in per-request mode).
    Database(const DbConfig& config, DbConnectionMode mode, StatusCounters& counters,
             ConnectionCache& cache);
    // Gives a persistent connection back to the cache.
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Each first runs SELECT SLEEP(delay_ms) when delay_ms > 0, on the same connection. Throw
    // DbError; a persistent connection that timed out or broke is dropped, and the next call
    // connects again, so the worker recovers by itself when the database is back. A cached
    // connection whose link went while it was idle (a database restart) is replaced by a new one
    // for the same call instead of failing it.
    // The stored results (checked with check_workload_result()) outlive the connection.
    HtmlResults html_results(unsigned delay_ms);
    MysqlResult orders(unsigned delay_ms);

  private:
    template <class Work>
    auto with_connection(unsigned delay_ms, Work&& work);
    template <class Work>
    auto run(MysqlConnection& connection, unsigned delay_ms, Work& work);
    std::unique_ptr<MysqlConnection> connect();

    const DbConfig& config_;
    DbConnectionMode mode_;
    StatusCounters& counters_;
    ConnectionCache& cache_;
    std::unique_ptr<MysqlConnection> persistent_;
    bool persistent_from_cache_ = false;  // taken from the cache and not used by this worker yet
};

}  // namespace mb::blocking
