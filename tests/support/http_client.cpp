#include "tests/support/http_client.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

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

}  // namespace

HttpConnection::HttpConnection(std::uint16_t port, std::chrono::milliseconds timeout) {
    socket_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    set_receive_timeout(socket_, timeout);
}

void HttpConnection::send(std::string_view raw) {
    sent_at_ = std::chrono::steady_clock::now();
    boost::asio::write(socket_, boost::asio::buffer(raw.data(), raw.size()));
}

HttpReply HttpConnection::read_reply(bool head) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    parser.skip(head);
    beast::error_code ec;
    http::read(socket_, buffer_, parser, ec);
    if (ec) {
        throw std::runtime_error("reading the response failed: " + ec.message());
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

bool HttpConnection::closed_by_server(std::chrono::milliseconds wait) {
    set_receive_timeout(socket_, wait);
    char byte;
    const ssize_t n = ::recv(socket_.native_handle(), &byte, 1, 0);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

HttpReply http_get(std::uint16_t port, std::string_view target, std::string_view method) {
    HttpConnection connection(port);
    return connection.request(method, target, 11, "Connection: close\r\n");
}

}  // namespace mb::test
