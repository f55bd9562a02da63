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
                settings.db_cache),
      buffer_(kMaxReadBufferBytes) {}

void Connection::run() {
    // The first request, the wait for its first byte included, must arrive within --timeout of
    // the accept; later ones may idle --keepalive-timeout, then have --timeout from their first
    // byte on. One deadline for wait and read: a client that sends its first byte late cannot
    // stretch the worker's hold to twice --timeout. Shutdown ends either wait at once.
    stream_.expires_after(settings_.http.io_timeout);
    for (bool first = true;; first = false) {
        if (buffer_.size() == 0) {
            const auto idle_until =
                first ? stream_.deadline() : Clock::now() + settings_.http.keepalive_timeout;
            if (stream_.wait_readable(idle_until, settings_.stop) != SocketStream::Wait::ready) {
                return;
            }
        }
        if (!first) {
            stream_.expires_after(settings_.http.io_timeout);
        }
        RequestParser parser;
        apply_request_limits(parser);
        if (!read_request(parser) || !answer(parser.get())) {
            return;
        }
    }
}

bool Connection::read_request(RequestParser& parser) {
    boost::beast::error_code ec;
    http::read_header(stream_, buffer_, parser, ec);
    if (!ec) {
        if (auto refused = check_request_header(parser)) {
            reject(*refused, parser);
            return false;
        }
        if (expects_continue(parser)) {
            boost::asio::write(stream_, boost::asio::buffer(kContinue), ec);
        }
    }
    if (!ec && !parser.is_done()) {
        http::read(stream_, buffer_, parser, ec);
    }
    if (ec) {
        if (is_request_error(ec)) {
            reject(error_for_read_failure(ec, parser, unread()), parser);
        }
        return false;
    }
    return true;
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
    if (ec) {
        return false;
    }
    if (!response.keep_alive()) {
        // The client may have sent more (pipelined requests): see lingering_close().
        stream_.lingering_close();
        return false;
    }
    return true;
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

std::string_view Connection::unread() const {
    return {static_cast<const char*>(buffer_.data().data()), buffer_.size()};
}

void Connection::reject(const HttpError& error, const RequestParser& parser) {
    handler_.request_started();
    const Response response = handler_.rejection(parser, error);
    const boost::beast::error_code write_ec = send(response);
    handler_.request_finished(peer_, rejected_request_line(parser, unread()),
                              response.status_code(), response.body().size());
    if (!write_ec) {
        stream_.lingering_close();
    }
}

}  // namespace mb::blocking
