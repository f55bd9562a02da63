// Response::buffers(): the head both servers send, formatted into a kept buffer, and the body
// beside it; what HEAD, HTTP/1.0 and keep-alive change in it.
#include "common/http/response.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace mb {
namespace {

std::string head_of(const Response& response) {
    std::string head;
    const auto buffers = response.buffers(head);
    return std::string(static_cast<const char*>(buffers[0].data()), buffers[0].size());
}

std::string body_of(const Response& response) {
    std::string head;
    const auto buffers = response.buffers(head);
    return std::string(static_cast<const char*>(buffers[1].data()), buffers[1].size());
}

const ResponseFactory kFactory("modelbench-test/1 (test)");

TEST(Response, HeadHasStatusServerDateTypeAndLengthThenTheBody) {
    const Response response =
        kFactory.make_static({11, true, false}, http::status::ok, kTextPlain, "Hello World! 10\n");
    const std::regex head(
        "HTTP/1\\.1 200 OK\r\nServer: modelbench-test/1 \\(test\\)\r\n"
        "Date: [A-Z][a-z]{2}, \\d\\d [A-Z][a-z]{2} \\d{4} \\d\\d:\\d\\d:\\d\\d GMT\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 16\r\n\r\n");
    EXPECT_TRUE(std::regex_match(head_of(response), head)) << head_of(response);
    EXPECT_EQ(body_of(response), "Hello World! 10\n");
}

TEST(Response, ConnectionIsSaidOnlyWhenTheVersionWouldAssumeOtherwise) {
    const auto connection_line = [](unsigned version, bool keep_alive) {
        const Response response =
            kFactory.make_static({version, keep_alive, false}, http::status::ok, kTextPlain, "x");
        const std::string head = head_of(response);
        const auto at = head.find("Connection: ");
        return at == std::string::npos ? std::string() : head.substr(at, head.find('\r', at) - at);
    };
    EXPECT_EQ(connection_line(11, true), "");
    EXPECT_EQ(connection_line(11, false), "Connection: close");
    EXPECT_EQ(connection_line(10, false), "");
    // ab -k needs "Keep-Alive" in an HTTP/1.0 response to reuse the connection.
    EXPECT_EQ(connection_line(10, true), "Connection: keep-alive");

    Response closing = kFactory.make_static({11, true, false}, http::status::ok, kTextPlain, "x");
    closing.keep_alive(false);
    EXPECT_NE(head_of(closing).find("Connection: close\r\n"), std::string::npos);
    EXPECT_EQ(head_of(closing).rfind("HTTP/1.1 200", 0), 0u);
}

TEST(Response, HeadKeepsTheLengthOfGetAndSendsNoBody) {
    const Response response =
        kFactory.make({11, true, true}, http::status::ok, kTextHtml, std::string(1234, 'x'));
    EXPECT_NE(head_of(response).find("Content-Length: 1234\r\n"), std::string::npos);
    EXPECT_EQ(body_of(response), "");
    EXPECT_EQ(response.body().size(), 0u);
}

TEST(Response, ErrorsAreOneLineWithTheirExtraHeader) {
    const Response not_allowed =
        kFactory.error({11, true, false}, {http::status::method_not_allowed, "only GET"});
    EXPECT_EQ(body_of(not_allowed), "only GET\n");
    EXPECT_NE(head_of(not_allowed).find("\r\nAllow: GET, HEAD\r\n"), std::string::npos);
    const Response unavailable =
        kFactory.error({10, false, false}, {http::status::service_unavailable, "busy"});
    EXPECT_EQ(head_of(unavailable).rfind("HTTP/1.0 503 Service Unavailable\r\n", 0), 0u);
    EXPECT_NE(head_of(unavailable).find("\r\nRetry-After: 1\r\n"), std::string::npos);
}

TEST(Response, TheHeadBufferIsReusedAcrossResponses) {
    std::string head;
    const Response first =
        kFactory.make_static({11, true, false}, http::status::ok, kTextPlain, "a");
    first.buffers(head);
    const char* storage = head.data();
    const Response second =
        kFactory.make_static({11, true, false}, http::status::ok, kTextPlain, "b");
    second.buffers(head);
    EXPECT_EQ(head.data(), storage) << "a response of the same size reallocated the head";
}

}  // namespace
}  // namespace mb
