// The hostile request corpus (tests/hostile/) through the parser and router both servers use:
// each file must come out as its expected status, or as incomplete where the server can only
// wait and close. The server-level test sends the same files over real sockets.
#include "common/request_parser.hpp"
#include "tests/support/hostile_corpus.hpp"

#include <gtest/gtest.h>

namespace mb {
namespace {

std::string outcome_of(const ParsedRequest& parsed) {
    if (std::holds_alternative<Incomplete>(parsed.outcome)) return "close";
    if (auto* error = std::get_if<HttpError>(&parsed.outcome)) {
        return std::to_string(static_cast<unsigned>(error->status));
    }
    return "200";
}

TEST(RequestCorpus, EveryCaseGetsItsExpectedOutcome) {
    const auto cases = test::load_hostile_corpus();
    ASSERT_GE(cases.size(), 25u);
    for (const auto& c : cases) {
        ASSERT_FALSE(c.bytes.empty()) << c.file;
        EXPECT_EQ(outcome_of(parse_and_route(c.bytes)), c.expected) << c.file;
    }
}

TEST(RequestCorpus, PipelinedRequestsAreParsedOneAfterAnother) {
    const std::string two =
        "GET /hello HTTP/1.1\r\nHost: a\r\n\r\nGET /factorial?n=5 HTTP/1.1\r\nHost: a\r\n\r\n";
    const auto first = parse_and_route(two);
    ASSERT_TRUE(std::holds_alternative<Route>(first.outcome));
    EXPECT_EQ(std::get<Route>(first.outcome).endpoint, Endpoint::hello);
    const auto second = parse_and_route(std::string_view(two).substr(first.consumed));
    ASSERT_TRUE(std::holds_alternative<Route>(second.outcome));
    EXPECT_EQ(std::get<Route>(second.outcome).n, 5u);
}

}  // namespace
}  // namespace mb
