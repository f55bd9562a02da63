// The request parser both servers read with: Beast's parser with the contract's size limits.
#pragma once

#include "common/routing.hpp"

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <optional>

namespace mb {

using RequestParser = http::request_parser<http::string_body>;

// A parser with header_limit kMaxHeaderBytes (request line + headers) and body_limit
// kMaxBodyBytes. Beast parsers are single-use: make a new one for every request.
inline void apply_request_limits(RequestParser& parser) {
    parser.header_limit(static_cast<std::uint32_t>(kMaxHeaderBytes));
    parser.body_limit(kMaxBodyBytes);
}

}  // namespace mb
