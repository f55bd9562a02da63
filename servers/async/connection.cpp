#include "servers/async/connection.hpp"

#include "common/exchange.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>

namespace mb::async {
namespace {

using tcp = asio::ip::tcp;

}  // namespace

struct Connection::Deadline::State {
    State(tcp::socket& socket, Clock::duration shortest)
        : timer(socket.get_executor()), socket(&socket), shortest(shortest) {}

    asio::steady_timer timer;
    tcp::socket* socket;  // null once the connection is gone
    Clock::duration shortest;
    Clock::time_point deadline = Clock::time_point::max();
    Clock::time_point armed = Clock::time_point::max();  // the pending wait's expiry
    unsigned arming = 0;  // which wait is pending: a wait that was replaced ends as a no-op
    bool waiting = false;
};

Connection::Deadline::Deadline(tcp::socket& socket, Clock::duration shortest)
    : state_(std::make_shared<State>(socket, shortest)) {}

Connection::Deadline::~Deadline() {
    state_->socket = nullptr;
    state_->timer.cancel();
}

void Connection::Deadline::expires_after(Clock::duration timeout) {
    state_->deadline = Clock::now() + timeout;
    if (!state_->waiting || state_->deadline < state_->armed) {
        arm(state_);
    }
}

void Connection::Deadline::expires_never() { state_->deadline = Clock::time_point::max(); }

void Connection::Deadline::arm(const std::shared_ptr<State>& state) {
    state->armed = std::min(state->deadline, Clock::now() + state->shortest);
    state->waiting = true;
    state->timer.expires_at(state->armed);
    state->timer.async_wait([state, arming = ++state->arming](const error_code& ec) {
        if (arming != state->arming || state->socket == nullptr) {
            return;
        }
        state->waiting = false;
        if (ec) {
            return;
        }
        if (Clock::now() >= state->deadline) {
            error_code ignored;
            state->socket->close(ignored);
        } else {
            arm(state);
        }
    });
}

Connection::Connection(tcp::socket socket, ExchangeContext& exchanges, ModelWork& model_work,
                       const HttpConfig& http)
    : socket_(std::move(socket)),
      deadline_(socket_, std::min<Clock::duration>(http.io_timeout, http.keepalive_timeout)),
      buffer_(kMaxReadBufferBytes),
      exchanges_(exchanges),
      model_work_(model_work),
      http_(http) {
    if (exchanges_.log.logs_access()) {
        error_code ec;
        const auto remote = socket_.remote_endpoint(ec);
        peer_ = ec ? std::string("-") : remote.address().to_string();
    }
}

awaitable<void> Connection::run() {
    // The first request, the wait for its first byte included, must arrive within --timeout of
    // the accept; later ones may idle --keepalive-timeout, then have --timeout from their first
    // byte on. Pipelined bytes already buffered need no wait.
    deadline_.expires_after(http_.io_timeout);
    for (bool first = true;; first = false) {
        if (buffer_.size() == 0 && !co_await wait_for_request(first)) {
            break;
        }
        if (!first) {
            deadline_.expires_after(http_.io_timeout);
        }
        RequestParser parser;
        apply_request_limits(parser);
        if (!co_await read_request(parser) || !co_await answer(parser)) {
            break;
        }
    }
    // A close that had to linger has (send()); any other needs no half-close before it.
    error_code ignored;
    socket_.close(ignored);
}

void Connection::stop() {
    stopping_ = true;
    if (idle_) {
        error_code ignored;
        socket_.cancel(ignored);
    }
}

void Connection::abort() {
    stopping_ = true;
    error_code ignored;
    socket_.close(ignored);
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
        deadline_.expires_after(http_.keepalive_timeout);
    }
    error_code ec;
    const std::size_t received =
        co_await socket_.async_read_some(buffer_.prepare(kFirstReadBytes), into(ec));
    idle_ = false;
    buffer_.commit(received);
    co_return !ec;
}

awaitable<bool> Connection::read_request(RequestParser& parser) {
    error_code ec;
    co_await http::async_read_header(socket_, buffer_, parser, into(ec));
    if (!ec) {
        if (auto refused = check_request_header(parser)) {
            co_await refuse(*refused, parser);
            co_return false;
        }
        if (expects_continue(parser)) {
            co_await asio::async_write(socket_, asio::buffer(kContinue), into(ec));
        }
    }
    if (!ec && !parser.is_done()) {
        co_await http::async_read(socket_, buffer_, parser, into(ec));
    }
    if (ec) {
        if (is_request_error(ec)) {
            co_await refuse(error_for_read_failure(ec, parser, unread()), parser);
        }
        co_return false;
    }
    co_return true;
}

awaitable<bool> Connection::answer(const RequestParser& parser) {
    Exchange exchange(exchanges_, parser, peer_);
    if (const Route* work = exchange.work()) {
        // No socket operation waits while the model works, and its waits have bounds of their
        // own (--db-timeout, the pool's queue timeout): the request's deadline is over.
        deadline_.expires_never();
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
    deadline_.expires_after(http_.io_timeout);
    co_await asio::async_write(socket_, exchange.response().buffers(head_), into(ec));
    exchange.finished();
    if (ec) {
        co_return false;
    }
    if (!exchange.keeps_connection()) {
        if (close_lingers(exchange, unread(), socket_.native_handle())) {
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
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    deadline_.expires_after(kLingerTime);
    std::array<char, 4096> discard;
    while (!ec) {
        co_await socket_.async_read_some(asio::buffer(discard), into(ec));
    }
}

// While a request is served nothing reads its connection; a wait for readability tells when the
// client closes or resets it. Readable with data is a pipelined request: the client is still
// there, and the watch ends.
Connection::DepartureWatch::DepartureWatch(Connection& connection)
    : connection_(connection), watching_(std::make_shared<bool>(true)) {
    connection_.socket_.async_wait(
        tcp::socket::wait_read,
        [&connection = connection_, watching = watching_](const error_code& ec) {
            if (ec || !*watching) {
                return;
            }
            char byte;
            const ssize_t n =
                ::recv(connection.socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                connection.model_work_.client_gone(&connection);
            }
        });
}

Connection::DepartureWatch::~DepartureWatch() {
    *watching_ = false;
    error_code ignored;
    connection_.socket_.cancel(ignored);
}

}  // namespace mb::async
