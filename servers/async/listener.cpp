#include "servers/async/listener.hpp"

#include "common/event_log.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace mb::async {
namespace {

using tcp = asio::ip::tcp;

// After a failed accept (out of descriptors, most likely) the loop waits this long before
// trying again instead of spinning on the error.
constexpr auto kAcceptRetryPause = std::chrono::milliseconds(100);

}  // namespace

std::string to_string(const tcp::endpoint& endpoint) {
    return listen_url({endpoint.address().to_string(), endpoint.port()});
}

tcp::endpoint resolve_listen_address(const ListenAddress& address) {
    asio::io_context io;
    tcp::resolver resolver(io);
    const auto found = resolver.resolve(address.host, std::to_string(address.port),
                                        tcp::resolver::passive | tcp::resolver::numeric_service);
    return found.begin()->endpoint();
}

Listener::Listener(asio::io_context& io, const tcp::endpoint& endpoint, bool reuse_port,
                   const HttpConfig& http, ExchangeContext& exchanges, ModelWork& model_work)
    : acceptor_(io),
      accept_pause_(io),
      http_(http),
      exchanges_(exchanges),
      model_work_(model_work) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    // Each response goes out in one gather write: Nagle would only hold back its last segment.
    // Set once here: Linux gives every accepted socket the listening socket's TCP_NODELAY.
    acceptor_.set_option(tcp::no_delay(true));
    if (reuse_port) {
        const int on = 1;
        if (::setsockopt(acceptor_.native_handle(), SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) !=
            0) {
            throw boost::system::system_error(errno, boost::system::system_category(),
                                              "setsockopt(SO_REUSEPORT)");
        }
    }
    error_code ec;
    acceptor_.bind(endpoint, ec);
    if (!ec) {
        acceptor_.listen(http.backlog, ec);
    }
    if (ec) {
        throw boost::system::system_error(ec, "cannot listen on " + to_string(endpoint));
    }
}

void Listener::start() {
    asio::co_spawn(acceptor_.get_executor(), accept_loop(), [](std::exception_ptr e) {
        if (e) {
            std::rethrow_exception(e);  // out of io_context::run(): see Server::run()
        }
    });
}

void Listener::stop(std::function<void()> on_drained) {
    stopping_ = true;
    on_drained_ = std::move(on_drained);
    error_code ignored;
    acceptor_.close(ignored);
    accept_pause_.cancel();
    for (Connection* connection : connections_) {
        connection->stop();
    }
    // Posted, so that a connection accepted just before the stop registers first.
    asio::post(acceptor_.get_executor(), [this] { drained_check(); });
}

void Listener::abort() {
    for (Connection* connection : connections_) {
        connection->abort();
    }
}

nlohmann::json Listener::status() const {
    const auto idle =
        std::count_if(connections_.begin(), connections_.end(),
                      [](const Connection* connection) { return connection->idle(); });
    return {{"open", connections_.size()}, {"idle", idle}};
}

awaitable<void> Listener::accept_loop() {
    while (acceptor_.is_open()) {
        error_code ec;
        tcp::socket socket = co_await acceptor_.async_accept(into(ec));
        if (ec) {
            if (!acceptor_.is_open()) {
                break;
            }
            log_event("accept failed: " + ec.message());
            accept_pause_.expires_after(kAcceptRetryPause);
            co_await accept_pause_.async_wait(into(ec));
            continue;
        }
        exchanges_.log.counters().connections_accepted.fetch_add(1, std::memory_order_relaxed);
        asio::co_spawn(acceptor_.get_executor(), serve(std::move(socket)), asio::detached);
    }
}

awaitable<void> Listener::serve(tcp::socket socket) {
    Connection connection(std::move(socket), exchanges_, model_work_, http_);
    const auto registered = connections_.insert(connections_.end(), &connection);
    auto& open = exchanges_.log.counters().connections_open;
    open.fetch_add(1, std::memory_order_relaxed);
    if (stopping_) {
        connection.stop();
    }
    try {
        co_await connection.run();
    } catch (const std::exception& e) {
        log_event(std::string("connection ended by an error: ") + e.what());
    }
    open.fetch_sub(1, std::memory_order_relaxed);
    connections_.erase(registered);
    if (stopping_) {
        drained_check();
    }
}

void Listener::drained_check() {
    if (connections_.empty() && on_drained_) {
        auto drained = std::move(on_drained_);
        on_drained_ = nullptr;
        drained();
    }
}

}  // namespace mb::async
