// The request parser both servers read with: Beast's parser with the contract's size limits,
// and the whole bytes-to-route pipeline for tests and the fuzzer.
#pragma once

#include "common/http/routing.hpp"

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <variant>

namespace mb {

using RequestParser = http::request_parser<http::string_body>;

// header_limit kMaxHeaderBytes (request line + headers) and body_limit kMaxBodyBytes.
// Beast parsers are single-use: make a new one for every request.
inline void apply_request_limits(RequestParser& parser) {
    parser.header_limit(static_cast<std::uint32_t>(kMaxHeaderBytes));
    parser.body_limit(kMaxBodyBytes);
}

// What RFC 9112 demands of a request's header and Beast 1.74 does not check, judged once the
// header is in and before any body byte is read: HTTP/1.1 needs exactly one Host (3.2), and a
// Host's value must be a uri-host[:port] (3.2, RFC 9110 7.2), in any version; a
// Transfer-Encoding is refused in HTTP/1.0, beside a Content-Length, when its final coding is not
// chunked or when chunked appears twice (6.1, 6.3). Beast would read such a body by another
// framing than the one a proxy in front may use: request smuggling. The error is a 400 and the
// connection must close, as its framing is unknown.
std::optional<HttpError> check_request_header(const RequestParser& parser);

// True when an HTTP/1.1 client waits for kContinue before it sends the body that is still to come.
bool expects_continue(const RequestParser& parser);
inline constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// error_for_read_failure() for a parser that failed while reading from a stream. Beast consumes
// the request line, and each complete header line, as they arrive, so after header_limit the
// unparsed bytes may no longer begin with the request line: once the parser has the target, the
// target's length decides between 414 and 431.
HttpError error_for_read_failure(const boost::beast::error_code& ec, const RequestParser& parser,
                                 std::string_view unparsed);

// What a server makes of the first request in bytes: the Route to serve, the HttpError to answer
// with (then close), or Incomplete when the bytes end before the request does.
struct Incomplete {};
struct ParsedRequest {
    std::variant<Incomplete, Route, HttpError> outcome;
    std::size_t consumed = 0;  // bytes of this request, so pipelined requests can follow
};
ParsedRequest parse_and_route(std::string_view bytes);

}  // namespace mb
