// The hostile request corpus (tests/hostile/) through the parser and router both servers use:
// each file must come out as its expected status, or as incomplete where the server can only
// wait and close. The server-level test sends the same files over real sockets.
#include "common/request_parser.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace mb {
namespace {

struct CorpusCase {
    std::string file;
    std::string expected;  // a status code, or "close"
};

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

std::vector<CorpusCase> load_corpus() {
    std::ifstream manifest(std::string(MODELBENCH_SOURCE_DIR) + "/tests/hostile/expected.txt");
    std::vector<CorpusCase> cases;
    std::string line;
    while (std::getline(manifest, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        CorpusCase c;
        fields >> c.file >> c.expected;
        cases.push_back(c);
    }
    return cases;
}

std::string outcome_of(const ParsedRequest& parsed) {
    if (std::holds_alternative<Incomplete>(parsed.outcome)) return "close";
    if (auto* error = std::get_if<HttpError>(&parsed.outcome)) {
        return std::to_string(static_cast<unsigned>(error->status));
    }
    return "200";
}

TEST(RequestCorpus, EveryCaseGetsItsExpectedOutcome) {
    const auto cases = load_corpus();
    ASSERT_GE(cases.size(), 25u);
    for (const auto& c : cases) {
        const std::string bytes =
            read_bytes(std::string(MODELBENCH_SOURCE_DIR) + "/tests/hostile/" + c.file);
        ASSERT_FALSE(bytes.empty()) << c.file;
        EXPECT_EQ(outcome_of(parse_and_route(bytes)), c.expected) << c.file;
    }
}

TEST(RequestCorpus, PipelinedRequestsAreParsedOneAfterAnother) {
    const std::string two = "GET /hello HTTP/1.1\r\nHost: a\r\n\r\nGET /factorial?n=5 HTTP/1.1\r\n\r\n";
    const auto first = parse_and_route(two);
    ASSERT_TRUE(std::holds_alternative<Route>(first.outcome));
    EXPECT_EQ(std::get<Route>(first.outcome).endpoint, Endpoint::hello);
    const auto second = parse_and_route(std::string_view(two).substr(first.consumed));
    ASSERT_TRUE(std::holds_alternative<Route>(second.outcome));
    EXPECT_EQ(std::get<Route>(second.outcome).n, 5u);
}

}  // namespace
}  // namespace mb
