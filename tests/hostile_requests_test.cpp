// The hostile request corpus (tests/hostile/) sent to the real servers over real sockets, each
// case on its own connection and again pipelined behind a valid request. Every case must get its
// contract status or a closed connection, and the server must still answer /hello afterwards
// without having leaked a descriptor.
#include "tests/support/hostile_corpus.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/server_kinds.hpp"
#include "tests/support/server_process.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

namespace mb::test {
namespace {

class HostileRequests : public ::testing::TestWithParam<ServerKind> {
  protected:
    void SetUp() override {
        server_ = std::make_unique<ServerProcess>(binary_path(GetParam().binary),
                                                  std::vector<std::string>{"--timeout", "5"});
        corpus_ = load_hostile_corpus();
        ASSERT_GE(corpus_.size(), 25u);
    }

    // The outcome on conn after the case's bytes were sent: the status, or "close".
    static std::string outcome(HttpConnection& conn, const CorpusCase& c) {
        conn.send_best_effort(c.bytes);
        if (c.expected == "close") {
            conn.finish_sending();  // the client gives up mid-request
        }
        const auto reply = conn.try_read_reply();
        if (!reply) {
            return "close";
        }
        if (reply->status == 405) {
            EXPECT_EQ(reply->header("allow"), "GET, HEAD") << c.file;
        }
        EXPECT_TRUE(reply->has_header("content-length")) << c.file;
        const std::string status = std::to_string(reply->status);
        // An incomplete request may also be answered 400 before the server closes.
        return c.expected == "close" && status == "400" ? "close" : status;
    }

    void expect_hello_still_works(const std::string& after) {
        const HttpReply hello = http_get(server_->port(), "/hello");
        EXPECT_EQ(hello.status, 200u) << "after " << after;
        EXPECT_EQ(hello.body, "Hello World! 10\n") << "after " << after;
    }

    // Descriptors settle once the server has closed every connection of the test.
    void expect_descriptors_back_to(int baseline) {
        int now = fd_count(server_->pid());
        for (int i = 0; i < 100 && now > baseline; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            now = fd_count(server_->pid());
        }
        EXPECT_LE(now, baseline) << "open descriptors grew from " << baseline << " to " << now;
    }

    std::unique_ptr<ServerProcess> server_;
    std::vector<CorpusCase> corpus_;
};

TEST_P(HostileRequests, EachCaseOnItsOwnConnection) {
    expect_hello_still_works("start");
    const int baseline = fd_count(server_->pid());
    for (const auto& c : corpus_) {
        {
            HttpConnection conn(server_->port(), std::chrono::seconds(10));
            EXPECT_EQ(outcome(conn, c), c.expected) << c.file;
        }
        expect_hello_still_works(c.file);
    }
    expect_descriptors_back_to(baseline);
}

TEST_P(HostileRequests, EachCasePipelinedBehindAValidRequest) {
    expect_hello_still_works("start");
    const int baseline = fd_count(server_->pid());
    const std::string valid = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    for (const auto& c : corpus_) {
        {
            HttpConnection conn(server_->port(), std::chrono::seconds(10));
            conn.send_best_effort(valid);
            const auto first = conn.try_read_reply();
            ASSERT_TRUE(first.has_value()) << c.file;
            EXPECT_EQ(first->body, "Hello World! 10\n") << c.file;
            EXPECT_EQ(outcome(conn, c), c.expected) << c.file;
        }
        expect_hello_still_works(c.file);
    }
    expect_descriptors_back_to(baseline);
}

TEST_P(HostileRequests, AllCasesInOneBurstThenClose) {
    // Everything at once on one connection: the server answers what it can, then closes.
    const int baseline = fd_count(server_->pid());
    {
        HttpConnection conn(server_->port(), std::chrono::seconds(10));
        for (const auto& c : corpus_) {
            conn.send_best_effort(c.bytes);
        }
        conn.finish_sending();
        while (conn.try_read_reply()) {
        }
    }
    expect_hello_still_works("the burst");
    expect_descriptors_back_to(baseline);
}

INSTANTIATE_TEST_SUITE_P(Servers, HostileRequests, ::testing::ValuesIn(server_kinds()),
                         [](const auto& info) { return server_kind_name(info.param); });

}  // namespace
}  // namespace mb::test
