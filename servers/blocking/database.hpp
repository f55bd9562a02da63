// One worker's database access with blocking libmysqlclient calls: the queries of /html and
// /json on a connection opened for the request (PHP's mysqli default) or kept for as long as the
// worker serves its client (mysqli's persistent connections).
#pragma once

#include "common/config.hpp"
#include "common/mysql_connection.hpp"
#include "common/status_counters.hpp"
#include "common/workload.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace mb::blocking {

enum class DbConnectionMode { per_request, persistent };

std::string_view name_of(DbConnectionMode mode);
std::optional<DbConnectionMode> parse_db_connection_mode(std::string_view text);

struct HtmlRows {
    std::vector<Product> products;
    std::vector<Order> orders;
};

class Database {
  public:
    // counters: db_connects counts every connection opened.
    Database(const DbConfig& config, DbConnectionMode mode, StatusCounters& counters);

    // Each first runs SELECT SLEEP(delay_ms) when delay_ms > 0, on the same connection. Throw
    // DbError; a persistent connection that timed out or broke is dropped, and the next call
    // connects again, so the worker recovers by itself when the database is back.
    HtmlRows html_rows(unsigned delay_ms);
    std::vector<Order> orders(unsigned delay_ms);

  private:
    template <class Work>
    auto with_connection(unsigned delay_ms, Work&& work);
    MysqlConnection& connect(std::optional<MysqlConnection>& slot);

    const DbConfig& config_;
    DbConnectionMode mode_;
    StatusCounters& counters_;
    std::optional<MysqlConnection> persistent_;
};

}  // namespace mb::blocking
