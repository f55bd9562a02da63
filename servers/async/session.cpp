#include "servers/async/session.hpp"

#include "servers/async/log.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <array>
#include <optional>

namespace mb::async {
namespace {

using tcp = asio::ip::tcp;

// Read size while waiting for a request, and so what an idle connection keeps allocated; the
// parser asks for more when a request is larger (ab's are about 100 bytes).
constexpr std::size_t kFirstRead = 512;
// How long a rejected client may keep sending before we close anyway (Apache's lingering close).
constexpr auto kLingerTime = std::chrono::seconds(2);

}  // namespace

Session::Session(tcp::socket socket, RequestHandler& handler, Endpoints& endpoints,
                 const HttpConfig& http)
    : stream_(std::move(socket)), handler_(handler), endpoints_(endpoints), http_(http) {
    error_code ec;
    if (handler_.logs_access()) {
        const auto remote = stream_.socket().remote_endpoint(ec);
        peer_ = ec ? std::string("-") : remote.address().to_string();
    }
    // Each response goes out in one gather write; don't let Nagle hold back its last segment.
    stream_.socket().set_option(tcp::no_delay(true), ec);
}

awaitable<void> Session::run() {
    for (bool first = true;; first = false) {
        // The first request of a connection gets --timeout, later ones --keepalive-timeout;
        // pipelined bytes already buffered need no wait.
        if (buffer_.size() == 0 &&
            !co_await wait_for_request(first ? http_.io_timeout : http_.keepalive_timeout)) {
            break;
        }
        RequestParser parser;
        apply_request_limits(parser);
        error_code ec;
        stream_.expires_after(http_.io_timeout);
        co_await http::async_read(stream_, buffer_, parser, into(ec));
        if (ec) {
            if (is_request_error(ec)) {
                co_await reject(ec, parser);
            }
            break;
        }
        if (!co_await answer(parser.get())) {
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

awaitable<bool> Session::wait_for_request(std::chrono::milliseconds timeout) {
    if (stopping_) {
        co_return false;
    }
    if (buffer_.capacity() > kFirstRead) {
        buffer_.shrink_to_fit();  // empty here: a large request's buffer is not kept while idle
    }
    idle_ = true;
    stream_.expires_after(timeout);
    error_code ec;
    const std::size_t received =
        co_await stream_.async_read_some(buffer_.prepare(kFirstRead), into(ec));
    idle_ = false;
    buffer_.commit(received);
    co_return !ec;
}

awaitable<bool> Session::answer(const Request& request) {
    handler_.request_started();
    const ResponseShape shape = shape_of(request, handler_.keepalive_enabled());
    std::optional<Response> response;
    try {
        response = co_await endpoints_.respond(request, shape);
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
    co_return !ec && response->keep_alive();
}

awaitable<void> Session::reject(const error_code& ec, const RequestParser& parser) {
    const std::string_view received(static_cast<const char*>(buffer_.data().data()),
                                    buffer_.size());
    // Past the header (a body over the limit) the buffer holds body bytes, not the request line.
    const std::string line =
        parser.is_header_done() ? request_line(parser.get()) : unparsed_request_line(received);
    handler_.request_started();
    Response response = handler_.error(ResponseShape{11, false, false},
                                       error_for_read_failure(ec, parser, received));
    const error_code write_ec = co_await send(response);
    handler_.request_finished(peer_, line, response.status_code(), response.body().size());
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

}  // namespace mb::async
