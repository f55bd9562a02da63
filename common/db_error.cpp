#include "common/db_error.hpp"

#include <errmsg.h>
#include <mysqld_error.h>

namespace mb {

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

}  // namespace mb
