// The open loop: a timer wakes at each intended send time of the schedule and hands every
// request then due to a free connection (a kept one, or the room for a new one), or queues it
// until one is free (bounded by --max-pending; one more is counted, not sent). Each request's
// latency is recorded from its intended time and from its actual send. After the schedule the
// run waits for every request out; SIGINT or SIGTERM ends the schedule early. One io_context.
#pragma once

#include "tests/tools/openloop/exchange.hpp"
#include "tests/tools/openloop/options.hpp"
#include "tests/tools/openloop/report.hpp"
#include "tests/tools/openloop/schedule.hpp"

#include <boost/asio/signal_set.hpp>

#include <deque>
#include <memory>
#include <vector>

namespace mb::openloop {

class Generator {
  public:
    Generator(asio::io_context& io, const Options& options, const tcp::endpoint& endpoint);

    // Runs the io_context to the end of the run.
    Results run();

  private:
    void wait_for_next_arrival();
    void send_due();
    void dispatch(Clock::time_point intended);
    void start(Connection& connection, Clock::time_point intended);
    awaitable<void> request(Connection& connection, Clock::time_point intended);
    void release(Connection& connection);
    void report_progress();
    void finish_if_done();

    asio::io_context& io_;
    const Options& options_;
    RequestSettings settings_;
    Clock::time_point start_;
    // The end of the arrivals (a signal may bring it forward); the run lasts at least until it,
    // so that a rate over the run's time is the rate of its schedule.
    Clock::time_point schedule_end_;
    Schedule schedule_;
    asio::steady_timer arrival_timer_;
    asio::steady_timer progress_timer_;
    asio::signal_set signals_;
    std::vector<std::unique_ptr<Connection>> connections_;
    std::vector<Connection*> free_;
    std::deque<Clock::time_point> pending_;  // intended times of the requests waiting
    std::size_t in_flight_ = 0;
    bool stopped_ = false;
    Results results_;
};

}  // namespace mb::openloop
