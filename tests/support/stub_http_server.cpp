#include "tests/support/stub_http_server.hpp"

#include <memory>
#include <string>
#include <thread>

namespace mb::test {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

class StubHttpConnection : public std::enable_shared_from_this<StubHttpConnection> {
  public:
    StubHttpConnection(tcp::socket socket, StubHttpServer& server)
        : socket_(std::move(socket)), server_(server) {}

    void read() {
        asio::async_read_until(
            socket_, buffer_, "\r\n\r\n",
            [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                if (!ec) self->answer(n);
            });
    }

  private:
    void answer(std::size_t head_size) {
        const std::string head(asio::buffers_begin(buffer_.data()),
                               asio::buffers_begin(buffer_.data()) + head_size);
        buffer_.consume(head_size);
        server_.on_request();
        const bool missing = head.rfind("GET /missing ", 0) == 0;
        const bool asked_to_close = head.find("\r\nConnection: close\r\n") != std::string::npos;
        const bool close = asked_to_close || server_.closes_after_each_answer();
        const std::string body = missing                             ? "no"
                                 : head.rfind("GET /large ", 0) == 0 ? std::string(100000, 'x')
                                                                     : "ok";
        response_ = std::string(missing ? "HTTP/1.1 404 Not Found" : "HTTP/1.1 200 OK") +
                    "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
                    (asked_to_close ? "Connection: close\r\n" : "") + "\r\n" + body;
        asio::async_write(
            socket_, asio::buffer(response_),
            [self = shared_from_this(), close](boost::system::error_code ec, std::size_t) {
                if (ec) return;
                if (close) {
                    self->socket_.shutdown(tcp::socket::shutdown_send, ec);
                } else {
                    self->read();
                }
            });
    }

    tcp::socket socket_;
    StubHttpServer& server_;
    asio::streambuf buffer_;
    std::string response_;
};

StubHttpServer::StubHttpServer(StubBehaviour behaviour)
    : behaviour_(behaviour), server_([this](tcp::socket socket) {
          ++connections_;
          std::make_shared<StubHttpConnection>(std::move(socket), *this)->read();
      }) {}

void StubHttpServer::on_request() {
    if (++requests_ == behaviour_.stall_before_request) {
        std::this_thread::sleep_for(behaviour_.stall);
    }
}

}  // namespace mb::test
