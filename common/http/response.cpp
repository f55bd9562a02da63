#include "common/http/response.hpp"

#include <boost/beast/http/status.hpp>

#include <charconv>
#include <cstring>
#include <ctime>
#include <mutex>

namespace mb {
namespace {

void append_number(std::string& out, std::size_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end);
}

}  // namespace

ResponseShape shape_of(const Request& request, bool client_keeps_alive, bool keepalive_enabled) {
    return ResponseShape{request.version(), keepalive_enabled && client_keeps_alive,
                         request.method() == http::verb::head};
}

std::string_view http_date_now() {
    thread_local std::time_t cached_second = -1;
    thread_local char text[64];
    thread_local std::size_t length = 0;
    const std::time_t now = std::time(nullptr);
    if (now != cached_second) {
        // Formatted once per second for the whole process: a thread that starts later in that
        // second (the blocking server starts one per connection) copies the text instead.
        static std::mutex mutex;
        static std::time_t shared_second = -1;
        static char shared_text[64];
        static std::size_t shared_length = 0;
        const std::lock_guard lock(mutex);
        if (shared_second != now) {
            std::tm utc{};
            gmtime_r(&now, &utc);
            shared_length =
                std::strftime(shared_text, sizeof shared_text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
            shared_second = now;
        }
        std::memcpy(text, shared_text, shared_length);
        length = shared_length;
        cached_second = now;
    }
    return {text, length};
}

Response::Response(const ResponseShape& shape, http::status status, std::string_view server,
                   std::string_view content_type, Body body)
    : status_(status),
      version_(shape.version),
      keep_alive_(shape.keep_alive),
      server_(server),
      content_type_(content_type),
      content_length_(std::visit([](const auto& text) { return text.size(); }, body)),
      body_(shape.head ? std::string_view() : std::move(body)) {}

std::string_view Response::body() const {
    struct View {
        std::string_view operator()(const std::string& text) const { return text; }
        std::string_view operator()(std::string_view text) const { return text; }
        std::string_view operator()(const TextBuffer& text) const { return text.view(); }
    };
    return std::visit(View{}, body_);
}

std::array<boost::asio::const_buffer, 2> Response::buffers(std::string& head) const {
    head.clear();
    head += version_ == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
    append_number(head, status_code());
    head += ' ';
    head += http::obsolete_reason(status_);
    head += "\r\nServer: ";
    head += server_;
    head += "\r\nDate: ";
    head += http_date_now();
    head += "\r\nContent-Type: ";
    head += content_type_;
    head += "\r\nContent-Length: ";
    append_number(head, content_length_);
    if (!extra_header_.empty()) {
        head += "\r\n";
        head += extra_header_;
    }
    // What each version assumes need not be said: HTTP/1.1 keeps the connection, HTTP/1.0 closes.
    if (keep_alive_ != (version_ != 10)) {
        head += keep_alive_ ? "\r\nConnection: keep-alive" : "\r\nConnection: close";
    }
    head += "\r\n\r\n";
    return {boost::asio::buffer(head), boost::asio::buffer(body())};
}

Response ResponseFactory::make(const ResponseShape& shape, http::status status,
                               std::string_view content_type, Body body) const {
    return Response(shape, status, server_, content_type, std::move(body));
}

Response ResponseFactory::make_static(const ResponseShape& shape, http::status status,
                                      std::string_view content_type, std::string_view body) const {
    return Response(shape, status, server_, content_type, body);
}

Response ResponseFactory::error(const ResponseShape& shape, const HttpError& error) const {
    Response response = make(shape, error.status, kTextPlain, error.message + "\n");
    if (error.status == http::status::method_not_allowed) {
        response.extra_header("Allow: GET, HEAD");
    } else if (error.status == http::status::service_unavailable) {
        response.extra_header("Retry-After: 1");
    }
    return response;
}

}  // namespace mb
