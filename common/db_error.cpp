#include "common/db_error.hpp"

#include <errmsg.h>
#include <mysqld_error.h>

namespace mb {
namespace {

// MySQL error codes that mean the database cannot be reached or the link broke.
bool is_connection_error(unsigned code) {
    switch (code) {
        case CR_CONNECTION_ERROR:
        case CR_CONN_HOST_ERROR:
        case CR_UNKNOWN_HOST:
        case CR_SERVER_GONE_ERROR:
        case CR_SERVER_LOST:
        case CR_SERVER_LOST_EXTENDED:
        case ER_CON_COUNT_ERROR:
        case ER_SERVER_SHUTDOWN:
        case ER_CONNECTION_KILLED:
            return true;
        default:
            return false;
    }
}

constexpr unsigned kFirstClientError = CR_MIN_ERROR;  // 2000

}  // namespace

DbError statement_error(unsigned code, const std::string& message) {
    if (is_connection_error(code)) {
        return DbError(DbError::Kind::unavailable, "database connection lost: " + message);
    }
    return DbError(DbError::Kind::failed, "query failed: " + message, code >= kFirstClientError);
}

}  // namespace mb
