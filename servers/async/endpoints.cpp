#include "servers/async/endpoints.hpp"

#include "servers/async/db/workload_queries.hpp"

#include <optional>
#include <variant>

namespace mb::async {

Endpoints::Endpoints(asio::any_io_executor executor, RequestHandler& handler, ConnectionPool& pool,
                     unsigned max_pending_tasks)
    : executor_(std::move(executor)),
      handler_(handler),
      pool_(pool),
      max_pending_tasks_(max_pending_tasks) {}

awaitable<Response> Endpoints::respond(const Request& request, const ResponseShape& shape,
                                       const void* requester) {
    auto routed = handler_.route(request, shape);
    if (auto* ready = std::get_if<Response>(&routed)) {
        co_return std::move(*ready);
    }
    const Route route = std::get<Route>(routed);
    if (route.endpoint == Endpoint::tasks) {
        co_return tasks(shape, route.delay_ms);
    }
    // Two statements, not a ?: of two awaitables: GCC 12 miscompiles that inside co_await (the
    // connection closed without a response).
    if (route.endpoint == Endpoint::html) {
        co_return co_await from_database(shape, html(shape, route.delay_ms, requester));
    }
    co_return co_await from_database(shape, json(shape, route.delay_ms, requester));
}

awaitable<Response> Endpoints::from_database(const ResponseShape& shape, awaitable<Response> work) {
    std::optional<Response> failure;
    try {
        co_return co_await std::move(work);
    } catch (const DbError& e) {
        failure = handler_.database_error(shape, e);
    } catch (const PoolUnavailable& e) {
        failure = handler_.error(shape, {http::status::service_unavailable, e.what()});
    }
    co_return std::move(*failure);
}

awaitable<Response> Endpoints::html(const ResponseShape& shape, unsigned delay_ms,
                                    const void* requester) {
    const HtmlResults results = co_await fetch_html_results(pool_, delay_ms, requester);
    co_return handler_.html(shape, results);
}

awaitable<Response> Endpoints::json(const ResponseShape& shape, unsigned delay_ms,
                                    const void* requester) {
    const MysqlResult orders = co_await fetch_orders(pool_, delay_ms, requester);
    co_return handler_.json(shape, orders.get());
}

Response Endpoints::tasks(const ResponseShape& shape, unsigned delay_ms) {
    if (task_timers_.size() >= max_pending_tasks_) {
        return handler_.error(shape, {http::status::service_unavailable, "too many pending tasks"});
    }
    const auto demo = handler_.next_task_demo_id();
    RequestHandler::log_task(demo, "task one");
    auto timer =
        task_timers_.emplace(task_timers_.end(), executor_, std::chrono::milliseconds(delay_ms));
    timer->async_wait([this, demo, timer](const error_code& ec) {
        RequestHandler::log_task(demo, ec ? "task two dropped: server stopping" : "task two");
        task_timers_.erase(timer);
    });
    Response response = handler_.tasks(shape, false, delay_ms);
    RequestHandler::log_task(demo, "task three");
    return response;
}

void Endpoints::cancel_pending_tasks() {
    for (auto& timer : task_timers_) {
        timer.cancel();
    }
}

}  // namespace mb::async
