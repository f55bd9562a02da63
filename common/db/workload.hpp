// The workload both servers run: the SQL they send, the order they send it in, and what they
// accept back. No SQL here is ever built from request input.
#pragma once

#include "common/db/db_error.hpp"
#include "common/db/mysql_client.hpp"

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace mb {

// The two queries of /html (each fetches all 300 rows of one table); /json runs the second.
// Both give three columns: an unsigned integer id that is never NULL, then two text columns.
inline constexpr const char* kProductsQuery = "SELECT id, name, price FROM products ORDER BY id";
inline constexpr const char* kOrdersQuery = "SELECT id, placed, note FROM orders ORDER BY id";

enum class Table { products, orders };

// "SELECT SLEEP(1.250)" for delay_ms = 1250: the emulated slow database of ?delay_ms=.
std::string sleep_query(unsigned delay_ms);

// Throws std::runtime_error unless a stored result has the shape the queries above promise, so
// that rendering can trust it: three columns, the first an integer that cannot be NULL.
void check_workload_result(MYSQL_RES* result);

// The statements one connection runs to fetch tables: the emulated slow database first (one
// SELECT SLEEP when delay_ms > 0, on the same connection), then each table's query, its result
// checked. Both servers drive it with their own I/O, a statement at a time:
//   while (auto sql = fetch.next()) fetch.take(connection.query(*sql));
class TableFetch {
  public:
    TableFetch(std::initializer_list<Table> tables, unsigned delay_ms);

    // The next statement to run, or nullopt once every table is in.
    std::optional<std::string_view> next() const;
    // The result of the statement next() gave. A table's result of the wrong shape throws
    // DbError (failed; the connection is intact).
    void take(MysqlResult result);
    // True while no statement has completed: a failure now is the connection's first one.
    bool at_start() const { return step_ == 0; }
    // The stored result of the i-th table, once next() gave nullopt.
    MysqlResult result(std::size_t i) { return std::move(results_[i]); }

  private:
    std::string sleep_;  // empty: no delay
    std::array<Table, 2> tables_{};
    std::size_t table_count_ = 0;
    std::size_t step_ = 0;  // statements completed
    std::array<MysqlResult, 2> results_;
};

// The stored results of /html's two queries.
struct HtmlResults {
    MysqlResult products;
    MysqlResult orders;
};

// How many rows results hold (the cost model's per-row unit).
std::size_t rows_of(const MysqlResult& result);
std::size_t rows_of(const HtmlResults& results);

// A connection that sat idle since its last use may have lost its link meanwhile (a database
// restart): when its first statement fails for that, the statements run once more on a fresh
// connection instead of failing the request. Any other failure is the request's.
bool retry_on_fresh_connection(const DbError& error, bool first_statement_after_idle);

}  // namespace mb
