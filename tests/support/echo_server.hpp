// Servers on 127.0.0.1 for tests of network tools.
#pragma once

#include <boost/asio.hpp>

#include <cstdint>
#include <functional>
#include <thread>

namespace mb::test {

// Listens on a free port; its own thread runs an event loop that hands each accepted connection
// (TCP_NODELAY) to serve. Destroying it stops the loop and closes every connection.
class LoopbackServer {
  public:
    using Serve = std::function<void(boost::asio::ip::tcp::socket)>;

    explicit LoopbackServer(Serve serve);
    ~LoopbackServer();
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    std::uint16_t port() const { return port_; }

  private:
    void accept();

    boost::asio::io_context io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::uint16_t port_ = 0;
    Serve serve_;
    std::thread thread_;
};

// A TCP echo server: writes back every byte each connection sends (reading again once the echo
// is written) and shuts its side down after the client's FIN.
class EchoServer {
  public:
    EchoServer();

    std::uint16_t port() const { return server_.port(); }

  private:
    LoopbackServer server_;
};

// A connected TCP socket to 127.0.0.1:port with TCP_NODELAY; throws std::runtime_error.
int connect_loopback(std::uint16_t port);
// A listening TCP socket on a free port of 127.0.0.1, which it stores in port; throws
// std::runtime_error.
int listen_loopback(std::uint16_t& port);

}  // namespace mb::test
