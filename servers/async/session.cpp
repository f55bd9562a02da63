#include "servers/async/session.hpp"

#include "common/event_log.hpp"
#include "common/exchange.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <optional>

namespace mb::async {
namespace {

using tcp = asio::ip::tcp;

// Read size while waiting for a request, and so what an idle connection keeps allocated; the
// parser asks for more when a request is larger (ab's are about 100 bytes).
constexpr std::size_t kFirstRead = 512;

}  // namespace

Session::Session(tcp::socket socket, RequestHandler& handler, Endpoints& endpoints,
                 const HttpConfig& http)
    : stream_(std::move(socket)),
      buffer_(kMaxReadBufferBytes),
      handler_(handler),
      endpoints_(endpoints),
      http_(http) {
    error_code ec;
    if (handler_.logs_access()) {
        const auto remote = stream_.socket().remote_endpoint(ec);
        peer_ = ec ? std::string("-") : remote.address().to_string();
    }
    // Each response goes out in one gather write; don't let Nagle hold back its last segment.
    stream_.socket().set_option(tcp::no_delay(true), ec);
}

awaitable<void> Session::run() {
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
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
}

void Session::stop() {
    stopping_ = true;
    if (idle_) {
        stream_.cancel();
    }
}

void Session::abort() {
    stopping_ = true;
    stream_.close();
}

awaitable<bool> Session::wait_for_request(bool first) {
    if (stopping_) {
        co_return false;
    }
    if (buffer_.capacity() > kFirstRead) {
        buffer_.shrink_to_fit();  // empty here: a large request's buffer is not kept while idle
    }
    idle_ = true;
    if (!first) {
        stream_.expires_after(http_.keepalive_timeout);
    }
    error_code ec;
    const std::size_t received =
        co_await stream_.async_read_some(buffer_.prepare(kFirstRead), into(ec));
    idle_ = false;
    buffer_.commit(received);
    co_return !ec;
}

awaitable<bool> Session::read_request(RequestParser& parser) {
    error_code ec;
    co_await http::async_read_header(stream_, buffer_, parser, into(ec));
    if (!ec) {
        if (auto refused = check_request_header(parser)) {
            co_await reject(*refused, parser);
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
            co_await reject(error_for_read_failure(ec, parser, unread()), parser);
        }
        co_return false;
    }
    co_return true;
}

awaitable<bool> Session::answer(const Request& request) {
    handler_.request_started();
    const ResponseShape shape = shape_of(request, handler_.keepalive_enabled());
    std::optional<Response> response;
    try {
        const DepartureWatch watch(*this);
        response = co_await endpoints_.respond(request, shape, this);
    } catch (const ClientGone&) {
        // Its client left while the request waited for the database: nobody to answer.
        handler_.request_finished(peer_, request, 499, 0);
        co_return false;
    } catch (const std::exception& e) {
        log_event(std::string("internal error answering ") + request_line(request) + ": " +
                  e.what());
        response = handler_.error(shape, {http::status::internal_server_error, "internal error"});
    }
    if (stopping_) {
        response->keep_alive(false);  // shutting down: this response is the connection's last
    }
    const error_code ec = co_await send(*response);
    handler_.request_finished(peer_, request, response->status_code(), response->body().size());
    if (ec) {
        co_return false;
    }
    if (!response->keep_alive()) {
        co_await lingering_close();
        co_return false;
    }
    co_return true;
}

std::string_view Session::unread() const {
    return {static_cast<const char*>(buffer_.data().data()), buffer_.size()};
}

awaitable<void> Session::reject(const HttpError& error, const RequestParser& parser) {
    handler_.request_started();
    const Response response = handler_.rejection(parser, error);
    const error_code write_ec = co_await send(response);
    handler_.request_finished(peer_, rejected_request_line(parser, unread()),
                              response.status_code(), response.body().size());
    if (!write_ec) {
        co_await lingering_close();
    }
}

awaitable<error_code> Session::send(const Response& response) {
    error_code ec;
    stream_.expires_after(http_.io_timeout);
    co_await asio::async_write(stream_, response.buffers(head_), into(ec));
    co_return ec;
}

awaitable<void> Session::lingering_close() {
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
Session::DepartureWatch::DepartureWatch(Session& session)
    : session_(session), watching_(std::make_shared<bool>(true)) {
    session_.stream_.socket().async_wait(
        tcp::socket::wait_read, [&session = session_, watching = watching_](const error_code& ec) {
            if (ec || !*watching) {
                return;
            }
            char byte;
            const ssize_t n =
                ::recv(session.stream_.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                session.endpoints_.client_gone(&session);
            }
        });
}

Session::DepartureWatch::~DepartureWatch() {
    *watching_ = false;
    error_code ignored;
    session_.stream_.socket().cancel(ignored);
}

}  // namespace mb::async
