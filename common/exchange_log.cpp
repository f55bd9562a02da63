#include "common/exchange_log.hpp"

#include "common/event_log.hpp"

#include <sys/time.h>

#include <cstdio>
#include <ctime>

namespace mb {

ExchangeLog::ExchangeLog(const std::string& access_log) {
    if (!access_log.empty()) {
        access_log_ = std::make_unique<AccessLog>(access_log);
    }
}

void ExchangeLog::finished(std::string_view peer, std::string_view request_line, unsigned status,
                           std::size_t body_bytes) {
    counters_.request_finished(status);
    if (access_log_) {
        access_log_->write(peer, request_line, status, body_bytes);
    }
}

void ExchangeLog::task(std::uint64_t demo, std::string_view task) {
    timeval now{};
    gettimeofday(&now, nullptr);
    std::tm utc{};
    gmtime_r(&now.tv_sec, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", &utc);
    char line[128];
    std::snprintf(line, sizeof line, "%s.%03ld tasks #%llu: %.*s\n", stamp,
                  static_cast<long>(now.tv_usec / 1000), static_cast<unsigned long long>(demo),
                  static_cast<int>(task.size()), task.data());
    log_line(line);
}

}  // namespace mb
