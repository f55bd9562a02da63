// The async model's part of a request, for dispatch_work(): /html and /json wait for the pool
// without blocking the loop (/html on two connections at once), and /tasks schedules task two on
// a timer and answers before it runs.
#pragma once

#include "common/coroutines.hpp"
#include "common/cpu_cost.hpp"
#include "common/exchange_log.hpp"
#include "common/http/response.hpp"
#include "common/pages/pages.hpp"
#include "servers/async/connection_pool.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <list>

namespace mb::async {

class ModelWork {
  public:
    ModelWork(asio::any_io_executor executor, const Pages& pages, ExchangeLog& log, CpuCost& cost,
              ConnectionPool& pool, unsigned max_pending_tasks);

    // requester names the connection the request came on (see client_gone()). Throw DbError,
    // ServiceUnavailable, or ClientGone when the client left before its request got a database
    // connection.
    awaitable<Response> html(const ResponseShape& shape, unsigned delay_ms, const void* requester);
    awaitable<Response> json(const ResponseShape& shape, unsigned delay_ms, const void* requester);
    // Answers at once; task two runs delay_ms later. ServiceUnavailable past max_pending_tasks.
    awaitable<Response> tasks(const ResponseShape& shape, unsigned delay_ms, const void* requester);

    // The client of requester left: its requests waiting for a pool connection are dropped.
    void client_gone(const void* requester) { pool_.drop_waiters_of(requester); }

    // Shutdown: task twos still waiting are dropped (and say so in the log).
    void cancel_pending_tasks();
    std::size_t pending_tasks() const { return task_timers_.size(); }

  private:
    asio::any_io_executor executor_;
    const Pages& pages_;
    ExchangeLog& log_;
    CpuCost& cost_;  // the rows' share, spent here on the loop's thread
    ConnectionPool& pool_;
    const unsigned max_pending_tasks_;
    std::list<asio::steady_timer> task_timers_;
};

}  // namespace mb::async
