#include "servers/async/server.hpp"

#include "common/event_log.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <system_error>

namespace mb::async {

namespace {

ServerIdentity identity() {
    return {"async-server", "async",
            "async: one event-loop thread, non-blocking MySQL (Node.js model)"};
}

}  // namespace

Server::Server(const HttpConfig& http, const DbConfig& db, const CpuCostConfig& cost,
               const AsyncOptions& options, const asio::ip::tcp::endpoint& endpoint,
               const ServerPlan& plan)
    : http_(http),
      plan_(plan),
      pages_(identity()),
      log_(http.access_log),
      cost_(cost),
      exchanges_{pages_,
                 log_,
                 cost_,
                 http.keepalive,
                 [this] { return status(); },
                 plan.workers > 1 ? ::getppid() : ::getpid()},
      pool_(io_.get_executor(), db, options.db_pool, options.db_queue_limit,
            options.db_queue_timeout, log_.counters()),
      model_work_(io_.get_executor(), pages_, log_, cost_, pool_, options.max_pending_tasks),
      listener_(io_, endpoint, plan.workers > 1, http, exchanges_, model_work_),
      loop_delay_(io_.get_executor()),
      signals_(io_, SIGINT, SIGTERM),
      grace_(io_) {}

int Server::run() {
    listener_.start();
    loop_delay_.start();
    wait_for_signal();
    announce();
    try {
        io_.run();
    } catch (const std::exception& e) {
        // Only a bug gets here (the accept loop and every session handle their own errors).
        // Coroutines still suspended on the loop hold pool leases and sessions; destroying them
        // now would touch objects already gone, so leave without a teardown.
        log_event(std::string("fatal: ") + e.what());
        std::_Exit(1);
    }
    // Stopped. A further SIGINT/SIGTERM (impatient users, supervisors) must not turn a clean
    // exit into death by signal once the signal_set gives the default action back: block them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
    log_event("stopped");
    return 0;
}

void Server::announce() {
    if (plan_.ready_fd >= 0) {
        const char ready = 1;
        if (::write(plan_.ready_fd, &ready, 1) != 1) {
            throw std::system_error(errno, std::generic_category(), "telling the supervisor");
        }
        return;
    }
    std::cout << "listening on " << listen_url({http_.listen.host, listener_.port()}) << std::endl;
}

void Server::wait_for_signal() {
    signals_.async_wait([this](const error_code& ec, int signal_number) {
        if (ec) {
            return;  // finish() cancelled the wait
        }
        if (!stopping_) {
            begin_stop(signal_number);
            wait_for_signal();
        } else {
            log_event("second signal: closing every connection now");
            abort_all();
        }
    });
}

void Server::begin_stop(int signal_number) {
    stopping_ = true;
    log_event(std::string(signal_number == SIGINT ? "SIGINT" : "SIGTERM") +
              ": stopping; requests in flight may finish");
    model_work_.cancel_pending_tasks();
    loop_delay_.stop();
    grace_.expires_after(http_.io_timeout);
    grace_.async_wait([this](const error_code& ec) {
        if (!ec) {
            log_event("connections still busy after --timeout; closing them");
            abort_all();
        }
    });
    listener_.stop([this] { finish(); });
}

void Server::abort_all() {
    listener_.abort();
    pool_.cancel_all();
}

void Server::finish() {
    grace_.cancel();
    signals_.cancel();
    // The last work of the loop: a polite goodbye on each open database connection.
    asio::co_spawn(io_, pool_.close(), [](std::exception_ptr) {});
}

nlohmann::json Server::status() const {
    return {
        {"event_loop_threads", 1},
        {"workers", plan_.workers},
        {"worker", plan_.index},
        {"connections", listener_.status()},
        {"pool", pool_.status()},
        {"pending_task_twos", model_work_.pending_tasks()},
        {"event_loop_delay", loop_delay_.status()},
    };
}

}  // namespace mb::async
