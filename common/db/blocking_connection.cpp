#include "common/db/blocking_connection.hpp"

#include <errmsg.h>

#include <algorithm>
#include <string>

namespace mb {
namespace {

unsigned whole_seconds(std::chrono::milliseconds ms) {
    return static_cast<unsigned>(std::max<long long>(1, (ms.count() + 999) / 1000));
}

}  // namespace

BlockingDbConnection::BlockingDbConnection(const DbConfig& config) : config_(config) {}

BlockingDbConnection::~BlockingDbConnection() {
    if (mysql_ != nullptr) {
        mysql_close(mysql_);
    }
}

void BlockingDbConnection::connect() {
    if (mysql_ != nullptr) {
        return;
    }
    init_mysql_library();
    mysql_ = mysql_init(nullptr);
    if (mysql_ == nullptr) {
        throw DbError(DbError::Kind::unavailable, "mysql_init: out of memory");
    }
    const unsigned connect_timeout = whole_seconds(config_.connect_timeout);
    const unsigned read_timeout = whole_seconds(config_.query_timeout);
    mysql_options(mysql_, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
    mysql_options(mysql_, MYSQL_OPT_READ_TIMEOUT, &read_timeout);
    mysql_options(mysql_, MYSQL_OPT_WRITE_TIMEOUT, &read_timeout);
    set_connection_options(mysql_);
    const ConnectTarget target = connect_target(config_);
    if (mysql_real_connect(mysql_, target.host, config_.user.c_str(), config_.password.c_str(),
                           config_.database.c_str(), target.port, target.unix_socket,
                           0) == nullptr) {
        DbError error(DbError::Kind::unavailable,
                      std::string("cannot connect to the database: ") + mysql_error(mysql_));
        mysql_close(mysql_);
        mysql_ = nullptr;
        throw error;
    }
}

MysqlResult BlockingDbConnection::query(std::string_view sql) {
    if (mysql_ == nullptr) {
        throw DbError(DbError::Kind::unavailable, "database connection is closed");
    }
    const auto started = std::chrono::steady_clock::now();
    if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
        throw_query_error(std::chrono::steady_clock::now() - started);
    }
    MysqlResult result(mysql_store_result(mysql_));
    if (!result && mysql_field_count(mysql_) != 0) {
        throw_query_error(std::chrono::steady_clock::now() - started);
    }
    return result;
}

void BlockingDbConnection::throw_query_error(std::chrono::steady_clock::duration elapsed) {
    const unsigned code = mysql_errno(mysql_);
    const std::string message = mysql_error(mysql_);
    // The read timeout surfaces as a lost connection; the clock tells the two apart.
    if (code == CR_SERVER_LOST && elapsed >= config_.query_timeout) {
        throw DbError(DbError::Kind::timeout, "query exceeded --db-timeout: " + message);
    }
    throw statement_error(code, message);
}

}  // namespace mb
