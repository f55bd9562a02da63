#include "servers/blocking/connection.hpp"

#include "common/routing.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <thread>

namespace mb::blocking {

Connection::Connection(int fd, std::string peer, const ConnectionSettings& settings)
    : stream_(fd),
      peer_(std::move(peer)),
      settings_(settings),
      handler_(settings.handler),
      database_(settings.db, settings.db_connection, settings.handler.counters(),
                settings.db_cache) {}

void Connection::run() {
    for (bool first = true;; first = false) {
        // Between requests wait at most the keep-alive timeout, as Apache does; the first request
        // of a connection gets the full I/O timeout. Shutdown ends either wait at once.
        if (buffer_.size() == 0) {
            const auto idle = first ? settings_.http.io_timeout : settings_.http.keepalive_timeout;
            if (stream_.wait_readable(idle, settings_.stop) != SocketStream::Wait::ready) {
                return;
            }
        }
        RequestParser parser;
        apply_request_limits(parser);
        boost::beast::error_code ec;
        // --timeout bounds the whole request from its first byte, as Apache's RequestReadTimeout
        // and Node's headersTimeout do: a client that trickles bytes cannot keep this worker.
        stream_.expires_after(settings_.http.io_timeout);
        http::read(stream_, buffer_, parser, ec);
        if (ec) {
            if (is_request_error(ec)) {
                reject(ec, parser);
            }
            return;
        }
        if (!answer(parser.get())) {
            return;
        }
    }
}

bool Connection::answer(const Request& request) {
    handler_.request_started();
    const ResponseShape shape = shape_of(request, handler_.keepalive_enabled());
    Response response = respond(request, shape);
    // The connection ends with this response when the server is shutting down, when it had its
    // share of requests, or when a client waits for its worker.
    const unsigned limit = settings_.max_keepalive_requests;
    if (response.keep_alive() && (settings_.stop.raised() || (limit != 0 && ++requests_ >= limit) ||
                                  settings_.hand_over_worker())) {
        response.keep_alive(false);
    }
    const boost::beast::error_code ec = send(response);
    handler_.request_finished(peer_, request, response.status_code(), response.body().size());
    return !ec && response.keep_alive();
}

boost::beast::error_code Connection::send(const Response& response) {
    boost::beast::error_code ec;
    stream_.expires_after(settings_.http.io_timeout);
    boost::asio::write(stream_, response.buffers(head_), ec);
    return ec;
}

Response Connection::respond(const Request& request, const ResponseShape& shape) {
    auto routed = handler_.route(request, shape);
    if (auto* ready = std::get_if<Response>(&routed)) {
        return std::move(*ready);
    }
    const Route& route = std::get<Route>(routed);
    if (route.endpoint == Endpoint::tasks) {
        return run_tasks(shape, route.delay_ms);
    }
    try {
        if (route.endpoint == Endpoint::html) {
            return handler_.html(shape, database_.html_results(route.delay_ms));
        }
        return handler_.json(shape, database_.orders(route.delay_ms).get());
    } catch (const DbError& e) {
        return handler_.database_error(shape, e);
    }
}

Response Connection::run_tasks(const ResponseShape& shape, unsigned delay_ms) {
    const auto demo = handler_.next_task_demo_id();
    RequestHandler::log_task(demo, "task one");
    // Task two is a wait on this worker thread, so the response can only go out after it: the
    // blocking model's side of EXPERIMENTS.md E4.
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    RequestHandler::log_task(demo, "task two");
    RequestHandler::log_task(demo, "task three");
    return handler_.tasks(shape, true, delay_ms);
}

void Connection::reject(const boost::beast::error_code& ec, const RequestParser& parser) {
    const std::string_view received(static_cast<const char*>(buffer_.data().data()),
                                    buffer_.size());
    // Past the header (a body over the limit) the buffer holds body bytes, not the request line.
    const std::string line =
        parser.is_header_done() ? request_line(parser.get()) : unparsed_request_line(received);
    handler_.request_started();
    const Response response = handler_.error(ResponseShape{11, false, false},
                                             error_for_read_failure(ec, parser, received));
    const boost::beast::error_code write_ec = send(response);
    handler_.request_finished(peer_, line, response.status_code(), response.body().size());
    if (!write_ec) {
        stream_.lingering_close();
    }
}

}  // namespace mb::blocking
