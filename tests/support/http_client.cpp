#include "tests/support/http_client.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace mb::test {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

void set_receive_timeout(tcp::socket& socket, std::chrono::milliseconds timeout) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

bool readable_within(tcp::socket& socket, std::chrono::milliseconds wait) {
    pollfd entry{socket.native_handle(), POLLIN, 0};
    return ::poll(&entry, 1, static_cast<int>(std::max<long long>(0, wait.count()))) > 0;
}

// Asio's synchronous reads ignore SO_RCVTIMEO (after EAGAIN they poll() with no timeout), so a
// reply is read through this stream, which waits at most until the deadline before each read.
class DeadlineStream {
  public:
    DeadlineStream(tcp::socket& socket, std::chrono::steady_clock::time_point deadline)
        : socket_(socket), deadline_(deadline) {}

    template <class MutableBufferSequence>
    std::size_t read_some(const MutableBufferSequence& buffers, beast::error_code& ec) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(
            deadline_ - std::chrono::steady_clock::now());
        if (!readable_within(socket_, left)) {
            ec = boost::asio::error::timed_out;
            return 0;
        }
        return socket_.read_some(buffers, ec);
    }

    template <class MutableBufferSequence>
    std::size_t read_some(const MutableBufferSequence& buffers) {
        beast::error_code ec;
        const std::size_t n = read_some(buffers, ec);
        if (ec) {
            throw beast::system_error(ec);
        }
        return n;
    }

  private:
    tcp::socket& socket_;
    std::chrono::steady_clock::time_point deadline_;
};

}  // namespace

HttpConnection::HttpConnection(std::uint16_t port, std::chrono::milliseconds timeout)
    : timeout_(timeout) {
    socket_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    set_receive_timeout(socket_, timeout);
}

void HttpConnection::send(std::string_view raw) {
    sent_at_ = std::chrono::steady_clock::now();
    boost::asio::write(socket_, boost::asio::buffer(raw.data(), raw.size()));
}

HttpReply HttpConnection::read_reply(bool head) {
    beast::error_code ec;
    HttpReply reply = read_reply(head, ec);
    if (ec) {
        throw std::runtime_error("reading the response failed: " + ec.message());
    }
    return reply;
}

HttpReply HttpConnection::read_reply(bool head, beast::error_code& ec) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    parser.skip(head);
    DeadlineStream stream(socket_, std::chrono::steady_clock::now() + timeout_);
    http::read(stream, buffer_, parser, ec);
    if (ec) {
        return {};
    }
    const auto& message = parser.get();
    HttpReply reply;
    reply.status = message.result_int();
    reply.version = message.version();
    for (const auto& field : message) {
        std::string name(field.name_string());
        std::transform(name.begin(), name.end(), name.begin(), ::tolower);
        reply.headers[name] = std::string(field.value());
    }
    reply.body = message.body();
    reply.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - sent_at_);
    return reply;
}

void HttpConnection::send_best_effort(std::string_view raw) {
    sent_at_ = std::chrono::steady_clock::now();
    boost::system::error_code ec;
    boost::asio::write(socket_, boost::asio::buffer(raw.data(), raw.size()), ec);
}

bool HttpConnection::try_send(std::string_view raw) {
    boost::system::error_code ec;
    boost::asio::write(socket_, boost::asio::buffer(raw.data(), raw.size()), ec);
    return !ec;
}

void HttpConnection::finish_sending() {
    boost::system::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
}

std::optional<HttpReply> HttpConnection::try_read_reply(bool head) {
    beast::error_code ec;
    HttpReply reply = read_reply(head, ec);
    if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
        ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset) {
        return std::nullopt;
    }
    if (ec) {
        throw std::runtime_error("reading the response failed: " + ec.message());
    }
    return reply;
}

HttpReply HttpConnection::request(std::string_view method, std::string_view target,
                                  unsigned version, std::string_view extra_headers) {
    std::string raw(method);
    raw += ' ';
    raw += target;
    raw += version == 10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n";
    raw += "Host: 127.0.0.1\r\n";
    raw += extra_headers;
    raw += "\r\n";
    send(raw);
    return read_reply(method == "HEAD");
}

bool HttpConnection::readable_within(std::chrono::milliseconds wait) {
    return buffer_.size() != 0 || mb::test::readable_within(socket_, wait);
}

bool HttpConnection::closed_by_server(std::chrono::milliseconds wait) {
    set_receive_timeout(socket_, wait);
    char byte;
    const ssize_t n = ::recv(socket_.native_handle(), &byte, 1, 0);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

bool trickle_until_closed(HttpConnection& connection, std::chrono::steady_clock::time_point until,
                          std::chrono::milliseconds pace) {
    const std::string head = "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    for (std::size_t i = 0; std::chrono::steady_clock::now() < until; ++i) {
        connection.send_best_effort(i < head.size() ? head.substr(i, 1) : "a");
        if (connection.closed_by_server(pace)) {
            return true;
        }
    }
    return false;
}

HttpReply http_get(std::uint16_t port, std::string_view target, std::string_view method) {
    HttpConnection connection(port);
    return connection.request(method, target, 11, "Connection: close\r\n");
}

}  // namespace mb::test
