// The request parser both servers read with: Beast's parser with the contract's size limits,
// and the whole bytes-to-route pipeline for tests and the fuzzer.
#pragma once

#include "common/routing.hpp"

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
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
