// The workload's database work on the pool: one table per connection, and /html's two tables on
// two connections at once, as the blog's Node.js script ran them. Shared by the HTTP endpoints
// and the standalone mode.
#pragma once

#include "common/workload.hpp"
#include "servers/async/coro.hpp"
#include "servers/async/db/connection_pool.hpp"

namespace mb::async {

// Each runs SELECT SLEEP(delay_ms) first when delay_ms > 0, on the same connection, then its
// table's query; requester as for ConnectionPool::acquire(). Throws DbError, PoolUnavailable or
// ClientGone. The stored results (checked with check_workload_result()) outlive the lease.
awaitable<MysqlResult> fetch_products(ConnectionPool& pool, unsigned delay_ms,
                                      const void* requester);
awaitable<MysqlResult> fetch_orders(ConnectionPool& pool, unsigned delay_ms, const void* requester);
// Both of the above concurrently, on two connections; returns when both have answered.
awaitable<HtmlResults> fetch_html_results(ConnectionPool& pool, unsigned delay_ms,
                                          const void* requester);

}  // namespace mb::async
