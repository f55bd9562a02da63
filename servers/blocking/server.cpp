#include "servers/blocking/server.hpp"

#include <unistd.h>

namespace mb::blocking {
namespace {

ServerIdentity identity() {
    return {"blocking-server", "blocking",
            "blocking: a thread per connection, blocking MySQL (Apache+PHP model)"};
}

}  // namespace

Server::Server(const HttpConfig& http, const DbConfig& db, const BlockingOptions& options)
    : http_(http),
      db_(db),
      options_(options),
      handler_(identity(), http_, [this] { return model_status(); }),
      listener_(http_.listen, http_.backlog),
      workers_(options_.max_workers, options_.worker_stack_bytes()),
      settings_{.handler = handler_,
                .http = http_,
                .db = db_,
                .db_connection = options_.db_connection,
                .db_cache = db_cache_,
                .max_keepalive_requests = options_.max_keepalive_requests,
                .stop = stop_,
                .hand_over_worker = [this] { return hand_over_worker(); }} {}

Server::~Server() {
    if (acceptor_.joinable()) {
        stop();
        acceptor_.join();
    }
}

void Server::start() {
    acceptor_ = std::thread([this] { accept_loop(); });
}

void Server::stop() {
    stop_.raise();
    workers_.release_waiters();
}

bool Server::wait(std::chrono::steady_clock::time_point deadline) {
    if (acceptor_.joinable()) {
        acceptor_.join();
    }
    listener_.close();
    return workers_.join_all(deadline) == 0;
}

void Server::accept_loop() {
    while (workers_.wait_for_slot()) {
        auto accepted = listener_.accept(stop_, handler_.logs_access());
        if (!accepted) {
            return;
        }
        handler_.counters().connections_accepted.fetch_add(1, std::memory_order_relaxed);
        const int fd = accepted->fd;
        const bool started = workers_.start(
            [this, fd, peer = std::move(accepted->peer)]() mutable { serve(fd, std::move(peer)); });
        if (!started) {
            ::close(fd);
        }
    }
}

void Server::serve(int fd, std::string peer) {
    auto& open = handler_.counters().connections_open;
    open.fetch_add(1, std::memory_order_relaxed);
    Connection(fd, std::move(peer), settings_).run();
    open.fetch_sub(1, std::memory_order_relaxed);
}

bool Server::hand_over_worker() {
    if (!workers_.at_cap() || listener_.waiting() == 0) {
        return false;
    }
    handovers_.fetch_add(1, std::memory_order_relaxed);
    return true;
}

nlohmann::json Server::model_status() const {
    const WorkerThreads::Stats workers = workers_.stats();
    return {
        {"live_workers", workers.serving},
        {"worker_threads", workers.threads},
        {"peak_workers", workers.peak},
        {"max_workers", options_.max_workers},
        {"max_keepalive_requests", options_.max_keepalive_requests},
        {"accept_waits_at_cap", workers.waits_at_cap},
        {"keepalive_handovers", handovers_.load(std::memory_order_relaxed)},
        {"db_connection", name_of(options_.db_connection)},
        {"idle_db_connections", db_cache_.idle()},
        {"worker_stack_kib", options_.worker_stack_kib},
    };
}

}  // namespace mb::blocking
