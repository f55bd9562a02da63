// A small RAII wrapper for blocking libmysqlclient use: one MYSQL* per object, closed on
// destruction. Errors are thrown as DbError.
#pragma once

#include "common/config.hpp"
#include "common/db_error.hpp"

#include <mysql.h>

#include <memory>
#include <string_view>

namespace mb {

struct MysqlResultDeleter {
    void operator()(MYSQL_RES* result) const { mysql_free_result(result); }
};
using MysqlResult = std::unique_ptr<MYSQL_RES, MysqlResultDeleter>;

// Call once in main() before any thread uses the client library.
void init_mysql_library();

class MysqlConnection {
public:
    // Connects (TCP, or the unix socket when config.socket is set); throws DbError(unavailable).
    explicit MysqlConnection(const DbConfig& config);
    ~MysqlConnection();
    MysqlConnection(const MysqlConnection&) = delete;
    MysqlConnection& operator=(const MysqlConnection&) = delete;

    // Runs sql and stores its whole result. Throws DbError: timeout past --db-timeout (the
    // client's read timeout, whole seconds), unavailable when the link broke, failed otherwise.
    // After a throw of the first two kinds the connection is unusable.
    MysqlResult query(std::string_view sql);

    MYSQL* handle() { return mysql_; }

private:
    [[noreturn]] void throw_query_error(std::chrono::steady_clock::duration elapsed);

    MYSQL* mysql_ = nullptr;
    std::chrono::milliseconds timeout_;
};

}  // namespace mb
