#include "common/mysql_connection.hpp"

#include <errmsg.h>
#include <mysqld_error.h>

#include <chrono>
#include <mutex>

namespace mb {

void init_mysql_library() {
    static std::once_flag once;
    std::call_once(once, [] { mysql_library_init(0, nullptr, nullptr); });
}

namespace {

unsigned whole_seconds(std::chrono::milliseconds ms) {
    return static_cast<unsigned>(std::max<long long>(1, (ms.count() + 999) / 1000));
}

}  // namespace

MysqlConnection::MysqlConnection(const DbConfig& config) : timeout_(config.query_timeout) {
    init_mysql_library();
    mysql_ = mysql_init(nullptr);
    if (mysql_ == nullptr) {
        throw DbError(DbError::Kind::unavailable, "mysql_init: out of memory");
    }
    const unsigned connect_timeout = whole_seconds(config.connect_timeout);
    const unsigned read_timeout = whole_seconds(config.query_timeout);
    mysql_options(mysql_, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
    mysql_options(mysql_, MYSQL_OPT_READ_TIMEOUT, &read_timeout);
    mysql_options(mysql_, MYSQL_OPT_WRITE_TIMEOUT, &read_timeout);
    mysql_options(mysql_, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    const bool use_socket = !config.socket.empty();
    if (mysql_real_connect(mysql_, use_socket ? "localhost" : config.host.c_str(),
                           config.user.c_str(), config.password.c_str(), config.database.c_str(),
                           use_socket ? 0 : config.port,
                           use_socket ? config.socket.c_str() : nullptr, 0) == nullptr) {
        DbError error(DbError::Kind::unavailable,
                      std::string("cannot connect to the database: ") + mysql_error(mysql_));
        mysql_close(mysql_);
        mysql_ = nullptr;
        throw error;
    }
}

MysqlConnection::~MysqlConnection() {
    if (mysql_ != nullptr) {
        mysql_close(mysql_);
    }
}

MysqlResult MysqlConnection::query(std::string_view sql) {
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

void MysqlConnection::throw_query_error(std::chrono::steady_clock::duration elapsed) {
    const unsigned code = mysql_errno(mysql_);
    const std::string message = mysql_error(mysql_);
    // The read timeout surfaces as a lost connection; the clock tells the two apart.
    if (code == CR_SERVER_LOST && elapsed >= timeout_) {
        throw DbError(DbError::Kind::timeout, "query exceeded --db-timeout: " + message);
    }
    throw statement_error(code, message);
}

}  // namespace mb
