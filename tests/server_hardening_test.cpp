// What a benchmark target must survive on a network, checked against every server over real
// sockets (docs/robustness.md, "Safe by default"): bounded memory whatever a client sends, no
// request smuggling through Transfer-Encoding, no answered response lost when the server closes
// first, the HTTP/1.1 rules a proxy relies on (Host, absolute-form, 100-continue, HEAD), a first
// request bounded by --timeout from the accept, the longest ?delay_ms= within the default
// --db-timeout, and a second signal that stops the server at once.
#include "tests/support/http_client.hpp"
#include "tests/support/server_kinds.hpp"
#include "tests/support/server_process.hpp"
#include "tests/support/stop_checks.hpp"

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <thread>

namespace mb::test {
namespace {

using namespace std::chrono_literals;
namespace http = boost::beast::http;

class ServerHardening : public ::testing::TestWithParam<ServerKind> {
  protected:
    std::unique_ptr<ServerProcess> start(std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = GetParam().args;
        args.insert(args.end(), extra.begin(), extra.end());
        return std::make_unique<ServerProcess>(binary_path(GetParam().binary), args);
    }
};

// ---- Memory: the read buffer has a hard cap ---------------------------------------------------

// Sends head, then filler in 1 MiB writes until the server stops taking them or 32 MiB went
// out; the server must answer 400 and keep its peak memory within 8 MiB of what it was.
void expect_refused_in_bounded_memory(const ServerProcess& server, const std::string& head,
                                      char filler) {
    const long peak_before = status_kib(server.pid(), "VmHWM");
    HttpConnection connection(server.port(), 20s);
    bool taken = connection.try_send(head);
    const std::string mebibyte(1 << 20, filler);
    for (int i = 0; taken && i < 32; ++i) {
        taken = connection.try_send(mebibyte);
    }
    const auto reply = connection.try_read_reply();
    ASSERT_TRUE(reply.has_value()) << "no answer, only a reset";
    EXPECT_EQ(reply->status, 400u) << reply->body;
    EXPECT_TRUE(connection.closed_by_server(5s));
    const long growth_kib = status_kib(server.pid(), "VmHWM") - peak_before;
    EXPECT_LT(growth_kib, 8 * 1024) << "peak RSS grew by " << growth_kib << " KiB";
}

const std::string kChunkedHead =
    "GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

TEST_P(ServerHardening, AnEndlessChunkExtensionIsRefusedInBoundedMemory) {
    const auto server = start();
    ASSERT_EQ(http_get(server->port(), "/hello").status, 200u);
    expect_refused_in_bounded_memory(*server, kChunkedHead + "1;", 'a');
}

TEST_P(ServerHardening, AnEndlessChunkSizeLineIsRefusedInBoundedMemory) {
    const auto server = start();
    ASSERT_EQ(http_get(server->port(), "/hello").status, 200u);
    expect_refused_in_bounded_memory(*server, kChunkedHead + "1", '0');
}

TEST_P(ServerHardening, AnEndlessTrailerIsRefusedInBoundedMemory) {
    const auto server = start();
    ASSERT_EQ(http_get(server->port(), "/hello").status, 200u);
    expect_refused_in_bounded_memory(*server, kChunkedHead + "0\r\nX-Trailer: ", 'a');
}

// Beast's header fields hold at most 64 KiB per value and throw past that; a trailer is not bound
// by the header limit, so only the read buffer's cap keeps such a field from reaching them (it
// once ended the async server and cost the blocking one its connection without an answer).
TEST_P(ServerHardening, ATrailerFieldBeyondWhatBeastStoresIsRefusedAndTheServerServesOn) {
    const auto server = start();
    HttpConnection connection(server->port());
    connection.send_best_effort(kChunkedHead + "0\r\nX-Trailer: " + std::string(70'000, 'a') +
                                "\r\n\r\n");
    const auto reply = connection.try_read_reply();
    ASSERT_TRUE(reply.has_value()) << "no answer to a 70 KB trailer field";
    EXPECT_EQ(reply->status, 400u);
    EXPECT_TRUE(connection.closed_by_server(5s));
    EXPECT_EQ(http_get(server->port(), "/hello").status, 200u);
}

// ---- Framing: Transfer-Encoding as RFC 9112 6.1 and 6.3 demand --------------------------------

// A request whose body, read by another framing, would be a second request: the server must
// answer the first with 400 and close, never answer what was smuggled in its body.
void expect_one_400_then_close(const ServerProcess& server, const std::string& request) {
    HttpConnection connection(server.port());
    connection.send_best_effort(request);
    const auto reply = connection.try_read_reply();
    ASSERT_TRUE(reply.has_value()) << request;
    EXPECT_EQ(reply->status, 400u) << request;
    EXPECT_TRUE(reply->header("connection") == "close" || reply->version == 10) << request;
    EXPECT_TRUE(connection.closed_by_server(5s)) << "a second response followed: " << request;
}

TEST_P(ServerHardening, TransferEncodingNotEndingInChunkedIsRefused) {
    const auto server = start();
    const std::string smuggled = "GET /status HTTP/1.1\r\nHost: x\r\n\r\n";
    for (const std::string coding : {"gzip", "identity", "xchunked", "chunked, identity",
                                     "chunked, chunked", "gzip, chunked, chunked"}) {
        SCOPED_TRACE(coding);
        expect_one_400_then_close(*server, "GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " +
                                               coding + "\r\n\r\n" + smuggled);
    }
    expect_one_400_then_close(*server,
                              "GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
                                  smuggled);
    expect_one_400_then_close(*server,
                              "GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n"
                              "Content-Length: 35\r\n\r\n" +
                                  smuggled);
    expect_one_400_then_close(
        *server, "GET /hello HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled);
    // Still served: chunked last, after another coding, and chunked alone.
    HttpConnection connection(server->port());
    connection.send(
        "GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        "4\r\nbody\r\n0\r\n\r\n");
    EXPECT_EQ(connection.read_reply().status, 200u);
}

// ---- Closing first loses nothing already answered ----------------------------------------------

// 300 pipelined /html, the 100th with "Connection: close", and a client that reads slowly: the
// server answers 100 and closes with 200 requests unread. It must drain them before closing, or
// the kernel's reset destroys responses still on their way; the client must get all 100, then a
// clean end of stream.
TEST_P(ServerHardening, ResponsesSentBeforeTheServerClosesAreAllDelivered) {
    const auto server = start();
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    const int small = 8192;  // the responses wait in the server's send buffer, not in ours
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(server->port());
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    std::string requests;
    for (int i = 1; i <= 300; ++i) {
        requests += "GET /html HTTP/1.1\r\nHost: x\r\n";
        requests += i == 100 ? "Connection: close\r\n\r\n" : "\r\n";
    }
    ASSERT_EQ(::send(fd, requests.data(), requests.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(requests.size()));
    std::string received;
    bool reset = false;
    const timeval patience{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    for (char chunk[4096];;) {
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
            reset = n < 0;
            break;
        }
        received.append(chunk, static_cast<std::size_t>(n));
        std::this_thread::sleep_for(500us);
    }
    ::close(fd);
    EXPECT_FALSE(reset) << "the connection was reset after " << received.size() << " bytes";
    std::size_t complete = 0;
    for (std::string_view rest = received; !rest.empty(); ++complete) {
        http::response_parser<http::string_body> parser;
        parser.body_limit(1 << 20);
        parser.eager(true);
        boost::beast::error_code ec;
        const std::size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
        if (ec || !parser.is_done()) {
            break;
        }
        EXPECT_EQ(parser.get().result_int(), 200u);
        rest.remove_prefix(used);
    }
    EXPECT_EQ(complete, 100u) << received.size() << " bytes received";
}

// ---- HTTP/1.1 as proxies and clients use it -----------------------------------------------------

TEST_P(ServerHardening, Http11WithoutOneHostIs400AndHttp10NeedsNone) {
    const auto server = start();
    expect_one_400_then_close(*server, "GET /hello HTTP/1.1\r\n\r\n");
    expect_one_400_then_close(*server, "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
    HttpConnection connection(server->port());
    connection.send("GET /hello HTTP/1.0\r\n\r\n");
    EXPECT_EQ(connection.read_reply().body, "Hello World! 10\n");
}

TEST_P(ServerHardening, AbsoluteFormTargetsAreServed) {
    const auto server = start();
    HttpConnection connection(server->port());
    EXPECT_EQ(connection.request("GET", "http://127.0.0.1/hello").body, "Hello World! 10\n");
    EXPECT_EQ(connection.request("GET", "HTTP://example.org:8080/factorial?n=5").body,
              "5! = 120\n");
    EXPECT_EQ(connection.request("GET", "http://example.org").status, 200u);  // the index
}

TEST_P(ServerHardening, Expect100ContinueIsAnsweredBeforeTheBody) {
    const auto server = start();
    HttpConnection connection(server->port(), 2s);
    connection.send(
        "GET /hello HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
    const HttpReply interim = connection.read_reply();
    EXPECT_EQ(interim.status, 100u);
    connection.send("body");
    const HttpReply reply = connection.read_reply();
    EXPECT_EQ(reply.status, 200u);
    EXPECT_EQ(reply.body, "Hello World! 10\n");
}

// An error answer to HEAD has the headers of the error and no body: the next bytes on the
// connection must be its end, not a body the client would take for the next response.
TEST_P(ServerHardening, ErrorAnswersToHeadCarryNoBody) {
    const auto server = start();
    for (const std::string request :
         {"HEAD /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n",
          "HEAD /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
          "HEAD /hello HTTP/1.1\r\n\r\n",
          "HEAD /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
          "HEAD /factorial?n=x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"}) {
        SCOPED_TRACE(request);
        HttpConnection connection(server->port());
        connection.send(request);
        const HttpReply reply = connection.read_reply(true);
        EXPECT_GE(reply.status, 400u);
        EXPECT_NE(reply.header("content-length"), "0");
        EXPECT_TRUE(connection.closed_by_server(2s)) << "bytes followed the head";
    }
}

// ---- Deadlines
// ------------------------------------------------------------------------------------

// The longest delay the contract allows must not run into the default --db-timeout.
TEST_P(ServerHardening, TheLongestDelayFitsTheDefaultDbTimeout) {
    const auto server = start();
    HttpConnection connection(server->port(), 30s);
    const HttpReply reply = connection.request("GET", "/json?delay_ms=10000");
    EXPECT_EQ(reply.status, 200u) << reply.body;
    EXPECT_GE(reply.elapsed, 9900ms);
}

// SIGTERM lets a request in flight finish; a second signal does not wait for it.
TEST_P(ServerHardening, ASecondSignalStopsTheServerAtOnce) {
    expect_second_signal_stops_at_once(*start());
}

INSTANTIATE_TEST_SUITE_P(Servers, ServerHardening, ::testing::ValuesIn(server_kinds()),
                         [](const auto& info) { return server_kind_name(info.param); });

}  // namespace
}  // namespace mb::test
