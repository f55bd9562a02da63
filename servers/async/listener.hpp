// The listener: accepts connections on the event loop and runs a Connection coroutine for each;
// keeps track of them so that a stop can close the idle ones at once and let the busy ones
// finish their response. With reuse_port, the worker processes of a cluster each have one on
// the same port.
#pragma once

#include "common/config.hpp"
#include "common/coroutines.hpp"
#include "common/exchange.hpp"
#include "servers/async/connection.hpp"
#include "servers/async/model_work.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <list>
#include <string>

namespace mb::async {

// The endpoint --listen names; a host name is resolved here, before any event loop runs.
asio::ip::tcp::endpoint resolve_listen_address(const ListenAddress& address);
// "http://127.0.0.1:8082/", for messages.
std::string to_string(const asio::ip::tcp::endpoint& endpoint);

class Listener {
  public:
    // Binds and listens; with reuse_port, sibling worker processes may listen on the same port
    // (SO_REUSEPORT) and the kernel spreads connections over them. Throws system_error.
    Listener(asio::io_context& io, const asio::ip::tcp::endpoint& endpoint, bool reuse_port,
             const HttpConfig& http, ExchangeContext& exchanges, ModelWork& model_work);

    std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

    void start();
    // Stops accepting; idle connections close now, busy ones after their response. on_drained
    // runs (on the loop) once no connection is left.
    void stop(std::function<void()> on_drained);
    // Closes every connection now.
    void abort();

    // Connections open and how many of them wait idle for a request.
    nlohmann::json status() const;

  private:
    awaitable<void> accept_loop();
    awaitable<void> serve(asio::ip::tcp::socket socket);
    void drained_check();

    asio::ip::tcp::acceptor acceptor_;
    asio::steady_timer accept_pause_;
    const HttpConfig& http_;
    ExchangeContext& exchanges_;
    ModelWork& model_work_;
    std::list<Connection*> connections_;
    bool stopping_ = false;
    std::function<void()> on_drained_;
};

}  // namespace mb::async
