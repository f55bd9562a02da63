#include "tests/tools/openloop/report.hpp"

#include <cstdio>

namespace mb::openloop {
namespace {

double ms(std::uint64_t us) { return static_cast<double>(us) / 1000; }

nlohmann::ordered_json latency_json(const Histogram& h) {
    nlohmann::ordered_json distribution = nlohmann::ordered_json::array();
    for (const auto& point : h.distribution()) {
        distribution.push_back({{"percentile", point.percent},
                                {"ms", ms(point.value_us)},
                                {"count", point.count_at_or_below}});
    }
    return {{"count", h.count()},
            {"min", ms(h.min())},
            {"mean", h.mean() / 1000},
            {"max", ms(h.max())},
            {"p50", ms(h.percentile(50))},
            {"p90", ms(h.percentile(90))},
            {"p99", ms(h.percentile(99))},
            {"p99_9", ms(h.percentile(99.9))},
            {"p99_99", ms(h.percentile(99.99))},
            {"distribution", distribution}};
}

double per_s(std::uint64_t count, double seconds) {
    return seconds > 0 ? static_cast<double>(count) / seconds : 0;
}

}  // namespace

std::uint64_t Counts::errors() const {
    std::uint64_t sum = 0;
    for (const std::uint64_t n : outcomes) sum += n;
    return sum - completed();
}

nlohmann::ordered_json to_json(const Options& options, const Results& results) {
    const Counts& c = results.counts;
    nlohmann::ordered_json errors;
    for (std::size_t i = 1; i < kOutcomeNames.size(); ++i) errors[kOutcomeNames[i]] = c.outcomes[i];
    return {
        {"tool", "openloop"},
        {"version", MODELBENCH_VERSION},
        {"url", options.target.url},
        {"rate_per_s", options.rate_per_s},
        {"arrivals", options.arrivals == Arrivals::uniform ? "uniform" : "poisson"},
        {"seed", options.seed},
        {"connection_mode", options.keepalive() ? "keep-alive" : "close"},
        {"connections", options.connections},
        {"max_in_flight", options.max_in_flight},
        {"max_pending", options.max_pending},
        {"timeout_s", static_cast<double>(options.timeout.count()) / 1000},
        {"duration_s", static_cast<double>(options.duration.count()) / 1000},
        {"elapsed_s", results.elapsed_s},
        {"requests",
         {{"scheduled", c.scheduled},
          {"sent", c.sent},
          {"completed", c.completed()},
          {"errors", c.errors()},
          {"not_sent", c.not_sent()}}},
        {"errors", errors},
        {"not_sent", {{"pending_cap", c.pending_cap}, {"expired", c.expired}}},
        {"sent_per_s", per_s(c.sent, results.elapsed_s)},
        {"completed_per_s", per_s(c.completed(), results.elapsed_s)},
        {"cpu_s", {{"user", results.cpu_user_s}, {"system", results.cpu_system_s}}},
        {"latency_ms",
         {{"corrected", latency_json(results.corrected)},
          {"uncorrected", latency_json(results.uncorrected)}}},
    };
}

std::string summary_line(const Results& r) {
    const Counts& c = r.counts;
    char line[400];
    std::snprintf(line, sizeof line,
                  "openloop: %.1f s, %.1f req/s completed (%llu of %llu scheduled), %llu errors, "
                  "%llu not sent; p99 %.2f ms corrected, %.2f ms uncorrected; max %.2f / %.2f ms; "
                  "CPU %.2f s",
                  r.elapsed_s, per_s(c.completed(), r.elapsed_s),
                  static_cast<unsigned long long>(c.completed()),
                  static_cast<unsigned long long>(c.scheduled),
                  static_cast<unsigned long long>(c.errors()),
                  static_cast<unsigned long long>(c.not_sent()), ms(r.corrected.percentile(99)),
                  ms(r.uncorrected.percentile(99)), ms(r.corrected.max()), ms(r.uncorrected.max()),
                  r.cpu_user_s + r.cpu_system_s);
    return line;
}

std::string progress_line(double seconds, const Counts& c, std::size_t in_flight,
                          std::size_t pending) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "openloop: %.0f s: %llu sent, %llu completed, %llu errors, %llu not sent; %zu "
                  "in flight, %zu waiting",
                  seconds, static_cast<unsigned long long>(c.sent),
                  static_cast<unsigned long long>(c.completed()),
                  static_cast<unsigned long long>(c.errors()),
                  static_cast<unsigned long long>(c.not_sent()), in_flight, pending);
    return line;
}

}  // namespace mb::openloop
