// The blocking server: an acceptor thread that hands every accepted connection to a thread of the
// chosen lifecycle (a new one, or a pre-started one; at most --max-workers), and an orderly stop.
#pragma once

#include "common/config.hpp"
#include "common/exchange.hpp"
#include "common/exchange_log.hpp"
#include "common/pages/pages.hpp"
#include "servers/blocking/connection.hpp"
#include "servers/blocking/listener.hpp"
#include "servers/blocking/options.hpp"
#include "servers/blocking/stop_signal.hpp"
#include "servers/blocking/thread_lifecycle.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace mb::blocking {

class Server {
  public:
    // Listens at once. Throws std::runtime_error when it cannot listen or open the access log.
    Server(const HttpConfig& http, const DbConfig& db, const CpuCostConfig& cost,
           const BlockingOptions& options);
    ~Server();

    std::string url() const { return listen_url(listener_.bound()); }

    void start();  // starts the acceptor thread
    // Stops accepting and wakes idle connections so they close; requests in flight go on.
    void stop();
    // After stop(): waits until every connection has ended or deadline passed; false when some
    // are still busy (their threads still run and the caller must end the process).
    bool wait(std::chrono::steady_clock::time_point deadline);

  private:
    void accept_loop();
    void serve(int fd, std::string peer);
    // No thread could be started for the connection: 503 with Retry-After, then close.
    void refuse(int fd, std::string_view peer);
    nlohmann::json model_status() const;
    bool hand_over_thread();

    const HttpConfig http_;
    const DbConfig db_;
    const BlockingOptions options_;
    StopSignal stop_;
    const Pages pages_;
    ExchangeLog log_;
    CpuCost cost_;
    ExchangeContext exchanges_;
    Listener listener_;
    ConnectionCache db_cache_;
    const std::unique_ptr<ThreadLifecycle> threads_;
    std::atomic<std::uint64_t> handovers_{0};
    const ConnectionSettings settings_;
    std::thread acceptor_;
};

}  // namespace mb::blocking
