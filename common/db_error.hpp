// A failed database step, classified by what the client should be told.
#pragma once

#include <stdexcept>
#include <string>

namespace mb {

struct DbError : std::runtime_error {
    enum class Kind {
        unavailable,  // cannot connect, or the connection was lost: 503, retry later
        timeout,      // the query took longer than --db-timeout: 504
        failed,       // the server answered with an error: 500
    };
    DbError(Kind kind, const std::string& message) : std::runtime_error(message), kind(kind) {}
    Kind kind;
};

// MySQL client error codes that mean the database cannot be reached or the link broke.
bool is_connection_error(unsigned mysql_errno);

}  // namespace mb
