#include "tests/support/echo_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace mb::test {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

class EchoConnection : public std::enable_shared_from_this<EchoConnection> {
  public:
    explicit EchoConnection(tcp::socket socket) : socket_(std::move(socket)) {}

    void read() {
        socket_.async_read_some(
            asio::buffer(buffer_),
            [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                if (ec == asio::error::eof) {
                    self->socket_.shutdown(tcp::socket::shutdown_send, ec);
                } else if (!ec) {
                    asio::async_write(self->socket_, asio::buffer(self->buffer_, n),
                                      [self](boost::system::error_code write_ec, std::size_t) {
                                          if (!write_ec) self->read();
                                      });
                }
            });
    }

  private:
    tcp::socket socket_;
    std::array<char, 64 * 1024> buffer_;
};

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

}  // namespace

int connect_loopback(std::uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in address = loopback(port);
    if (fd < 0 || connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        const std::string reason = std::strerror(errno);
        if (fd >= 0) close(fd);
        throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + ": " + reason);
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int listen_loopback(std::uint16_t& port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        listen(fd, 128) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        const std::string reason = std::strerror(errno);
        if (fd >= 0) close(fd);
        throw std::runtime_error("listen on 127.0.0.1: " + reason);
    }
    port = ntohs(address.sin_port);
    return fd;
}

LoopbackServer::LoopbackServer(Serve serve)
    : acceptor_(io_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)),
      port_(acceptor_.local_endpoint().port()),
      serve_(std::move(serve)) {
    accept();
    thread_ = std::thread([this] { io_.run(); });
}

LoopbackServer::~LoopbackServer() {
    io_.stop();
    thread_.join();
}

void LoopbackServer::accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
        if (!ec) {
            socket.set_option(tcp::no_delay(true), ec);
            serve_(std::move(socket));
        }
        accept();
    });
}

EchoServer::EchoServer()
    : server_([](tcp::socket socket) {
          std::make_shared<EchoConnection>(std::move(socket))->read();
      }) {}

}  // namespace mb::test
