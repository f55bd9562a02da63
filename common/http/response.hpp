// Building responses: every response carries Content-Length (never chunked), Date, Server and
// Content-Type; HEAD gets the headers of GET with no body; errors have a one-line text body.
// A response is sent as its head, formatted at that moment into a buffer the connection keeps,
// and its body, both in one gather write: no header container, no serializer, no allocation.
#pragma once

#include "common/http/routing.hpp"
#include "common/text_buffer.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace mb {

using Request = http::request<http::string_body>;

inline constexpr std::string_view kTextPlain = "text/plain; charset=utf-8";
inline constexpr std::string_view kTextHtml = "text/html; charset=utf-8";
inline constexpr std::string_view kApplicationJson = "application/json";

// What a response must echo of its request.
struct ResponseShape {
    unsigned version = 11;
    bool keep_alive = false;
    bool head = false;
};

// keep_alive is client_keeps_alive, the request's own semantics (HTTP/1.1: on unless
// "Connection: close"; HTTP/1.0: only with "Connection: keep-alive"), and off when the server was
// started with --keepalive off.
ResponseShape shape_of(const Request& request, bool client_keeps_alive, bool keepalive_enabled);

// The RFC 7231 date of the current second, formatted once per second per thread.
std::string_view http_date_now();

// A response's body: text of its own, static text, or a rendered page.
using Body = std::variant<std::string, std::string_view, TextBuffer>;

class Response {
  public:
    // server, content_type and (later) extra_header must outlive the response: the factory's
    // Server text and string constants. The body is the response's own, or static text.
    Response(const ResponseShape& shape, http::status status, std::string_view server,
             std::string_view content_type, Body body);

    http::status status() const { return status_; }
    unsigned status_code() const { return static_cast<unsigned>(status_); }
    bool keep_alive() const { return keep_alive_; }
    // Until it is sent, the server may still decide that this response ends the connection.
    void keep_alive(bool keep) { keep_alive_ = keep; }
    // One more header line without its CRLF, e.g. "Allow: GET, HEAD".
    void extra_header(std::string_view line) { extra_header_ = line; }
    // The body bytes sent: none for HEAD, whose Content-Length is still that of GET's body.
    std::string_view body() const;

    // Formats the status line and headers into head (its capacity is reused) and returns what to
    // write: head, then body. Both must stay untouched until the write has completed.
    std::array<boost::asio::const_buffer, 2> buffers(std::string& head) const;

  private:
    http::status status_;
    unsigned version_;
    bool keep_alive_;
    std::string_view server_;
    std::string_view content_type_;
    std::string_view extra_header_;
    std::size_t content_length_;
    Body body_;
};

class ResponseFactory {
  public:
    explicit ResponseFactory(std::string server_header) : server_(std::move(server_header)) {}

    Response make(const ResponseShape& shape, http::status status, std::string_view content_type,
                  Body body) const;
    // A body of static text (no copy, no allocation).
    Response make_static(const ResponseShape& shape, http::status status,
                         std::string_view content_type, std::string_view body) const;
    // 405 adds Allow: GET, HEAD; 503 adds Retry-After: 1.
    Response error(const ResponseShape& shape, const HttpError& error) const;

  private:
    std::string server_;
};

}  // namespace mb
