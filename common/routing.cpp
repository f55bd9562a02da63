#include "common/routing.hpp"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>

namespace mb {
namespace {

struct PathEntry {
    std::string_view path;
    Endpoint endpoint;
};

constexpr std::array<PathEntry, 7> kPaths{{
    {"/", Endpoint::index},
    {"/html", Endpoint::html},
    {"/json", Endpoint::json},
    {"/hello", Endpoint::hello},
    {"/factorial", Endpoint::factorial},
    {"/tasks", Endpoint::tasks},
    {"/status", Endpoint::status},
}};

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Percent-decodes; '+' is a space only in the query. nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%') {
            if (i + 2 >= text.size()) {
                return std::nullopt;
            }
            const int high = hex_value(text[i + 1]);
            const int low = hex_value(text[i + 2]);
            if (high < 0 || low < 0) {
                return std::nullopt;
            }
            out += static_cast<char>(high * 16 + low);
            i += 2;
        } else if (c == '+' && plus_is_space) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

HttpError bad_request(std::string message) {
    return HttpError{http::status::bad_request, std::move(message)};
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
               return a == std::tolower(static_cast<unsigned char>(b));
           });
}

// "http://host:port/path?q" -> "/path?q"; an origin-form target is returned as it is.
std::string_view without_scheme_and_authority(std::string_view target) {
    for (const std::string_view scheme : {"http://", "https://"}) {
        if (starts_with_ignoring_case(target, scheme)) {
            target.remove_prefix(scheme.size());
            const std::string_view rest =
                target.substr(std::min(target.find_first_of("/?"), target.size()));
            return rest.empty() ? std::string_view("/") : rest;
        }
    }
    return target;
}

// Parses an integer parameter in [0, max]; nullopt when malformed or out of range.
std::optional<unsigned> bounded_integer(std::string_view text, unsigned max) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > max) {
        return std::nullopt;
    }
    return value;
}

std::optional<HttpError> apply_parameter(Route& route, std::string_view name,
                                         std::string_view value) {
    const bool takes_delay = route.endpoint == Endpoint::html || route.endpoint == Endpoint::json ||
                             route.endpoint == Endpoint::tasks;
    if (takes_delay && name == "delay_ms") {
        auto parsed = bounded_integer(value, kMaxDelayMs);
        if (!parsed) {
            return bad_request("delay_ms must be an integer from 0 to " +
                               std::to_string(kMaxDelayMs));
        }
        route.delay_ms = *parsed;
    } else if (route.endpoint == Endpoint::factorial && name == "n") {
        auto parsed = bounded_integer(value, kMaxFactorialN);
        if (!parsed) {
            return bad_request("n must be an integer from 0 to " + std::to_string(kMaxFactorialN));
        }
        route.n = parsed;
    }
    // Other parameters are ignored, as cache-busting query strings are common in load tools.
    return std::nullopt;
}

}  // namespace

HttpError target_too_long() {
    return {http::status::uri_too_long,
            "request target longer than " + std::to_string(kMaxTargetBytes) + " bytes"};
}

HttpError headers_too_large() {
    return {http::status::request_header_fields_too_large,
            "request headers larger than " + std::to_string(kMaxHeaderBytes) + " bytes"};
}

RouteResult route_request(http::verb method, std::string_view target) {
    if (target.size() > kMaxTargetBytes) {
        return target_too_long();
    }
    target = without_scheme_and_authority(target);
    if (target.empty() || (target.front() != '/' && target.front() != '?')) {
        return bad_request("request target must be a path starting with '/'");
    }
    const auto question = target.find('?');
    // An absolute-form target may have no path at all ("http://host?n=5"): that is "/".
    const std::string_view raw_path = question == 0 ? "/" : target.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);

    const auto path = percent_decode(raw_path, false);
    if (!path) {
        return bad_request("malformed percent-encoding in the path");
    }
    const PathEntry* entry = nullptr;
    for (const auto& candidate : kPaths) {
        if (candidate.path == *path) {
            entry = &candidate;
            break;
        }
    }
    if (entry == nullptr) {
        return HttpError{http::status::not_found, "no such endpoint"};
    }
    if (method != http::verb::get && method != http::verb::head) {
        return HttpError{http::status::method_not_allowed, "only GET and HEAD are allowed"};
    }

    Route route{entry->endpoint, entry->endpoint == Endpoint::tasks ? kDefaultTaskDelayMs : 0, {}};
    std::size_t start = 0;
    while (start < query.size()) {
        std::size_t end = query.find('&', start);
        if (end == std::string_view::npos) {
            end = query.size();
        }
        const std::string_view pair = query.substr(start, end - start);
        start = end + 1;
        if (pair.empty()) {
            continue;
        }
        const auto equals = pair.find('=');
        const auto name = percent_decode(pair.substr(0, equals), true);
        const auto value = percent_decode(
            equals == std::string_view::npos ? std::string_view{} : pair.substr(equals + 1), true);
        if (!name || !value) {
            return bad_request("malformed percent-encoding in the query");
        }
        if (auto error = apply_parameter(route, *name, *value)) {
            return *error;
        }
    }
    return route;
}

HttpError error_for_read_failure(const boost::beast::error_code& ec, std::string_view received) {
    if (ec == http::error::header_limit) {
        const auto line_end = received.find('\n');
        if (line_end == std::string_view::npos || line_end > kMaxTargetBytes) {
            return target_too_long();
        }
        return headers_too_large();
    }
    if (ec == http::error::body_limit) {
        return HttpError{http::status::payload_too_large,
                         "request body larger than " + std::to_string(kMaxBodyBytes) + " bytes"};
    }
    if (ec == http::error::buffer_overflow) {
        // Only a chunk-size line (with its extensions) or a trailer can outgrow the read buffer:
        // the header limit trips first for a header, and body bytes leave the buffer as parsed.
        return bad_request("chunk-size line or trailer longer than " +
                           std::to_string(kMaxReadBufferBytes) + " bytes");
    }
    return bad_request("malformed request: " + ec.message());
}

bool is_request_error(const boost::beast::error_code& ec) {
    static const auto& parser_errors = make_error_code(http::error::bad_target).category();
    return ec.category() == parser_errors && ec != http::error::end_of_stream &&
           ec != http::error::partial_message;
}

}  // namespace mb
