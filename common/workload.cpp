#include "common/workload.hpp"

#include <cstdio>
#include <stdexcept>

namespace mb {

std::string sleep_query(unsigned delay_ms) {
    char sql[48];
    std::snprintf(sql, sizeof sql, "SELECT SLEEP(%u.%03u)", delay_ms / 1000, delay_ms % 1000);
    return sql;
}

void check_workload_result(MYSQL_RES* result) {
    if (result == nullptr || mysql_num_fields(result) != 3) {
        throw std::runtime_error("unexpected result shape from the sample database");
    }
    const MYSQL_FIELD& id = mysql_fetch_field_direct(result, 0)[0];
    if (!IS_NUM(id.type) || (id.flags & NOT_NULL_FLAG) == 0) {
        throw std::runtime_error("unexpected id column in a result of the sample database");
    }
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
