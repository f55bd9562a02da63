// What the MariaDB client library hands out, and how it is read: a stored result, owned; its
// rows read in place, without copies, for rendering.
#pragma once

#include "common/config.hpp"

#include <mysql.h>

#include <cstddef>
#include <memory>
#include <string_view>

namespace mb {

// Call once in main() before any thread uses the client library.
void init_mysql_library();

// Where a connection goes: TCP to config's host and port, or the unix socket when config has one
// (the library then wants "localhost" as the host).
struct ConnectTarget {
    const char* host;
    unsigned port;
    const char* unix_socket;  // nullptr: TCP
};
ConnectTarget connect_target(const DbConfig& config);

// The options every connection of both servers has, set before connecting: utf8mb4 in the
// handshake (the sample's 4-byte emoji need it; no SET NAMES round trip).
void set_connection_options(MYSQL* mysql);

struct MysqlResultDeleter {
    void operator()(MYSQL_RES* result) const { mysql_free_result(result); }
};
using MysqlResult = std::unique_ptr<MYSQL_RES, MysqlResultDeleter>;

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
    // result: a stored result of three columns (check_workload_result()); not owned.
    explicit ResultRows(MYSQL_RES* result);

    bool next(TextRow& row) override;
    std::size_t size() const override;
    bool plain(unsigned column) const override { return plain_[column]; }

  private:
    MYSQL_RES* result_;
    bool plain_[3];
};

}  // namespace mb
