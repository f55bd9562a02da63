#include "servers/blocking/database.hpp"

#include <stdexcept>

namespace mb::blocking {

std::string_view name_of(DbConnectionMode mode) {
    return mode == DbConnectionMode::persistent ? "persistent" : "per-request";
}

std::optional<DbConnectionMode> parse_db_connection_mode(std::string_view text) {
    if (text == "per-request") {
        return DbConnectionMode::per_request;
    }
    if (text == "persistent") {
        return DbConnectionMode::persistent;
    }
    return std::nullopt;
}

Database::Database(const DbConfig& config, DbConnectionMode mode, StatusCounters& counters)
    : config_(config), mode_(mode), counters_(counters) {}

MysqlConnection& Database::connect(std::optional<MysqlConnection>& slot) {
    slot.emplace(config_);
    counters_.db_connects.fetch_add(1, std::memory_order_relaxed);
    return *slot;
}

template <class Work>
auto Database::with_connection(unsigned delay_ms, Work&& work) {
    std::optional<MysqlConnection> per_request;
    MysqlConnection& connection = mode_ == DbConnectionMode::persistent
                                      ? (persistent_ ? *persistent_ : connect(persistent_))
                                      : connect(per_request);
    try {
        if (delay_ms > 0) {
            connection.query(sleep_query(delay_ms));
        }
        return work(connection);
    } catch (const DbError& e) {
        if (e.kind != DbError::Kind::failed) {
            persistent_.reset();  // after a timeout or a lost link the connection is unusable
        }
        throw;
    } catch (const std::runtime_error& e) {
        // read_products / read_orders: rows of an unexpected shape.
        throw DbError(DbError::Kind::failed, e.what());
    }
}

HtmlRows Database::html_rows(unsigned delay_ms) {
    return with_connection(delay_ms, [](MysqlConnection& connection) {
        HtmlRows rows;
        rows.products = read_products(connection.query(kProductsQuery).get());
        rows.orders = read_orders(connection.query(kOrdersQuery).get());
        return rows;
    });
}

std::vector<Order> Database::orders(unsigned delay_ms) {
    return with_connection(delay_ms, [](MysqlConnection& connection) {
        return read_orders(connection.query(kOrdersQuery).get());
    });
}

}  // namespace mb::blocking
