// The endpoint table both servers route from: request target -> endpoint and parameters, or the
// contract's error status. Also the request size limits and how a read error maps to a status.
#pragma once

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/verb.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace mb {

namespace http = boost::beast::http;

inline constexpr std::size_t kMaxTargetBytes = 8 * 1024;   // longer: 414
inline constexpr std::size_t kMaxHeaderBytes = 16 * 1024;  // request line + headers; more: 431
inline constexpr std::size_t kMaxBodyBytes = 64 * 1024;    // more: 413
// The read buffer's hard cap. Beast 1.74's parser bounds the header and the body but not a
// chunk-size line, its extensions or a trailer: those would buffer as long as a client sends.
// The body never needs the room (it is parsed as it arrives); a header does.
inline constexpr std::size_t kMaxReadBufferBytes = kMaxHeaderBytes + 4 * 1024;
// A trailer is parsed only once it is whole in the buffer, and Beast's fields throw for a value
// of 64 KiB or more: the cap keeps every trailer field below that.
static_assert(kMaxReadBufferBytes < 65'535);
// The first read of a request, and so what an idle connection's buffer holds; the parser asks for
// more when a request is larger (ab's are about 100 bytes).
inline constexpr std::size_t kFirstReadBytes = 512;
inline constexpr unsigned kMaxDelayMs = 10000;     // ?delay_ms= of /html, /json, /tasks
inline constexpr unsigned kMaxFactorialN = 20000;  // ?n= of /factorial: E9's heavy request
inline constexpr unsigned kDefaultTaskDelayMs = 2000;

enum class Endpoint { index, html, json, hello, factorial, tasks, status };

struct Route {
    Endpoint endpoint = Endpoint::index;
    unsigned delay_ms = 0;      // /html, /json: SELECT SLEEP first; /tasks: task two's delay
    std::optional<unsigned> n;  // /factorial?n=
};

struct HttpError {
    http::status status = http::status::bad_request;
    std::string message;  // one line, no trailing newline
};

using RouteResult = std::variant<Route, HttpError>;

// Routes a request by method and target: origin-form (path and optional query), or absolute-form
// ("http://host/path?query", as sent to proxies; RFC 9112 3.2.2 says servers must accept it), of
// which only the path and query count.
RouteResult route_request(http::verb method, std::string_view target);

// 414 and 431, their messages naming the limits.
HttpError target_too_long();
HttpError headers_too_large();

// The error response for a request that could not be read: header_limit is 414 when the request
// line alone passes kMaxTargetBytes (judged from the bytes received so far), else 431;
// body_limit is 413; buffer_overflow (past kMaxReadBufferBytes) and anything else the parser
// rejects is 400.
HttpError error_for_read_failure(const boost::beast::error_code& ec, std::string_view received);

// True when a failed request read means the parser rejected what the client sent: answer it with
// error_for_read_failure(), then close. False when the connection closed, broke or timed out,
// where nobody is left to read an answer.
bool is_request_error(const boost::beast::error_code& ec);

}  // namespace mb
