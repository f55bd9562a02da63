// A failed database step, classified by what the client should be told and by whether the
// connection it happened on can still be used.
#pragma once

#include <stdexcept>
#include <string>

namespace mb {

struct DbError : std::runtime_error {
    enum class Kind {
        unavailable,  // cannot connect, or the connection was lost: 503, retry later
        timeout,      // the query took longer than --db-timeout: 504
        failed,       // the statement failed: 500
    };
    DbError(Kind kind, const std::string& message, bool connection_broken = true)
        : std::runtime_error(message), kind(kind), connection_broken(connection_broken) {}
    Kind kind;
    // False only when the server itself answered with the error, so the connection is still in
    // a known state and may serve the next statement; any other failure leaves it unusable.
    bool connection_broken;
};

// A statement failed with this client-library error code (mysql_errno). Lost or refused links
// are unavailable; anything else failed. Codes from 2000 on are the client library's own
// (CR_*): after those the handle's protocol state is unknown and the connection is broken.
// Codes below 2000 are the server's answer, and the connection stays usable.
DbError statement_error(unsigned mysql_errno, const std::string& message);

}  // namespace mb
