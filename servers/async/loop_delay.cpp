#include "servers/async/loop_delay.hpp"

#include <algorithm>
#include <cmath>

namespace mb::async {

LoopDelay::LoopDelay(boost::asio::any_io_executor executor) : timer_(std::move(executor)) {}

void LoopDelay::start() {
    running_ = true;
    arm();
}

void LoopDelay::stop() {
    running_ = false;
    timer_.cancel();
}

void LoopDelay::arm() {
    armed_at_ = std::chrono::steady_clock::now();
    timer_.expires_at(armed_at_ + kInterval);
    timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || !running_) {
            return;
        }
        const std::chrono::duration<double, std::milli> waited =
            std::chrono::steady_clock::now() - armed_at_;
        record(std::max(0.0, waited.count() - static_cast<double>(kInterval.count())));
        arm();
    });
}

void LoopDelay::record(double delay_ms) {
    const auto bin = static_cast<std::size_t>(std::ceil(delay_ms * kBinsPerMs));
    ++bins_[std::min<std::size_t>(bin, kBins - 1)];
    ++samples_;
    sum_ms_ += delay_ms;
    max_ms_ = std::max(max_ms_, delay_ms);
}

double LoopDelay::percentile_ms(double fraction) const {
    const auto rank =
        static_cast<std::uint64_t>(std::ceil(fraction * static_cast<double>(samples_)));
    std::uint64_t seen = 0;
    for (std::size_t bin = 0; bin + 1 < kBins; ++bin) {
        seen += bins_[bin];
        if (seen >= rank) {
            return std::min(max_ms_, static_cast<double>(bin) / kBinsPerMs);
        }
    }
    return max_ms_;
}

nlohmann::json LoopDelay::status() const {
    if (samples_ == 0) {
        return {{"samples", 0}};
    }
    return {{"samples", samples_},
            {"mean_ms", sum_ms_ / static_cast<double>(samples_)},
            {"p50_ms", percentile_ms(0.50)},
            {"p99_ms", percentile_ms(0.99)},
            {"max_ms", max_ms_}};
}

}  // namespace mb::async
