#include "common/request_handler.hpp"

#include "common/event_log.hpp"
#include "common/factorial.hpp"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <random>

namespace mb {

RequestHandler::RequestHandler(ServerIdentity identity, const HttpConfig& http,
                               ModelStatus model_status)
    : identity_(std::move(identity)),
      responses_("modelbench-" + identity_.model + "/" MODELBENCH_VERSION " (" +
                 identity_.description + ")"),
      keepalive_(http.keepalive),
      model_status_(std::move(model_status)) {
    if (!http.access_log.empty()) {
        access_log_ = std::make_unique<AccessLog>(http.access_log);
    }
}

std::variant<Response, Route> RequestHandler::route(const Request& request,
                                                    const ResponseShape& shape) {
    RouteResult routed = route_request(request.method(), request.target());
    if (auto* failure = std::get_if<HttpError>(&routed)) {
        return error(shape, *failure);
    }
    const Route route = std::get<Route>(routed);
    switch (route.endpoint) {
        case Endpoint::index:
            return responses_.make(shape, http::status::ok, kTextHtml,
                                   render_index_page(identity_.program, identity_.description));
        case Endpoint::hello: {
            // E2's handler runs an empty loop to 10 before answering; kept for fidelity.
            volatile int i = 0;
            while (i < 10) {
                i = i + 1;
            }
            return responses_.make_static(shape, http::status::ok, kTextPlain, kHelloBody);
        }
        case Endpoint::factorial: {
            thread_local std::mt19937 random{std::random_device{}()};
            const unsigned n =
                route.n ? *route.n : std::uniform_int_distribution<unsigned>(10, 40)(random);
            return responses_.make(shape, http::status::ok, kTextPlain, render_factorial(n));
        }
        case Endpoint::status: {
            nlohmann::json status = counters_.to_json();
            status["server"] = identity_.program;
            status["model"] = identity_.model;
            status["pid"] = ::getpid();
            status[identity_.model] = model_status_ ? model_status_() : nlohmann::json::object();
            return responses_.make(shape, http::status::ok, kApplicationJson, status.dump());
        }
        case Endpoint::html:
        case Endpoint::json:
        case Endpoint::tasks:
            break;
    }
    return route;
}

Response RequestHandler::html(const ResponseShape& shape, const HtmlResults& results) const {
    ResultRows products(results.products.get());
    ResultRows orders(results.orders.get());
    return responses_.make(shape, http::status::ok, kTextHtml, render_html_page(products, orders));
}

Response RequestHandler::json(const ResponseShape& shape, MYSQL_RES* orders) const {
    ResultRows rows(orders);
    return responses_.make(shape, http::status::ok, kApplicationJson, render_orders_json(rows));
}

Response RequestHandler::database_error(const ResponseShape& shape, const DbError& failure) {
    switch (failure.kind) {
        case DbError::Kind::unavailable:
            counters_.db_connect_errors.fetch_add(1, std::memory_order_relaxed);
            return error(shape, {http::status::service_unavailable, "database unavailable"});
        case DbError::Kind::timeout:
            counters_.db_timeouts.fetch_add(1, std::memory_order_relaxed);
            return error(shape, {http::status::gateway_timeout, "database query timed out"});
        case DbError::Kind::failed:
            break;
    }
    counters_.db_query_errors.fetch_add(1, std::memory_order_relaxed);
    return error(shape, {http::status::internal_server_error, "database query failed"});
}

Response RequestHandler::tasks(const ResponseShape& shape, bool task_two_before_response,
                               unsigned delay_ms) const {
    const std::string delay = std::to_string(delay_ms) + " ms";
    std::string body = task_two_before_response
                           ? "task one\ntask two (after " + delay +
                                 ")\ntask three\n"
                                 "task two ran before this response: the worker waited for it\n"
                           : "task one\ntask three\n"
                             "task two runs " +
                                 delay + " after task one, after this response was sent\n";
    return responses_.make(shape, http::status::ok, kTextPlain, std::move(body));
}

Response RequestHandler::error(const ResponseShape& shape, const HttpError& failure) const {
    return responses_.error(shape, failure);
}

Response RequestHandler::rejection(const RequestParser& parser, const HttpError& failure) const {
    // Until the parser has the request line, its message holds defaults: HTTP/1.1, no method.
    const auto& request = parser.get();
    return responses_.error({request.version(), false, request.method() == http::verb::head},
                            failure);
}

void RequestHandler::request_finished(std::string_view peer, std::string_view line, unsigned status,
                                      std::size_t body_bytes) {
    counters_.request_finished(status);
    if (access_log_) {
        access_log_->write(peer, line, status, body_bytes);
    }
}

void RequestHandler::request_finished(std::string_view peer, const Request& request,
                                      unsigned status, std::size_t body_bytes) {
    request_finished(peer, access_log_ ? request_line(request) : std::string(), status, body_bytes);
}

void RequestHandler::log_task(std::uint64_t demo_id, std::string_view task) {
    timeval now{};
    gettimeofday(&now, nullptr);
    std::tm utc{};
    gmtime_r(&now.tv_sec, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", &utc);
    char line[128];
    std::snprintf(line, sizeof line, "%s.%03ld tasks #%llu: %.*s\n", stamp,
                  static_cast<long>(now.tv_usec / 1000), static_cast<unsigned long long>(demo_id),
                  static_cast<int>(task.size()), task.data());
    log_line(line);
}

std::string request_line(const Request& request) {
    std::string line(request.method_string());
    line += ' ';
    line += request.target();
    line += request.version() == 10 ? " HTTP/1.0" : " HTTP/1.1";
    return line;
}

std::string rejected_request_line(const RequestParser& parser, std::string_view unparsed) {
    // Once the parser has the request line, the unparsed bytes no longer start with it.
    if (!parser.get().target().empty()) {
        return request_line(parser.get());
    }
    const std::string_view line = unparsed.substr(0, unparsed.find_first_of("\r\n"));
    return std::string(line.substr(0, 256));
}

}  // namespace mb
