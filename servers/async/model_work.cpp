#include "servers/async/model_work.hpp"

#include "common/exchange.hpp"
#include "servers/async/fetch.hpp"

namespace mb::async {

ModelWork::ModelWork(asio::any_io_executor executor, const Pages& pages, ExchangeLog& log,
                     CpuCost& cost, ConnectionPool& pool, unsigned max_pending_tasks)
    : executor_(std::move(executor)),
      pages_(pages),
      log_(log),
      cost_(cost),
      pool_(pool),
      max_pending_tasks_(max_pending_tasks) {}

awaitable<Response> ModelWork::html(const ResponseShape& shape, unsigned delay_ms,
                                    const void* requester) {
    const HtmlResults results = co_await fetch_html_results(pool_, delay_ms, requester);
    cost_.spend_rows(rows_of(results));
    co_return pages_.html(shape, results);
}

awaitable<Response> ModelWork::json(const ResponseShape& shape, unsigned delay_ms,
                                    const void* requester) {
    const MysqlResult orders = co_await fetch_table(pool_, Table::orders, delay_ms, requester);
    cost_.spend_rows(rows_of(orders));
    co_return pages_.json(shape, orders);
}

awaitable<Response> ModelWork::tasks(const ResponseShape& shape, unsigned delay_ms,
                                     const void* /*requester: /tasks needs no database*/) {
    if (task_timers_.size() >= max_pending_tasks_) {
        throw ServiceUnavailable("too many pending tasks");
    }
    const auto demo = log_.next_task_demo();
    ExchangeLog::task(demo, "task one");
    auto timer =
        task_timers_.emplace(task_timers_.end(), executor_, std::chrono::milliseconds(delay_ms));
    timer->async_wait([this, demo, timer](const error_code& ec) {
        ExchangeLog::task(demo, ec ? "task two dropped: server stopping" : "task two");
        task_timers_.erase(timer);
    });
    Response response = pages_.tasks(shape, TaskOrder::two_after_response, delay_ms);
    ExchangeLog::task(demo, "task three");
    co_return response;
}

void ModelWork::cancel_pending_tasks() {
    for (auto& timer : task_timers_) {
        timer.cancel();
    }
}

}  // namespace mb::async
