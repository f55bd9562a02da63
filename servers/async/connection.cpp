#include "servers/async/connection.hpp"

#include "common/http/exchange.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <optional>

namespace mb::async {
namespace {

using tcp = asio::ip::tcp;

}  // namespace

Connection::Connection(tcp::socket socket, ExchangeContext& exchanges, ModelWork& model_work,
                       const HttpConfig& http)
    : stream_(std::move(socket)),
      buffer_(kMaxReadBufferBytes),
      exchanges_(exchanges),
      model_work_(model_work),
      http_(http) {
    if (exchanges_.log.logs_access()) {
        error_code ec;
        const auto remote = stream_.socket().remote_endpoint(ec);
        peer_ = ec ? std::string("-") : remote.address().to_string();
    }
}

awaitable<void> Connection::run() {
    // The first request, the wait for its first byte included, must arrive within --timeout of
    // the accept; later ones may idle --keepalive-timeout, then have --timeout from their first
    // byte on. Pipelined bytes already buffered need no wait.
    stream_.expires_after(http_.io_timeout);
    for (bool first = true;; first = false) {
        if (buffer_.size() == 0 && !co_await wait_for_request(first)) {
            break;
        }
        if (!first) {
            stream_.expires_after(http_.io_timeout);
        }
        RequestParser parser;
        apply_request_limits(parser);
        if (!co_await read_request(parser) || !co_await answer(parser.get())) {
            break;
        }
    }
    // A close that had to linger has (send()); any other needs no half-close before it.
    stream_.close();
}

void Connection::stop() {
    stopping_ = true;
    if (idle_) {
        stream_.cancel();
    }
}

void Connection::abort() {
    stopping_ = true;
    stream_.close();
}

awaitable<bool> Connection::wait_for_request(bool first) {
    if (stopping_) {
        co_return false;
    }
    if (buffer_.capacity() > kFirstReadBytes) {
        buffer_.shrink_to_fit();  // empty here: a large request's buffer is not kept while idle
    }
    idle_ = true;
    if (!first) {
        stream_.expires_after(http_.keepalive_timeout);
    }
    error_code ec;
    const std::size_t received =
        co_await stream_.async_read_some(buffer_.prepare(kFirstReadBytes), into(ec));
    idle_ = false;
    buffer_.commit(received);
    co_return !ec;
}

awaitable<bool> Connection::read_request(RequestParser& parser) {
    error_code ec;
    co_await http::async_read_header(stream_, buffer_, parser, into(ec));
    if (!ec) {
        if (auto refused = check_request_header(parser)) {
            co_await refuse(*refused, parser);
            co_return false;
        }
        if (expects_continue(parser)) {
            co_await asio::async_write(stream_, asio::buffer(kContinue), into(ec));
        }
    }
    if (!ec && !parser.is_done()) {
        co_await http::async_read(stream_, buffer_, parser, into(ec));
    }
    if (ec) {
        if (is_request_error(ec)) {
            co_await refuse(error_for_read_failure(ec, parser, unread()), parser);
        }
        co_return false;
    }
    co_return true;
}

awaitable<bool> Connection::answer(const Request& request) {
    Exchange exchange(exchanges_, request, peer_);
    if (const Route* work = exchange.work()) {
        std::exception_ptr failure;
        try {
            const DepartureWatch watch(*this);
            exchange.respond(co_await dispatch_work(model_work_, *work, exchange.shape(), this));
        } catch (...) {
            failure = std::current_exception();
        }
        if (failure) {
            exchange.fail(failure);
        }
    }
    if (!exchange.has_response()) {
        co_return false;  // the client left while its request waited: nobody to answer
    }
    if (stopping_) {
        exchange.end_connection();  // shutting down: this response is the connection's last
    }
    co_return co_await send(exchange);
}

awaitable<void> Connection::refuse(const HttpError& error, const RequestParser& parser) {
    Exchange exchange(exchanges_, parser, error, unread(), peer_);
    co_await send(exchange);
}

awaitable<bool> Connection::send(Exchange& exchange) {
    error_code ec;
    stream_.expires_after(http_.io_timeout);
    co_await asio::async_write(stream_, exchange.response().buffers(head_), into(ec));
    exchange.finished();
    if (ec) {
        co_return false;
    }
    if (!exchange.keeps_connection()) {
        if (close_lingers(exchange, unread(), stream_.socket().native_handle())) {
            co_await lingering_close();
        }
        co_return false;
    }
    co_return true;
}

std::string_view Connection::unread() const {
    return {static_cast<const char*>(buffer_.data().data()), buffer_.size()};
}

awaitable<void> Connection::lingering_close() {
    error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.expires_after(kLingerTime);
    std::array<char, 4096> discard;
    while (!ec) {
        co_await stream_.async_read_some(asio::buffer(discard), into(ec));
    }
}

// While a request is served nothing reads its connection; a wait for readability tells when the
// client closes or resets it. Readable with data is a pipelined request: the client is still
// there, and the watch ends.
Connection::DepartureWatch::DepartureWatch(Connection& connection)
    : connection_(connection), watching_(std::make_shared<bool>(true)) {
    connection_.stream_.socket().async_wait(
        tcp::socket::wait_read,
        [&connection = connection_, watching = watching_](const error_code& ec) {
            if (ec || !*watching) {
                return;
            }
            char byte;
            const ssize_t n = ::recv(connection.stream_.socket().native_handle(), &byte, 1,
                                     MSG_PEEK | MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                connection.model_work_.client_gone(&connection);
            }
        });
}

Connection::DepartureWatch::~DepartureWatch() {
    *watching_ = false;
    error_code ignored;
    connection_.stream_.socket().cancel(ignored);
}

}  // namespace mb::async
