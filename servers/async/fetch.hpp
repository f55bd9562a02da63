// The workload's tables fetched through the pool: one table per connection, and /html's two
// tables on two connections at once, as the blog's Node.js script ran them. Shared by the model's
// work and the standalone mode.
#pragma once

#include "common/coroutines.hpp"
#include "common/db/workload.hpp"
#include "servers/async/connection_pool.hpp"

namespace mb::async {

// Leases a connection and runs table's TableFetch on it (SELECT SLEEP(delay_ms) first when
// delay_ms > 0, then the query); requester as for ConnectionPool::acquire(). Throws DbError,
// ServiceUnavailable or ClientGone. The stored result outlives the lease.
awaitable<MysqlResult> fetch_table(ConnectionPool& pool, Table table, unsigned delay_ms,
                                   const void* requester);
// Both tables concurrently, on two connections; returns when both have answered.
awaitable<HtmlResults> fetch_html_results(ConnectionPool& pool, unsigned delay_ms,
                                          const void* requester);

}  // namespace mb::async
