#include "common/exchange.hpp"

#include "common/db/db_error.hpp"
#include "common/event_log.hpp"
#include "common/process_usage.hpp"

#include <sys/socket.h>

#include <utility>

namespace mb {
namespace {

// "GET /html HTTP/1.0", as the access log shows a request.
std::string request_line(const Request& request) {
    std::string line(request.method_string());
    line += ' ';
    line += request.target();
    line += request.version() == 10 ? " HTTP/1.0" : " HTTP/1.1";
    return line;
}

// A refused request's line: its request line once the parser has it (the unparsed bytes no
// longer start with it then), else the first line received, cut at 256 bytes.
std::string refused_request_line(const RequestParser& parser, std::string_view unparsed) {
    if (!parser.get().target().empty()) {
        return request_line(parser.get());
    }
    const std::string_view line = unparsed.substr(0, unparsed.find_first_of("\r\n"));
    return std::string(line.substr(0, 256));
}

constexpr unsigned kClientGoneStatus = 499;  // nginx's "client closed request"

}  // namespace

Exchange::Exchange(ExchangeContext& context, const RequestParser& parser, std::string_view peer)
    : context_(context),
      peer_(peer),
      request_(&parser.get()),
      client_keeps_alive_(parser.keep_alive()),
      shape_(shape_of(parser.get(), client_keeps_alive_, context.keepalive_enabled)) {
    context_.log.started();
    const Request& request = *request_;
    RouteResult routed = route_request(request.method(), request.target());
    if (auto* failure = std::get_if<HttpError>(&routed)) {
        response_ = context_.pages.error(shape_, *failure);
        return;
    }
    const Route& route = std::get<Route>(routed);
    if (route.endpoint != Endpoint::status) {
        context_.cost.spend_request();
    }
    switch (route.endpoint) {
        case Endpoint::html:
        case Endpoint::json:
        case Endpoint::tasks:
            work_ = route;
            break;
        case Endpoint::status: {
            nlohmann::json figures = context_.log.counters().to_json();
            figures["cost"] = context_.cost.status();
            figures["resources"] = {{"process", to_json(own_usage())},
                                    {"server", to_json(tree_usage(context_.server_root))}};
            figures[context_.pages.identity().model] =
                context_.model_status ? context_.model_status() : nlohmann::json::object();
            response_ = context_.pages.status(shape_, std::move(figures));
            break;
        }
        default:
            response_ = context_.pages.ready(route, shape_);
    }
}

Exchange::Exchange(ExchangeContext& context, const RequestParser& parser, const HttpError& error,
                   std::string_view unparsed, std::string_view peer)
    : context_(context),
      peer_(peer),
      // Until the parser has the request line, its message holds defaults: HTTP/1.1, no method.
      shape_{parser.get().version(), false, parser.get().method() == http::verb::head} {
    context_.log.started();
    if (context_.log.logs_access()) {
        refused_line_ = refused_request_line(parser, unparsed);
    }
    response_ = context_.pages.error(shape_, error);
}

Exchange::~Exchange() { finished(); }

void Exchange::respond(Response response) { response_ = std::move(response); }

void Exchange::fail(std::exception_ptr failure) {
    StatusCounters& counters = context_.log.counters();
    try {
        std::rethrow_exception(failure);
    } catch (const DbError& e) {
        switch (e.kind) {
            case DbError::Kind::unavailable:
                counters.db_connect_errors.fetch_add(1, std::memory_order_relaxed);
                response_ = context_.pages.error(
                    shape_, {http::status::service_unavailable, "database unavailable"});
                return;
            case DbError::Kind::timeout:
                counters.db_timeouts.fetch_add(1, std::memory_order_relaxed);
                response_ = context_.pages.error(
                    shape_, {http::status::gateway_timeout, "database query timed out"});
                return;
            case DbError::Kind::failed:
                counters.db_query_errors.fetch_add(1, std::memory_order_relaxed);
                response_ = context_.pages.error(
                    shape_, {http::status::internal_server_error, "database query failed"});
                return;
        }
    } catch (const ServiceUnavailable& e) {
        response_ = context_.pages.error(shape_, {http::status::service_unavailable, e.what()});
    } catch (const ClientGone&) {
        response_.reset();
    } catch (const std::exception& e) {
        log_event("internal error answering " + (request_ ? request_line(*request_) : "-") + ": " +
                  e.what());
        response_ =
            context_.pages.error(shape_, {http::status::internal_server_error, "internal error"});
    }
}

void Exchange::end_connection() {
    if (response_) {
        response_->keep_alive(false);
    }
}

void Exchange::finished() {
    if (finished_) {
        return;
    }
    finished_ = true;
    std::string line;
    if (context_.log.logs_access()) {
        line = request_ ? request_line(*request_) : refused_line_;
    }
    context_.log.finished(peer_, line, response_ ? response_->status_code() : kClientGoneStatus,
                          response_ ? response_->body().size() : 0);
}

bool close_lingers(const Exchange& exchange, std::string_view unread, int socket) {
    if (exchange.client_may_send_more() || !unread.empty()) {
        return true;
    }
    char byte;
    return ::recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

}  // namespace mb
