#include "common/http_response.hpp"

#include <boost/beast/http/field.hpp>

#include <ctime>

namespace mb {

ResponseShape shape_of(const Request& request, bool keepalive_enabled) {
    return ResponseShape{request.version(), keepalive_enabled && request.keep_alive(),
                         request.method() == http::verb::head};
}

std::string_view http_date_now() {
    thread_local std::time_t cached_second = -1;
    thread_local char text[64];
    thread_local std::size_t length = 0;
    const std::time_t now = std::time(nullptr);
    if (now != cached_second) {
        std::tm utc{};
        gmtime_r(&now, &utc);
        length = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
        cached_second = now;
    }
    return {text, length};
}

Response ResponseFactory::make(const ResponseShape& shape, http::status status,
                               std::string_view content_type, std::string body) const {
    Response response{status, shape.version};
    response.set(http::field::server, server_);
    response.set(http::field::date, http_date_now());
    response.set(http::field::content_type, content_type);
    response.content_length(body.size());
    if (!shape.head) {
        response.body() = std::move(body);
    }
    response.keep_alive(shape.keep_alive);
    return response;
}

Response ResponseFactory::error(const ResponseShape& shape, const HttpError& error) const {
    Response response = make(shape, error.status, kTextPlain, error.message + "\n");
    if (error.status == http::status::method_not_allowed) {
        response.set(http::field::allow, "GET, HEAD");
    } else if (error.status == http::status::service_unavailable) {
        response.set(http::field::retry_after, "1");
    }
    return response;
}

}  // namespace mb
