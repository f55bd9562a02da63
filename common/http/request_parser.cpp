#include "common/http/request_parser.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

#include <string>

namespace mb {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    return boost::beast::iequals(a, b);
}

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

HttpError smuggling_risk(std::string message) {
    return {http::status::bad_request, std::move(message)};
}

}  // namespace

std::optional<HttpError> check_request_header(const RequestParser& parser) {
    const auto& request = parser.get();
    if (request.version() >= 11 && request.count(http::field::host) != 1) {
        return HttpError{http::status::bad_request, "an HTTP/1.1 request needs one Host header"};
    }
    if (request.count(http::field::transfer_encoding) == 0) {
        return std::nullopt;
    }
    if (request.version() < 11) {
        return smuggling_risk("Transfer-Encoding is not allowed in an HTTP/1.0 request");
    }
    if (request.count(http::field::content_length) != 0) {
        return smuggling_risk("Transfer-Encoding and Content-Length together");
    }
    // Every coding of every Transfer-Encoding line, in order, each without its parameters.
    std::size_t chunked = 0;
    std::string_view last;
    const auto [first, end] = request.equal_range(http::field::transfer_encoding);
    for (auto field = first; field != end; ++field) {
        std::string_view list = field->value();
        while (!list.empty()) {
            const auto comma = list.find(',');
            const std::string_view element = list.substr(0, comma);
            list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
            const std::string_view coding = trimmed(element.substr(0, element.find(';')));
            if (coding.empty()) {
                continue;
            }
            last = coding;
            chunked += equals_ignoring_case(coding, "chunked") ? 1 : 0;
        }
    }
    if (chunked != 1 || !equals_ignoring_case(last, "chunked")) {
        return smuggling_risk("Transfer-Encoding must end in chunked, once");
    }
    return std::nullopt;
}

bool expects_continue(const RequestParser& parser) {
    const auto& request = parser.get();
    return request.version() >= 11 && !parser.is_done() &&
           equals_ignoring_case(trimmed(request[http::field::expect]), "100-continue");
}

HttpError error_for_read_failure(const boost::beast::error_code& ec, const RequestParser& parser,
                                 std::string_view unparsed) {
    const std::string_view target = parser.get().target();
    if (ec == http::error::header_limit && !target.empty()) {
        return target.size() > kMaxTargetBytes ? target_too_long() : headers_too_large();
    }
    return error_for_read_failure(ec, unparsed);
}

ParsedRequest parse_and_route(std::string_view bytes) {
    RequestParser parser;
    apply_request_limits(parser);
    boost::beast::error_code ec;
    // As a server reads: the header first (put() stops there), its checks, then the body.
    std::size_t consumed = 0;
    for (bool header = true; !parser.is_done(); header = false) {
        // Never more at once than a server's read buffer can hold.
        const std::string_view rest = bytes.substr(consumed, kMaxReadBufferBytes);
        const std::size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
        consumed += used;
        if (!ec && used == 0 && !parser.is_done()) {
            ec = http::error::need_more;  // nothing left to parse: the body is still to come
        }
        if (ec == http::error::need_more) {
            // A server's read buffer holds what the parser has not consumed, up to its cap.
            if (bytes.size() - consumed < kMaxReadBufferBytes) {
                return {Incomplete{}, consumed};
            }
            ec = http::error::buffer_overflow;
        }
        if (ec) {
            return {error_for_read_failure(ec, parser, bytes.substr(consumed)), consumed};
        }
        if (header) {
            if (auto error = check_request_header(parser)) {
                return {std::move(*error), consumed};
            }
            parser.eager(true);
        }
    }
    const auto& request = parser.get();
    RouteResult routed = route_request(request.method(), request.target());
    if (auto* error = std::get_if<HttpError>(&routed)) {
        return {std::move(*error), consumed};
    }
    return {std::get<Route>(routed), consumed};
}

}  // namespace mb
