// A TCP echo server on 127.0.0.1 for tests of network tools: one thread runs an event loop that
// writes back every byte each connection sends (reading again once the echo is written) and
// shuts its side down after the client's FIN.
#pragma once

#include <boost/asio.hpp>

#include <cstdint>
#include <thread>

namespace mb::test {

class EchoServer {
  public:
    EchoServer();  // listens on a free port
    ~EchoServer();
    EchoServer(const EchoServer&) = delete;
    EchoServer& operator=(const EchoServer&) = delete;

    std::uint16_t port() const { return port_; }

  private:
    void accept();

    boost::asio::io_context io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::uint16_t port_ = 0;
    std::thread thread_;
};

// A connected TCP socket to 127.0.0.1:port with TCP_NODELAY; throws std::runtime_error.
int connect_loopback(std::uint16_t port);
// A listening TCP socket on a free port of 127.0.0.1, which it stores in port; throws
// std::runtime_error.
int listen_loopback(std::uint16_t& port);

}  // namespace mb::test
