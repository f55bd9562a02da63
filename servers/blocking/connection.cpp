#include "servers/blocking/connection.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <thread>

namespace mb::blocking {

Connection::Connection(int fd, std::string peer, const ConnectionSettings& settings)
    : stream_(fd),
      peer_(std::move(peer)),
      settings_(settings),
      database_(settings.db, settings.db_connection, settings.exchanges.log.counters(),
                settings.db_cache),
      buffer_(kMaxReadBufferBytes) {}

void Connection::run() {
    // The first request, the wait for its first byte included, must arrive within --timeout of
    // the accept; later ones may idle --keepalive-timeout, then have --timeout from their first
    // byte on. One deadline for wait and read: a client that sends its first byte late cannot
    // stretch the thread's hold to twice --timeout. Shutdown ends either wait at once.
    // The listener accepts a connection once its first bytes are in (TCP_DEFER_ACCEPT): those are
    // read without a wait, which would only cost a poll() that returns at once. A keep-alive
    // client's next request has seldom arrived when the response has gone: that one is waited for.
    stream_.expires_after(settings_.http.io_timeout);
    for (bool first = true;; first = false) {
        if (buffer_.size() == 0 && !(first && received_waiting_bytes())) {
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
        if (!read_request(parser) || !answer(parser)) {
            return;
        }
    }
}

bool Connection::received_waiting_bytes() {
    const std::size_t received = stream_.receive_waiting(buffer_.prepare(kFirstReadBytes));
    buffer_.commit(received);
    return received != 0;
}

bool Connection::read_request(RequestParser& parser) {
    boost::beast::error_code ec;
    http::read_header(stream_, buffer_, parser, ec);
    if (!ec) {
        if (auto refused = check_request_header(parser)) {
            refuse(*refused, parser);
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
            refuse(error_for_read_failure(ec, parser, unread()), parser);
        }
        return false;
    }
    return true;
}

bool Connection::answer(const RequestParser& parser) {
    Exchange exchange(settings_.exchanges, parser, peer_);
    if (const Route* work = exchange.work()) {
        try {
            exchange.respond(dispatch_work(*this, *work, exchange.shape()));
        } catch (...) {
            exchange.fail(std::current_exception());
        }
    }
    // The connection ends with this response when the server is shutting down, when it had its
    // share of requests, or when a client waits for its thread.
    const unsigned limit = settings_.max_keepalive_requests;
    if (exchange.keeps_connection() &&
        (settings_.stop.raised() || (limit != 0 && ++requests_ >= limit) ||
         settings_.hand_over_thread())) {
        exchange.end_connection();
    }
    return send(exchange);
}

void Connection::refuse(const HttpError& error, const RequestParser& parser) {
    Exchange exchange(settings_.exchanges, parser, error, unread(), peer_);
    send(exchange);
}

bool Connection::send(Exchange& exchange) {
    boost::beast::error_code ec;
    stream_.expires_after(settings_.http.io_timeout);
    boost::asio::write(stream_, exchange.response().buffers(head_), ec);
    exchange.finished();
    if (ec) {
        return false;
    }
    if (!exchange.keeps_connection()) {
        if (close_lingers(exchange, unread(), stream_.native_handle())) {
            stream_.lingering_close();
        }
        return false;
    }
    return true;
}

std::string_view Connection::unread() const {
    return {static_cast<const char*>(buffer_.data().data()), buffer_.size()};
}

Response Connection::html(const ResponseShape& shape, unsigned delay_ms) {
    TableFetch fetch({Table::products, Table::orders}, delay_ms);
    database_.run(fetch);
    const HtmlResults results{fetch.result(0), fetch.result(1)};
    settings_.exchanges.cost.spend_rows(rows_of(results));
    return settings_.exchanges.pages.html(shape, results);
}

Response Connection::json(const ResponseShape& shape, unsigned delay_ms) {
    TableFetch fetch({Table::orders}, delay_ms);
    database_.run(fetch);
    const MysqlResult orders = fetch.result(0);
    settings_.exchanges.cost.spend_rows(rows_of(orders));
    return settings_.exchanges.pages.json(shape, orders);
}

Response Connection::tasks(const ResponseShape& shape, unsigned delay_ms) {
    const auto demo = settings_.exchanges.log.next_task_demo();
    ExchangeLog::task(demo, "task one");
    // Task two is a wait on this thread, so the response can only go out after it: the blocking
    // model's side of the deferred-task demo (docs/experiments.md, E4).
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ExchangeLog::task(demo, "task two");
    ExchangeLog::task(demo, "task three");
    return settings_.exchanges.pages.tasks(shape, TaskOrder::two_before_response, delay_ms);
}

}  // namespace mb::blocking
