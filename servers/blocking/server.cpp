#include "servers/blocking/server.hpp"

#include "servers/blocking/connection_threads.hpp"
#include "servers/blocking/prefork_threads.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace mb::blocking {
namespace {

ServerIdentity identity() {
    return {"blocking-server", "blocking",
            "blocking: a thread per connection, blocking MySQL (Apache+PHP model)"};
}

// Apache's parent process looks at its idle workers once a second.
constexpr std::chrono::seconds kPreforkMaintenanceInterval{1};

std::unique_ptr<ThreadLifecycle> make_lifecycle(const BlockingOptions& options) {
    if (options.lifecycle == Lifecycle::prefork) {
        return std::make_unique<PreforkThreads>(options.prefork, options.max_workers,
                                                options.worker_stack_bytes(),
                                                kPreforkMaintenanceInterval);
    }
    return std::make_unique<ConnectionThreads>(options.max_workers, options.worker_stack_bytes());
}

}  // namespace

Server::Server(const HttpConfig& http, const DbConfig& db, const CpuCostConfig& cost,
               const BlockingOptions& options)
    : http_(http),
      db_(db),
      options_(options),
      pages_(identity()),
      log_(http_.access_log),
      cost_(cost),
      exchanges_{pages_,    log_, cost_, http_.keepalive, [this] { return model_status(); },
                 ::getpid()},
      listener_(http_.listen, http_.backlog,
                std::chrono::ceil<std::chrono::seconds>(http_.io_timeout)),
      threads_(make_lifecycle(options_)),
      settings_{.exchanges = exchanges_,
                .http = http_,
                .db = db_,
                .db_connection = options_.db_connection,
                .db_cache = db_cache_,
                .max_keepalive_requests = options_.max_keepalive_requests,
                .stop = stop_,
                .hand_over_thread = [this] { return hand_over_thread(); }} {}

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
    threads_->stop();
}

bool Server::wait(std::chrono::steady_clock::time_point deadline) {
    if (acceptor_.joinable()) {
        acceptor_.join();
    }
    listener_.close();
    return threads_->join_all(deadline) == 0;
}

void Server::accept_loop() {
    while (threads_->wait_for_slot()) {
        auto accepted = listener_.accept(stop_, log_.logs_access());
        if (!accepted) {
            return;
        }
        log_.counters().connections_accepted.fetch_add(1, std::memory_order_relaxed);
        const int fd = accepted->fd;
        std::string peer = accepted->peer;
        const bool started = threads_->start(
            [this, fd, peer = std::move(accepted->peer)]() mutable { serve(fd, std::move(peer)); });
        if (!started) {
            refuse(fd, peer);
        }
    }
}

void Server::serve(int fd, std::string peer) {
    auto& open = log_.counters().connections_open;
    open.fetch_add(1, std::memory_order_relaxed);
    Connection(fd, std::move(peer), settings_).run();
    open.fetch_sub(1, std::memory_order_relaxed);
}

void Server::refuse(int fd, std::string_view peer) {
    // The acceptor must not wait on a client: one send that a fresh socket's empty buffer takes
    // whole, the request read as far as it arrived (closing with unread input sends a reset that
    // could destroy the answer), then close.
    const RequestParser nothing_read;
    Exchange exchange(exchanges_, nothing_read,
                      {http::status::service_unavailable, "no worker thread available"}, "-", peer);
    std::string head;
    const auto buffers = exchange.response().buffers(head);
    iovec parts[2] = {{const_cast<void*>(buffers[0].data()), buffers[0].size()},
                      {const_cast<void*>(buffers[1].data()), buffers[1].size()}};
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = 2;
    ::sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    char discard[4096];
    while (::recv(fd, discard, sizeof discard, MSG_DONTWAIT) > 0) {
    }
    ::close(fd);
}

bool Server::hand_over_thread() {
    if (!threads_->all_busy() || listener_.waiting() == 0) {
        return false;
    }
    handovers_.fetch_add(1, std::memory_order_relaxed);
    return true;
}

nlohmann::json Server::model_status() const {
    const ThreadLifecycle::Stats workers = threads_->stats();
    nlohmann::json status = {
        {"lifecycle", name_of(options_.lifecycle)},
        {"live_workers", workers.serving},
        {"idle_workers", workers.idle},
        {"worker_threads", workers.threads},
        {"peak_workers", workers.peak},
        {"max_workers", options_.max_workers},
        {"threads_started", workers.started},
        {"thread_start_failures", workers.start_failures},
        {"max_keepalive_requests", options_.max_keepalive_requests},
        {"accept_waits_at_cap", workers.waits_at_cap},
        {"keepalive_handovers", handovers_.load(std::memory_order_relaxed)},
        {"db_connection", name_of(options_.db_connection)},
        {"idle_db_connections", db_cache_.idle()},
        {"worker_stack_kib", options_.worker_stack_kib},
    };
    if (options_.lifecycle == Lifecycle::prefork) {
        status["start_servers"] = options_.prefork.start_servers;
        status["min_spare"] = options_.prefork.min_spare;
        status["max_spare"] = options_.prefork.max_spare;
    }
    return status;
}

}  // namespace mb::blocking
