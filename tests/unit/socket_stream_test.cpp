// SocketStream: the blocking server's socket with a deadline, checked on a socket pair: reads and
// writes, the deadline that covers every call until it is set again, the wait for a request that
// shutdown ends at once, and the lingering close.
#include "servers/blocking/socket_stream.hpp"
#include "servers/blocking/stop_signal.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>
#include <thread>

namespace mb::blocking {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A connected pair: the stream under test owns one end (non-blocking, as accepted sockets are),
// the test plays the client on the other.
class SocketPair : public ::testing::Test {
  protected:
    void SetUp() override {
        int fds[2];
        ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
        server_fd_ = fds[0];
        client_ = fds[1];
    }
    void TearDown() override {
        if (client_ >= 0) {
            ::close(client_);
        }
    }

    void client_sends(const std::string& text) {
        ASSERT_EQ(::send(client_, text.data(), text.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(text.size()));
    }
    std::string client_receives() {
        char bytes[4096];
        for (const auto until = Clock::now() + 2s; Clock::now() < until;) {
            const ssize_t n = ::recv(client_, bytes, sizeof bytes, MSG_DONTWAIT);
            if (n >= 0) {
                return std::string(bytes, static_cast<std::size_t>(n));
            }
            std::this_thread::sleep_for(1ms);
        }
        return "<nothing>";
    }

    int server_fd_ = -1;
    int client_ = -1;
};

TEST_F(SocketPair, ReadsWhatArrivedAndWritesAGather) {
    SocketStream stream(server_fd_);
    client_sends("GET / HTTP/1.1\r\n");
    std::array<char, 64> bytes{};
    boost::beast::error_code ec;
    const std::size_t n = stream.read_some(boost::asio::buffer(bytes), ec);
    EXPECT_FALSE(ec);
    EXPECT_EQ(std::string(bytes.data(), n), "GET / HTTP/1.1\r\n");

    const std::string head = "HTTP/1.1 200 OK\r\n\r\n";
    const std::string body = "body";
    const std::array<boost::asio::const_buffer, 2> parts{boost::asio::buffer(head),
                                                         boost::asio::buffer(body)};
    EXPECT_EQ(stream.write_some(parts, ec), head.size() + body.size());
    EXPECT_FALSE(ec);
    EXPECT_EQ(client_receives(), head + body);
}

TEST_F(SocketPair, TheDeadlineCoversEveryCallUntilItIsSetAgain) {
    SocketStream stream(server_fd_);
    stream.expires_after(150ms);
    std::array<char, 64> bytes{};
    boost::beast::error_code ec;
    client_sends("a");
    stream.read_some(boost::asio::buffer(bytes), ec);  // arrives in time
    EXPECT_FALSE(ec);
    const auto started = Clock::now();
    stream.read_some(boost::asio::buffer(bytes), ec);  // the same deadline: what is left of it
    EXPECT_EQ(ec, boost::asio::error::timed_out);
    EXPECT_LT(Clock::now() - started, 150ms + 100ms);

    stream.expires_after(std::chrono::milliseconds(50));
    client_sends("b");
    EXPECT_EQ(stream.read_some(boost::asio::buffer(bytes), ec), 1u);
    EXPECT_FALSE(ec);
}

TEST_F(SocketPair, EndOfStreamIsEof) {
    SocketStream stream(server_fd_);
    ::shutdown(client_, SHUT_WR);
    std::array<char, 64> bytes{};
    boost::beast::error_code ec;
    stream.read_some(boost::asio::buffer(bytes), ec);
    EXPECT_EQ(ec, boost::asio::error::eof);
}

TEST_F(SocketPair, WaitingForARequestEndsWithDataTheDeadlineOrTheStop) {
    SocketStream stream(server_fd_);
    StopSignal stop;
    EXPECT_EQ(stream.wait_readable(Clock::now() + 50ms, stop), SocketStream::Wait::timed_out);
    client_sends("x");
    EXPECT_EQ(stream.wait_readable(Clock::now() + 1s, stop), SocketStream::Wait::ready);

    std::array<char, 8> bytes{};
    boost::beast::error_code ec;
    stream.read_some(boost::asio::buffer(bytes), ec);
    std::thread stopper([&stop] {
        std::this_thread::sleep_for(50ms);
        stop.raise();
    });
    const auto started = Clock::now();
    EXPECT_EQ(stream.wait_readable(Clock::now() + 10s, stop), SocketStream::Wait::stopped);
    EXPECT_LT(Clock::now() - started, 5s);
    stopper.join();
}

TEST_F(SocketPair, ALingeringCloseShutsTheWriteSideAndDrainsWhatTheClientStillSends) {
    std::thread server([fd = server_fd_] {
        SocketStream stream(fd);
        stream.lingering_close();
    });
    // The client sees the end of the server's data, yet may still send (a pipelined request)
    // without a reset, until it closes itself.
    char byte;
    for (const auto until = Clock::now() + 2s; Clock::now() < until;) {
        if (::recv(client_, &byte, 1, MSG_DONTWAIT) == 0) {
            break;
        }
        std::this_thread::sleep_for(1ms);
    }
    EXPECT_EQ(::recv(client_, &byte, 1, MSG_DONTWAIT), 0) << "no end of stream from the server";
    client_sends(std::string(10000, 'r'));
    ::shutdown(client_, SHUT_WR);
    const auto started = Clock::now();
    server.join();
    EXPECT_LT(Clock::now() - started, 1s) << "the linger did not end with the client's close";
}

}  // namespace
}  // namespace mb::blocking
