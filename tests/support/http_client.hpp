// A small blocking HTTP/1.x client for integration tests: raw bytes out, parsed responses in,
// with a receive timeout so a hung server fails the test instead of hanging it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace mb::test {

struct HttpReply {
    unsigned status = 0;
    unsigned version = 0;
    std::map<std::string, std::string> headers;  // names in lower case
    std::string body;
    std::chrono::milliseconds elapsed{0};  // from send to the whole reply

    std::string header(const std::string& lower_name) const {
        auto it = headers.find(lower_name);
        return it == headers.end() ? std::string() : it->second;
    }
    bool has_header(const std::string& lower_name) const { return headers.count(lower_name) != 0; }
};

class HttpConnection {
  public:
    explicit HttpConnection(std::uint16_t port,
                            std::chrono::milliseconds timeout = std::chrono::seconds(15));

    void send(std::string_view raw);
    // Reads one response; for a response to HEAD pass head = true. Throws on timeout (the
    // constructor's, for the whole response) or close.
    HttpReply read_reply(bool head = false);
    // send() + read_reply() for "METHOD target HTTP/1.x" with Host and the extra header lines
    // (each ending in \r\n).
    HttpReply request(std::string_view method, std::string_view target, unsigned version = 11,
                      std::string_view extra_headers = {});

    // For hostile input: sends what the server accepts and ignores a write that fails because the
    // server already answered and closed; finish_sending() half-closes our side.
    void send_best_effort(std::string_view raw);
    // send() that reports a failed write (the server closed or reset) instead of throwing.
    bool try_send(std::string_view raw);
    void finish_sending();
    // Reads one response, or nullopt when the server closed (or reset) without one.
    std::optional<HttpReply> try_read_reply(bool head = false);

    // True when the server sends something (or closes) within wait; reads nothing.
    bool readable_within(std::chrono::milliseconds wait);
    // True when the server closes the connection (EOF or reset) within wait.
    bool closed_by_server(std::chrono::milliseconds wait);

  private:
    HttpReply read_reply(bool head, boost::beast::error_code& ec);

    boost::asio::io_context io_;
    boost::asio::ip::tcp::socket socket_{io_};
    boost::beast::flat_buffer buffer_;
    std::chrono::milliseconds timeout_;
    std::chrono::steady_clock::time_point sent_at_;
};

// A slowloris client on connection: a request head one byte every pace, then header bytes without
// end, until the server closes the connection or until `until`. True when the server closed it.
bool trickle_until_closed(HttpConnection& connection, std::chrono::steady_clock::time_point until,
                          std::chrono::milliseconds pace);

// One request on a new connection with "Connection: close".
HttpReply http_get(std::uint16_t port, std::string_view target, std::string_view method = "GET");

}  // namespace mb::test
