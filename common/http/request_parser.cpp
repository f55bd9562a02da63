#include "common/http/request_parser.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

#include <arpa/inet.h>

#include <algorithm>
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

bool is_hex_digit(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// RFC 3986's unreserved and sub-delims characters, which a reg-name and an IPvFuture may hold.
bool is_unreserved_or_sub_delim(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-._~!$&'()*+,;=").find(c) != std::string_view::npos;
}

// reg-name = *( unreserved / pct-encoded / sub-delims ); an IPv4address is one too.
bool is_reg_name(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%') {
            if (i + 2 >= text.size() || !is_hex_digit(text[i + 1]) || !is_hex_digit(text[i + 2])) {
                return false;
            }
            i += 2;
        } else if (!is_unreserved_or_sub_delim(text[i])) {
            return false;
        }
    }
    return true;
}

// What stands between IP-literal's brackets: IPv6address, or IPvFuture = "v" 1*HEXDIG "."
// 1*( unreserved / sub-delims / ":" ).
bool is_ip_literal_inside(std::string_view text) {
    if (!text.empty() && (text[0] == 'v' || text[0] == 'V')) {
        const auto dot = text.find('.', 1);
        if (dot == std::string_view::npos || dot == 1 || dot + 1 == text.size()) {
            return false;
        }
        const auto version = text.substr(1, dot - 1);
        const auto rest = text.substr(dot + 1);
        return std::all_of(version.begin(), version.end(), is_hex_digit) &&
               std::all_of(rest.begin(), rest.end(),
                           [](char c) { return c == ':' || is_unreserved_or_sub_delim(c); });
    }
    char address[64];
    in6_addr parsed{};
    if (text.size() >= sizeof address) {
        return false;
    }
    text.copy(address, text.size());
    address[text.size()] = '\0';
    return ::inet_pton(AF_INET6, address, &parsed) == 1;
}

// Host = uri-host [ ":" port ] (RFC 9110 7.2), uri-host = IP-literal / IPv4address / reg-name,
// port = *DIGIT (RFC 3986 3.2).
bool is_valid_host(std::string_view value) {
    std::string_view port;
    if (!value.empty() && value[0] == '[') {
        const auto close = value.find(']');
        if (close == std::string_view::npos || !is_ip_literal_inside(value.substr(1, close - 1))) {
            return false;
        }
        const auto after = value.substr(close + 1);
        if (!after.empty() && after[0] != ':') {
            return false;
        }
        port = after.empty() ? after : after.substr(1);
    } else {
        const auto colon = value.find(':');
        if (!is_reg_name(value.substr(0, colon))) {
            return false;
        }
        port = colon == std::string_view::npos ? std::string_view{} : value.substr(colon + 1);
    }
    return std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
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
    const auto [first_host, end_host] = request.equal_range(http::field::host);
    if (std::any_of(first_host, end_host,
                    [](const auto& host) { return !is_valid_host(host.value()); })) {
        return HttpError{http::status::bad_request, "a Host header that is not host[:port]"};
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
