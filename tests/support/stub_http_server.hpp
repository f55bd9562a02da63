// An HTTP/1.1 server on 127.0.0.1 for tests of load tools: one thread answers every GET with
// 200 "ok" (404 for /missing), keeps the connection unless the request says Connection: close,
// and can stall once, the whole thread asleep before it answers the n-th request, like a server
// in a long pause.
#pragma once

#include <boost/asio.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace mb::test {

// The server's one stall: its thread sleeps for duration before it answers request number
// before_request (1-based; 0: never).
struct Stall {
    std::uint64_t before_request = 0;
    std::chrono::milliseconds duration{0};
};

class StubHttpServer {
  public:
    explicit StubHttpServer(Stall stall = {});  // listens on a free port
    ~StubHttpServer();
    StubHttpServer(const StubHttpServer&) = delete;
    StubHttpServer& operator=(const StubHttpServer&) = delete;

    std::uint16_t port() const { return port_; }
    std::uint64_t requests() const { return requests_; }
    std::uint64_t connections() const { return connections_; }

  private:
    friend class StubHttpConnection;
    void accept();
    // Called on the server's thread once a request's head has arrived.
    void on_request();

    boost::asio::io_context io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::uint16_t port_ = 0;
    Stall stall_;
    std::atomic<std::uint64_t> requests_{0};
    std::atomic<std::uint64_t> connections_{0};
    std::thread thread_;
};

}  // namespace mb::test
