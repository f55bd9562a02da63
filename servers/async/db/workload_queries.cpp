#include "servers/async/db/workload_queries.hpp"

#include <stdexcept>

namespace mb::async {
namespace {

// Lease a connection, emulate the slow database if asked, run sql, check the stored result.
awaitable<MysqlResult> fetch(ConnectionPool& pool, unsigned delay_ms, const char* sql,
                             const void* requester) {
    auto lease = co_await pool.acquire(requester);
    if (delay_ms > 0) {
        co_await lease.query(sleep_query(delay_ms));
    }
    MysqlResult result = co_await lease.query(sql);
    try {
        check_workload_result(result.get());
    } catch (const std::runtime_error& e) {
        throw DbError(DbError::Kind::failed, e.what(), false);
    }
    co_return result;
}

}  // namespace

awaitable<MysqlResult> fetch_products(ConnectionPool& pool, unsigned delay_ms,
                                      const void* requester) {
    return fetch(pool, delay_ms, kProductsQuery, requester);
}

awaitable<MysqlResult> fetch_orders(ConnectionPool& pool, unsigned delay_ms,
                                    const void* requester) {
    return fetch(pool, delay_ms, kOrdersQuery, requester);
}

awaitable<HtmlResults> fetch_html_results(ConnectionPool& pool, unsigned delay_ms,
                                          const void* requester) {
    auto [products, orders] = co_await when_both(fetch_products(pool, delay_ms, requester),
                                                 fetch_orders(pool, delay_ms, requester));
    co_return HtmlResults{std::move(products), std::move(orders)};
}

}  // namespace mb::async
