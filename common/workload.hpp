// The workload both servers run: the SQL they send, the results they get back, and how those
// results are read row by row, in place, for rendering. No SQL here is ever built from request
// input.
#pragma once

#include "common/mysql_connection.hpp"

#include <mysql.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace mb {

// The two queries of /html (each fetches all 300 rows of one table); /json runs the second.
// Both give three columns: an unsigned integer id that is never NULL, then two text columns.
inline constexpr const char* kProductsQuery = "SELECT id, name, price FROM products ORDER BY id";
inline constexpr const char* kOrdersQuery = "SELECT id, placed, note FROM orders ORDER BY id";

// "SELECT SLEEP(1.250)" for delay_ms = 1250: the emulated slow database of ?delay_ms=.
std::string sleep_query(unsigned delay_ms);

// Throws std::runtime_error unless a stored result has the shape the queries above promise, so
// that rendering can trust it: three columns, the first an integer that cannot be NULL.
void check_workload_result(MYSQL_RES* result);

// The stored results of /html's two queries.
struct HtmlResults {
    MysqlResult products;
    MysqlResult orders;
};

// One row as the client library hands it out: text cells (nullptr for SQL NULL) and their
// lengths, MYSQL_ROW and mysql_fetch_lengths().
struct TextRow {
    const char* const* cells = nullptr;
    const unsigned long* lengths = nullptr;

    bool is_null(unsigned column) const { return cells[column] == nullptr; }
    std::string_view text(unsigned column) const { return {cells[column], lengths[column]}; }
};

// The rows of one table, in order: what the renderers read.
class RowSource {
  public:
    virtual ~RowSource() = default;
    // The next row, or false after the last one. The row stays valid until the next call.
    virtual bool next(TextRow& row) = 0;
    // How many rows there are, to size the output before rendering.
    virtual std::size_t size() const = 0;
    // True when the column's type (a number, a date or a time) makes its text digits, signs,
    // points, dashes, colons and spaces only: nothing any output format needs to escape.
    virtual bool plain(unsigned column) const = 0;
};

// The rows of a stored result, read where the client library keeps them: no copies.
class ResultRows : public RowSource {
  public:
    // result: a stored result that passed check_workload_result(); not owned.
    explicit ResultRows(MYSQL_RES* result);

    bool next(TextRow& row) override;
    std::size_t size() const override;
    bool plain(unsigned column) const override { return plain_[column]; }

  private:
    MYSQL_RES* result_;
    bool plain_[3];
};

}  // namespace mb
