#include "common/status_counters.hpp"

#include "common/event_log.hpp"

namespace mb {

void StatusCounters::request_finished(unsigned status) {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    total_.fetch_add(1, std::memory_order_relaxed);
    const unsigned cls = status / 100;
    if (cls >= 1 && cls <= 5) {
        by_class_[cls - 1].fetch_add(1, std::memory_order_relaxed);
    }
}

nlohmann::json StatusCounters::to_json() const {
    const auto load = [](const auto& counter) { return counter.load(std::memory_order_relaxed); };
    const std::chrono::duration<double> uptime = std::chrono::steady_clock::now() - started_;
    return {
        {"uptime_s", uptime.count()},
        {"requests",
         {{"total", load(total_)},
          {"in_flight", load(in_flight_)},
          {"1xx", load(by_class_[0])},
          {"2xx", load(by_class_[1])},
          {"3xx", load(by_class_[2])},
          {"4xx", load(by_class_[3])},
          {"5xx", load(by_class_[4])}}},
        {"connections",
         {{"accepted", load(connections_accepted)}, {"open", load(connections_open)}}},
        {"database",
         {{"connects", load(db_connects)},
          {"connect_errors", load(db_connect_errors)},
          {"query_errors", load(db_query_errors)},
          {"timeouts", load(db_timeouts)}}},
        {"log", {{"dropped_lines", dropped_log_lines()}}},
    };
}

}  // namespace mb
