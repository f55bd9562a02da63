// One event-loop process: the whole async model on one io_context run by one thread. The
// server is a single Worker, or in cluster mode each worker process runs one.
#pragma once

#include "common/config.hpp"
#include "common/request_handler.hpp"
#include "servers/async/async_options.hpp"
#include "servers/async/db/connection_pool.hpp"
#include "servers/async/endpoints.hpp"
#include "servers/async/server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

namespace mb::async {

// Where a worker stands in the process tree.
struct WorkerPlan {
    unsigned index = 0;    // 0-based, for /status
    unsigned workers = 1;  // processes serving the port
    int ready_fd = -1;     // cluster: write a byte here once listening (the parent announces)
};

class Worker {
  public:
    // Listens on endpoint (throws system_error when it cannot). In cluster mode the port is
    // shared with the sibling workers through SO_REUSEPORT.
    Worker(const CommandLine& command_line, const AsyncOptions& options,
           const asio::ip::tcp::endpoint& endpoint, const WorkerPlan& plan);

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

    const CommandLine& command_line_;
    const WorkerPlan plan_;
    // One thread does everything: no locks in the scheduler and reactor, as libuv has none.
    asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE};
    RequestHandler handler_;
    ConnectionPool pool_;
    Endpoints endpoints_;
    Server server_;
    asio::signal_set signals_;
    asio::steady_timer grace_;
    bool stopping_ = false;
};

}  // namespace mb::async
