#include "servers/async/fetch.hpp"

namespace mb::async {

awaitable<MysqlResult> fetch_table(ConnectionPool& pool, Table table, unsigned delay_ms,
                                   const void* requester) {
    auto lease = co_await pool.acquire(requester);
    TableFetch fetch({table}, delay_ms);
    co_await lease.run(fetch);
    co_return fetch.result(0);
}

awaitable<HtmlResults> fetch_html_results(ConnectionPool& pool, unsigned delay_ms,
                                          const void* requester) {
    auto [products, orders] =
        co_await when_both(fetch_table(pool, Table::products, delay_ms, requester),
                           fetch_table(pool, Table::orders, delay_ms, requester));
    co_return HtmlResults{std::move(products), std::move(orders)};
}

}  // namespace mb::async
