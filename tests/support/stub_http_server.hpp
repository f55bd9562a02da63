// An HTTP/1.1 server on 127.0.0.1 for tests of load tools: one thread answers every GET with
// 200 "ok" (404 for /missing, 100,000 bytes for /large) and keeps the connection unless the
// request says Connection: close.
#pragma once

#include "tests/support/echo_server.hpp"

#include <boost/asio.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace mb::test {

// What the stub does besides answering: stall once, its thread asleep for stall before it
// answers request number stall_before_request (1-based; 0: never), like a server in a long pause;
// close every connection after its answer without saying so, like a server whose idle timeout
// ends a kept connection just when the client sends again.
struct StubBehaviour {
    std::uint64_t stall_before_request = 0;
    std::chrono::milliseconds stall{0};
    bool close_after_each_answer = false;
};

class StubHttpServer {
  public:
    explicit StubHttpServer(StubBehaviour behaviour = {});  // listens on a free port

    std::uint16_t port() const { return server_.port(); }
    std::uint64_t connections() const { return connections_; }

  private:
    friend class StubHttpConnection;
    // Called on the server's thread once a request's head has arrived.
    void on_request();
    bool closes_after_each_answer() const { return behaviour_.close_after_each_answer; }

    StubBehaviour behaviour_;
    std::atomic<std::uint64_t> requests_{0};
    std::atomic<std::uint64_t> connections_{0};
    LoopbackServer server_;  // last: its loop stops before the rest goes
};

}  // namespace mb::test
