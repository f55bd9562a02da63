// Building responses: every response carries Content-Length (never chunked), Date, Server and
// Content-Type; HEAD gets the headers of GET with no body; errors have a one-line text body.
#pragma once

#include "common/routing.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <string>
#include <string_view>

namespace mb {

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

inline constexpr std::string_view kTextPlain = "text/plain; charset=utf-8";
inline constexpr std::string_view kTextHtml = "text/html; charset=utf-8";
inline constexpr std::string_view kApplicationJson = "application/json";

// What a response must echo of its request.
struct ResponseShape {
    unsigned version = 11;
    bool keep_alive = false;
    bool head = false;
};

// keep_alive follows HTTP/1.1 (on unless "Connection: close") and HTTP/1.0 (only with
// "Connection: keep-alive"), and is off when the server was started with --keepalive off.
ResponseShape shape_of(const Request& request, bool keepalive_enabled);

// The RFC 7231 date of the current second, formatted once per second per thread.
std::string_view http_date_now();

class ResponseFactory {
public:
    explicit ResponseFactory(std::string server_header) : server_(std::move(server_header)) {}

    Response make(const ResponseShape& shape, http::status status, std::string_view content_type,
                  std::string body) const;
    // 405 adds Allow: GET, HEAD; 503 adds Retry-After: 1.
    Response error(const ResponseShape& shape, const HttpError& error) const;

    const std::string& server_header() const { return server_; }

private:
    std::string server_;
};

}  // namespace mb
