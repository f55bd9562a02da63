#include "common/http/routing.hpp"
#include "common/http/request_parser.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace mb {
namespace {

Route routed(std::string_view target, http::verb method = http::verb::get) {
    auto result = route_request(method, target);
    if (auto* error = std::get_if<HttpError>(&result)) {
        ADD_FAILURE() << target << " -> " << static_cast<unsigned>(error->status) << " "
                      << error->message;
        return {};
    }
    return std::get<Route>(result);
}

http::status error_status(std::string_view target, http::verb method = http::verb::get) {
    auto result = route_request(method, target);
    if (auto* error = std::get_if<HttpError>(&result)) {
        EXPECT_FALSE(error->message.empty());
        EXPECT_EQ(error->message.find('\n'), std::string::npos);
        return error->status;
    }
    return http::status::ok;
}

TEST(Routing, EveryEndpointByPath) {
    EXPECT_EQ(routed("/").endpoint, Endpoint::index);
    EXPECT_EQ(routed("/html").endpoint, Endpoint::html);
    EXPECT_EQ(routed("/json").endpoint, Endpoint::json);
    EXPECT_EQ(routed("/hello").endpoint, Endpoint::hello);
    EXPECT_EQ(routed("/factorial").endpoint, Endpoint::factorial);
    EXPECT_EQ(routed("/tasks").endpoint, Endpoint::tasks);
    EXPECT_EQ(routed("/status").endpoint, Endpoint::status);
    EXPECT_EQ(routed("/hello", http::verb::head).endpoint, Endpoint::hello);
    EXPECT_EQ(routed("/hell%6f").endpoint, Endpoint::hello);
}

TEST(Routing, Parameters) {
    EXPECT_EQ(routed("/html").delay_ms, 0u);
    EXPECT_EQ(routed("/html?delay_ms=250").delay_ms, 250u);
    EXPECT_EQ(routed("/json?delay_ms=10000").delay_ms, 10000u);
    EXPECT_EQ(routed("/tasks").delay_ms, 2000u);
    EXPECT_EQ(routed("/tasks?delay_ms=0").delay_ms, 0u);
    EXPECT_FALSE(routed("/factorial").n.has_value());
    EXPECT_EQ(routed("/factorial?n=0").n, 0u);
    EXPECT_EQ(routed("/factorial?n=1000").n, 1000u);
    EXPECT_EQ(routed("/factorial?x=1&n=%32%30").n, 20u);
    EXPECT_EQ(routed("/hello?anything=goes").endpoint, Endpoint::hello);
}

TEST(Routing, OutOfRangeOrMalformedParametersAre400) {
    EXPECT_EQ(error_status("/factorial?n=20001"), http::status::bad_request);
    EXPECT_EQ(error_status("/factorial?n=-1"), http::status::bad_request);
    EXPECT_EQ(error_status("/factorial?n=abc"), http::status::bad_request);
    EXPECT_EQ(error_status("/factorial?n="), http::status::bad_request);
    EXPECT_EQ(error_status("/factorial?n=99999999999999999999"), http::status::bad_request);
    EXPECT_EQ(error_status("/html?delay_ms=10001"), http::status::bad_request);
    EXPECT_EQ(error_status("/json?delay_ms=1.5"), http::status::bad_request);
    EXPECT_EQ(error_status("/html?delay_ms=%zz"), http::status::bad_request);
    // Only plain decimal digits: no sign, blank, hex, trailing byte, or a later value out of range.
    EXPECT_EQ(error_status("/factorial?n=+5"), http::status::bad_request);
    EXPECT_EQ(error_status("/factorial?n=%205"), http::status::bad_request);
    EXPECT_EQ(error_status("/factorial?n=5%00"), http::status::bad_request);
    EXPECT_EQ(error_status("/html?delay_ms=0x10"), http::status::bad_request);
    EXPECT_EQ(error_status("/json?delay_ms=5&delay_ms=20000"), http::status::bad_request);
    EXPECT_EQ(error_status("/html%"), http::status::bad_request);
    EXPECT_EQ(error_status("html"), http::status::bad_request);
    EXPECT_EQ(error_status(""), http::status::bad_request);
}

TEST(Routing, UnknownPathIs404AndOtherMethods405) {
    EXPECT_EQ(error_status("/nope"), http::status::not_found);
    EXPECT_EQ(error_status("/html/"), http::status::not_found);
    EXPECT_EQ(error_status("/%ff%fe"), http::status::not_found);
    EXPECT_EQ(error_status("/html", http::verb::post), http::status::method_not_allowed);
    EXPECT_EQ(error_status("/hello", http::verb::delete_), http::status::method_not_allowed);
    EXPECT_EQ(error_status("/hello", http::verb::unknown), http::status::method_not_allowed);
}

TEST(Routing, AbsoluteFormTargetsRouteByTheirPathAndQuery) {
    EXPECT_EQ(routed("http://127.0.0.1/hello").endpoint, Endpoint::hello);
    EXPECT_EQ(routed("HTTP://example.org:8080/factorial?n=7").n, 7u);
    EXPECT_EQ(routed("https://example.org").endpoint, Endpoint::index);
    EXPECT_EQ(routed("http://example.org?n=1").endpoint, Endpoint::index);
    EXPECT_EQ(error_status("ftp://example.org/hello"), http::status::bad_request);
    EXPECT_EQ(error_status("http://example.org/nowhere"), http::status::not_found);
}

TEST(Routing, LongTargetIs414) {
    EXPECT_EQ(error_status("/hello?" + std::string(kMaxTargetBytes, 'a')),
              http::status::uri_too_long);
}

TEST(Routing, ReadFailuresMapToTheContractStatus) {
    const std::string long_line = "GET /" + std::string(kMaxTargetBytes + 10, 'a');
    EXPECT_EQ(error_for_read_failure(http::error::header_limit, long_line).status,
              http::status::uri_too_long);
    const std::string big_headers = "GET / HTTP/1.1\r\nX: " + std::string(20000, 'b');
    EXPECT_EQ(error_for_read_failure(http::error::header_limit, big_headers).status,
              http::status::request_header_fields_too_large);
    EXPECT_EQ(error_for_read_failure(http::error::body_limit, "").status,
              http::status::payload_too_large);
    EXPECT_EQ(error_for_read_failure(http::error::bad_method, "").status,
              http::status::bad_request);
}

// As a server reads: in pieces, as http::read does (512 bytes first), with the parser consuming
// the request line and complete header lines before the header limit trips. The status must then
// come from what the parser already has, not from the bytes left over.
http::status streamed_read_failure(const std::string& request) {
    RequestParser parser;
    apply_request_limits(parser);
    boost::beast::error_code ec;
    std::string unparsed;
    for (std::size_t offset = 0; offset < request.size();) {
        const std::size_t n = std::min(512 + unparsed.size(), request.size() - offset);
        unparsed += request.substr(offset, n);
        offset += n;
        unparsed.erase(0, parser.put(boost::asio::buffer(unparsed), ec));
        if (ec != http::error::need_more) {
            break;
        }
    }
    EXPECT_EQ(ec, http::error::header_limit);
    return error_for_read_failure(ec, parser, unparsed).status;
}

TEST(Routing, StreamedReadFailuresJudgeTheTargetTheParserHas) {
    const std::string big_header = "X-Big: " + std::string(20000, 'b') + "\r\n\r\n";
    EXPECT_EQ(streamed_read_failure("GET /hello HTTP/1.1\r\nHost: x\r\n" + big_header),
              http::status::request_header_fields_too_large);
    EXPECT_EQ(streamed_read_failure("GET /hello?" + std::string(kMaxTargetBytes, 'a') +
                                    " HTTP/1.1\r\nHost: x\r\n" + big_header),
              http::status::uri_too_long);
    EXPECT_EQ(streamed_read_failure("GET /hello?" + std::string(20000, 'a') + " HTTP/1.1\r\n\r\n"),
              http::status::uri_too_long);
}

}  // namespace
}  // namespace mb
