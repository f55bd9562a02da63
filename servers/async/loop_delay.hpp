// How late the event loop runs a timer due every kInterval: the time a callback waited behind
// others (a heavy request's computation), as Node.js's perf_hooks.monitorEventLoopDelay measures
// it. Counted since the server started, for /status.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdint>

namespace mb::async {

class LoopDelay {
  public:
    static constexpr std::chrono::milliseconds kInterval{10};  // Node.js's default resolution
    static constexpr unsigned kBinsPerMs = 10;                 // 0.1-ms bins
    static constexpr unsigned kBins = 1000 * kBinsPerMs;       // up to 1 s; the last holds beyond

    explicit LoopDelay(boost::asio::any_io_executor executor);

    void start();
    void stop();  // before the loop is let run out: a pending timer would keep it alive

    // A delay in ms, as the timer's callback would record it (tests).
    void record(double delay_ms);
    // {"samples", "mean_ms", "p50_ms", "p99_ms", "max_ms"}: a percentile is its bin's upper
    // edge (0.1 ms), or the max past the last bin.
    nlohmann::json status() const;

  private:
    void arm();
    double percentile_ms(double fraction) const;

    boost::asio::steady_timer timer_;
    std::chrono::steady_clock::time_point armed_at_;
    std::array<std::uint32_t, kBins> bins_{};
    std::uint64_t samples_ = 0;
    double sum_ms_ = 0.0;
    double max_ms_ = 0.0;
    bool running_ = false;
};

}  // namespace mb::async
