// The /status counters both servers keep. Atomics: the blocking server updates them from many
// threads; relaxed order is enough for independent counters.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace mb {

class StatusCounters {
  public:
    using Counter = std::atomic<std::uint64_t>;

    StatusCounters() : started_(std::chrono::steady_clock::now()) {}

    void request_started() { in_flight_.fetch_add(1, std::memory_order_relaxed); }
    // status: the HTTP status code of the response sent (or given up on).
    void request_finished(unsigned status);

    Counter connections_accepted{0};
    std::atomic<std::int64_t> connections_open{0};
    Counter db_connects{0};
    Counter db_connect_errors{0};
    Counter db_query_errors{0};
    Counter db_timeouts{0};

    // uptime, requests (total, by status class, in flight), connections, database figures and
    // the stderr lines dropped.
    nlohmann::json to_json() const;

  private:
    std::chrono::steady_clock::time_point started_;
    std::atomic<std::int64_t> in_flight_{0};
    Counter total_{0};
    std::array<Counter, 5> by_class_{};  // 1xx .. 5xx
};

}  // namespace mb
