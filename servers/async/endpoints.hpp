// How the async model serves a request: everything the shared RequestHandler answers by itself
// is answered at once; /html and /json wait for the pool without blocking the loop, and /tasks
// schedules task two on a timer and answers before it runs.
#pragma once

#include "common/request_handler.hpp"
#include "servers/async/coro.hpp"
#include "servers/async/db/connection_pool.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <list>

namespace mb::async {

class Endpoints {
  public:
    Endpoints(asio::any_io_executor executor, RequestHandler& handler, ConnectionPool& pool,
              unsigned max_pending_tasks);

    // requester names the connection the request came on (see client_gone()). Throws ClientGone
    // when its client left before the request got a database connection.
    awaitable<Response> respond(const Request& request, const ResponseShape& shape,
                                const void* requester);
    // The client of requester left: its requests waiting for a pool connection are dropped.
    void client_gone(const void* requester) { pool_.drop_waiters_of(requester); }

    // Shutdown: task twos still waiting are dropped (and say so in the log).
    void cancel_pending_tasks();
    std::size_t pending_tasks() const { return task_timers_.size(); }

  private:
    // The response of work, or the 503/504/500 its database failure calls for.
    awaitable<Response> from_database(const ResponseShape& shape, awaitable<Response> work);
    awaitable<Response> html(const ResponseShape& shape, unsigned delay_ms, const void* requester);
    awaitable<Response> json(const ResponseShape& shape, unsigned delay_ms, const void* requester);
    Response tasks(const ResponseShape& shape, unsigned delay_ms);

    asio::any_io_executor executor_;
    RequestHandler& handler_;
    ConnectionPool& pool_;
    const unsigned max_pending_tasks_;
    std::list<asio::steady_timer> task_timers_;
};

}  // namespace mb::async
