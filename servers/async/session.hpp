// One client connection, served as a coroutine on the event loop: wait for a request (the first
// within --timeout, later ones within --keepalive-timeout), read it with the contract's limits,
// answer it, repeat while the connection is kept alive. Every wait is an Asio operation with a
// tcp_stream deadline, so a slow or silent client costs a few hundred bytes, never a thread.
#pragma once

#include "common/config.hpp"
#include "common/request_handler.hpp"
#include "common/request_parser.hpp"
#include "servers/async/coro.hpp"
#include "servers/async/endpoints.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <string>

namespace mb::async {

class Session {
  public:
    Session(asio::ip::tcp::socket socket, RequestHandler& handler, Endpoints& endpoints,
            const HttpConfig& http);

    // Serves requests until the client leaves, a timeout, an error or stop(). Never throws for
    // network errors: they end the connection, which is all they can do.
    awaitable<void> run();

    // Shutdown: an idle connection is closed now, a busy one after its current response.
    void stop();
    // Closes the connection now, whatever it is doing (shutdown grace period over).
    void abort();

    bool idle() const { return idle_; }

  private:
    // True when request bytes are buffered; false when the client left, stayed silent past
    // timeout, or stop() came first.
    awaitable<bool> wait_for_request(std::chrono::milliseconds timeout);
    // Answers one request; true when the connection stays open for the next.
    awaitable<bool> answer(const Request& request);
    // Answers a request the parser rejected (400/413/414/431) and closes.
    awaitable<void> reject(const error_code& ec, const RequestParser& parser);
    // Head and body in one gather write, within --timeout.
    awaitable<error_code> send(const Response& response);
    // Half-closes, then discards what the client still sends for a moment, so that it reads
    // our error response instead of a reset.
    awaitable<void> lingering_close();

    boost::beast::tcp_stream stream_;
    boost::beast::flat_buffer buffer_;
    std::string head_;  // the response head being sent; its capacity serves every response
    std::string peer_;  // the client address, formatted only for the access log
    RequestHandler& handler_;
    Endpoints& endpoints_;
    const HttpConfig& http_;
    bool idle_ = false;
    bool stopping_ = false;
};

}  // namespace mb::async
