#include "common/db/mysql_client.hpp"

#include <mutex>

namespace mb {

void init_mysql_library() {
    static std::once_flag once;
    std::call_once(once, [] { mysql_library_init(0, nullptr, nullptr); });
}

ConnectTarget connect_target(const DbConfig& config) {
    if (!config.socket.empty()) {
        return {"localhost", 0, config.socket.c_str()};
    }
    return {config.host.c_str(), config.port, nullptr};
}

void set_connection_options(MYSQL* mysql) {
    mysql_options(mysql, MYSQL_SET_CHARSET_NAME, "utf8mb4");
}

ResultRows::ResultRows(MYSQL_RES* result) : result_(result) {
    for (unsigned column = 0; column < 3; ++column) {
        const enum_field_types type = mysql_fetch_field_direct(result, column)->type;
        plain_[column] = IS_NUM(type) || type == MYSQL_TYPE_DATE || type == MYSQL_TYPE_NEWDATE ||
                         type == MYSQL_TYPE_TIME || type == MYSQL_TYPE_DATETIME ||
                         type == MYSQL_TYPE_TIMESTAMP;
    }
}

bool ResultRows::next(TextRow& row) {
    const MYSQL_ROW cells = mysql_fetch_row(result_);
    if (cells == nullptr) {
        return false;
    }
    row.cells = cells;
    row.lengths = mysql_fetch_lengths(result_);
    return true;
}

std::size_t ResultRows::size() const { return static_cast<std::size_t>(mysql_num_rows(result_)); }

}  // namespace mb
