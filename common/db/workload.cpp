#include "common/db/workload.hpp"

#include <cstdio>
#include <stdexcept>
#include <utility>

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

TableFetch::TableFetch(std::initializer_list<Table> tables, unsigned delay_ms)
    : sleep_(delay_ms > 0 ? sleep_query(delay_ms) : std::string()) {
    for (const Table table : tables) {
        tables_.at(table_count_++) = table;
    }
}

std::optional<std::string_view> TableFetch::next() const {
    const std::size_t skip = sleep_.empty() ? 0 : 1;
    if (step_ < skip) {
        return std::string_view(sleep_);
    }
    const std::size_t table = step_ - skip;
    if (table >= table_count_) {
        return std::nullopt;
    }
    return tables_[table] == Table::products ? kProductsQuery : kOrdersQuery;
}

void TableFetch::take(MysqlResult result) {
    const std::size_t skip = sleep_.empty() ? 0 : 1;
    if (step_ >= skip) {
        try {
            check_workload_result(result.get());
        } catch (const std::runtime_error& e) {
            throw DbError(DbError::Kind::failed, e.what(), false);
        }
        results_[step_ - skip] = std::move(result);
    }
    ++step_;
}

std::size_t rows_of(const MysqlResult& result) {
    return result ? static_cast<std::size_t>(mysql_num_rows(result.get())) : 0;
}

std::size_t rows_of(const HtmlResults& results) {
    return rows_of(results.products) + rows_of(results.orders);
}

bool retry_on_fresh_connection(const DbError& error, bool first_statement_after_idle) {
    return first_statement_after_idle && error.kind == DbError::Kind::unavailable;
}

}  // namespace mb
