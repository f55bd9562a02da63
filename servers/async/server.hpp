// One event-loop process: the whole async model on one io_context run by one thread. The async
// server is one Server, or in cluster mode one in each worker process.
#pragma once

#include "common/config.hpp"
#include "common/exchange.hpp"
#include "common/exchange_log.hpp"
#include "common/pages/pages.hpp"
#include "servers/async/connection_pool.hpp"
#include "servers/async/listener.hpp"
#include "servers/async/loop_delay.hpp"
#include "servers/async/model_work.hpp"
#include "servers/async/options.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

namespace mb::async {

// Where the server stands in the process tree: alone, or one of a cluster's worker processes.
struct ServerPlan {
    unsigned index = 0;    // 0-based, for /status
    unsigned workers = 1;  // processes serving the port
    int ready_fd = -1;     // cluster: write a byte here once listening (the parent announces)
};

class Server {
  public:
    // Listens on endpoint (throws system_error when it cannot). In cluster mode the port is
    // shared with the sibling worker processes through SO_REUSEPORT.
    Server(const HttpConfig& http, const DbConfig& db, const CpuCostConfig& cost,
           const AsyncOptions& options, const asio::ip::tcp::endpoint& endpoint,
           const ServerPlan& plan);

    // Announces readiness, then serves until SIGINT/SIGTERM and the graceful stop that follows
    // (a second signal closes everything at once). Returns the exit code.
    int run();

  private:
    void announce();
    void wait_for_signal();
    void begin_stop(int signal_number);
    void abort_all();
    void finish();
    nlohmann::json status() const;

    const HttpConfig& http_;
    const ServerPlan plan_;
    // One thread does everything: no locks in the scheduler and reactor, as libuv has none.
    asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE};
    const Pages pages_;
    ExchangeLog log_;
    CpuCost cost_;
    ExchangeContext exchanges_;
    ConnectionPool pool_;
    ModelWork model_work_;
    Listener listener_;
    LoopDelay loop_delay_;
    asio::signal_set signals_;
    asio::steady_timer grace_;
    bool stopping_ = false;
};

}  // namespace mb::async
