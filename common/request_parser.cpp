#include "common/request_parser.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

namespace mb {

HttpError error_for_read_failure(const boost::beast::error_code& ec, const RequestParser& parser,
                                 std::string_view unparsed) {
    const std::string_view target = parser.get().target();
    if (ec == http::error::header_limit && !target.empty()) {
        return target.size() > kMaxTargetBytes
                   ? HttpError{http::status::uri_too_long, "request target longer than 8192 bytes"}
                   : HttpError{http::status::request_header_fields_too_large,
                               "request headers larger than 16384 bytes"};
    }
    return error_for_read_failure(ec, unparsed);
}

ParsedRequest parse_and_route(std::string_view bytes) {
    RequestParser parser;
    apply_request_limits(parser);
    parser.eager(true);
    boost::beast::error_code ec;
    const std::size_t consumed = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
    if (ec == http::error::need_more) {
        return {Incomplete{}, consumed};
    }
    if (ec) {
        return {error_for_read_failure(ec, bytes), consumed};
    }
    if (!parser.is_done()) {
        return {Incomplete{}, consumed};
    }
    const auto& request = parser.get();
    RouteResult routed = route_request(request.method(), request.target());
    if (auto* error = std::get_if<HttpError>(&routed)) {
        return {std::move(*error), consumed};
    }
    return {std::get<Route>(routed), consumed};
}

}  // namespace mb
