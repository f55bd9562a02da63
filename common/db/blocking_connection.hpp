// One database connection driven by blocking libmysqlclient calls: the thread that calls waits.
// The same shape as NonblockingDbConnection, without co_await. Errors are thrown as DbError.
#pragma once

#include "common/config.hpp"
#include "common/db/db_error.hpp"
#include "common/db/mysql_client.hpp"

#include <chrono>
#include <string_view>

namespace mb {

class BlockingDbConnection {
  public:
    explicit BlockingDbConnection(const DbConfig& config);
    ~BlockingDbConnection();
    BlockingDbConnection(const BlockingDbConnection&) = delete;
    BlockingDbConnection& operator=(const BlockingDbConnection&) = delete;

    bool is_open() const { return mysql_ != nullptr; }

    // Connects (TCP, or the unix socket); throws DbError(unavailable) on failure or after
    // --db-connect-timeout (whole seconds: the library's own timeout).
    void connect();

    // Runs sql and stores its whole result. Throws DbError: timeout past --db-timeout (the
    // client's read timeout, whole seconds), unavailable when the link broke, failed when the
    // statement failed; e.connection_broken says whether the connection may be used again.
    MysqlResult query(std::string_view sql);

  private:
    [[noreturn]] void throw_query_error(std::chrono::steady_clock::duration elapsed);

    const DbConfig config_;
    MYSQL* mysql_ = nullptr;
};

}  // namespace mb
