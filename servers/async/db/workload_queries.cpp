#include "servers/async/db/workload_queries.hpp"

#include <stdexcept>

namespace mb::async {
namespace {

// Lease a connection, emulate the slow database if asked, run sql, decode the stored result.
template <typename Row>
awaitable<std::vector<Row>> fetch(ConnectionPool& pool, unsigned delay_ms, const char* sql,
                                  std::vector<Row> (*decode)(MYSQL_RES*)) {
    auto lease = co_await pool.acquire();
    if (delay_ms > 0) {
        co_await lease.query(sleep_query(delay_ms));
    }
    const MysqlResult result = co_await lease.query(sql);
    try {
        co_return decode(result.get());
    } catch (const std::runtime_error& e) {
        throw DbError(DbError::Kind::failed, e.what());
    }
}

}  // namespace

awaitable<std::vector<Product>> fetch_products(ConnectionPool& pool, unsigned delay_ms) {
    return fetch(pool, delay_ms, kProductsQuery, &read_products);
}

awaitable<std::vector<Order>> fetch_orders(ConnectionPool& pool, unsigned delay_ms) {
    return fetch(pool, delay_ms, kOrdersQuery, &read_orders);
}

awaitable<HtmlTables> fetch_html_tables(ConnectionPool& pool, unsigned delay_ms) {
    auto [products, orders] =
        co_await when_both(fetch_products(pool, delay_ms), fetch_orders(pool, delay_ms));
    co_return HtmlTables{std::move(products), std::move(orders)};
}

}  // namespace mb::async
