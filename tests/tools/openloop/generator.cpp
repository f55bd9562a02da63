#include "tests/tools/openloop/generator.hpp"

#include "common/process_usage.hpp"

#include <boost/asio/detached.hpp>

#include <algorithm>
#include <iostream>

namespace mb::openloop {
namespace {

std::string request_text(const Options& options) {
    const Target& t = options.target;
    return "GET " + t.path + " HTTP/1.1\r\nHost: " + t.host +
           (t.port == 80 ? "" : ":" + std::to_string(t.port)) + "\r\nUser-Agent: openloop\r\n" +
           (options.keepalive() ? "" : "Connection: close\r\n") + "\r\n";
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

std::uint64_t microseconds_between(Clock::time_point from, Clock::time_point to) {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
    return us > 0 ? static_cast<std::uint64_t>(us) : 0;
}

}  // namespace

Generator::Generator(asio::io_context& io, const Options& options, const tcp::endpoint& endpoint)
    : io_(io),
      options_(options),
      settings_{endpoint, request_text(options), options.keepalive(),
                std::size_t{options.max_response_kib} * 1024},
      start_(Clock::now()),
      schedule_end_(start_ + options.duration),
      schedule_(options.arrivals, options.rate_per_s, options.seed, start_, options.duration),
      arrival_timer_(io),
      progress_timer_(io),
      signals_(io, SIGINT, SIGTERM) {
    for (unsigned i = 0; i < options.slots(); ++i) {
        connections_.push_back(std::make_unique<Connection>(io));
        free_.push_back(connections_.back().get());
    }
}

Results Generator::run() {
    signals_.async_wait([this](error_code ec, int) {
        if (ec) return;
        std::cerr << "openloop: stopped by a signal; waiting for the requests out\n";
        stopped_ = true;
        schedule_end_ = std::min(schedule_end_, Clock::now());
        arrival_timer_.cancel();
        finish_if_done();
    });
    report_progress();
    wait_for_next_arrival();
    io_.run();
    results_.elapsed_s = seconds_between(start_, std::max(Clock::now(), schedule_end_));
    results_.counts.scheduled = schedule_.scheduled();
    const ProcessUsage usage = own_usage();
    results_.cpu_user_s = usage.user_s;
    results_.cpu_system_s = usage.system_s;
    return results_;
}

void Generator::wait_for_next_arrival() {
    if (stopped_ || schedule_.done()) {
        finish_if_done();
        return;
    }
    arrival_timer_.expires_at(schedule_.next());
    arrival_timer_.async_wait([this](error_code ec) {
        if (!ec) send_due();
    });
}

// Every arrival due by now goes out with its own intended time: a late wake-up delays them but
// neither drops nor reschedules them.
void Generator::send_due() {
    const auto now = Clock::now();
    while (!schedule_.done() && schedule_.next() <= now) {
        dispatch(schedule_.next());
        schedule_.advance();
    }
    wait_for_next_arrival();
}

void Generator::dispatch(Clock::time_point intended) {
    if (!free_.empty()) {
        Connection& connection = *free_.back();
        free_.pop_back();
        start(connection, intended);
    } else if (pending_.size() < options_.max_pending) {
        pending_.push_back(intended);
    } else {
        ++results_.counts.pending_cap;
    }
}

void Generator::start(Connection& connection, Clock::time_point intended) {
    ++in_flight_;
    asio::co_spawn(io_, request(connection, intended), asio::detached);
}

awaitable<void> Generator::request(Connection& connection, Clock::time_point intended) {
    const auto sent = Clock::now();
    ++results_.counts.sent;
    const Outcome outcome = co_await exchange(connection, settings_, intended + options_.timeout);
    const auto answered = Clock::now();
    results_.counts.count(outcome);
    if (outcome == Outcome::ok || outcome == Outcome::status) {
        results_.corrected.record(microseconds_between(intended, answered));
        results_.uncorrected.record(microseconds_between(sent, answered));
    }
    --in_flight_;
    release(connection);
}

// The connection goes to the oldest request still within its deadline.
void Generator::release(Connection& connection) {
    const auto now = Clock::now();
    while (!pending_.empty()) {
        const auto intended = pending_.front();
        pending_.pop_front();
        if (intended + options_.timeout <= now) {
            ++results_.counts.expired;
            continue;
        }
        start(connection, intended);
        return;
    }
    free_.push_back(&connection);
    finish_if_done();
}

void Generator::report_progress() {
    if (options_.progress.count() == 0) return;
    progress_timer_.expires_after(options_.progress);
    progress_timer_.async_wait([this](error_code ec) {
        if (ec) return;
        std::cerr << progress_line(seconds_between(start_, Clock::now()), results_.counts,
                                   in_flight_, pending_.size())
                  << std::endl;
        report_progress();
    });
}

void Generator::finish_if_done() {
    if ((stopped_ || schedule_.done()) && in_flight_ == 0 && pending_.empty()) {
        progress_timer_.cancel();
        error_code ignored;
        signals_.cancel(ignored);
    }
}

}  // namespace mb::openloop
