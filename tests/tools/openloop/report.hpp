// What a run counted and measured, and how it is reported: the JSON document (stdout or --json),
// the summary line and the progress lines (stderr).
//
// The JSON document's fields (times in milliseconds unless the name says otherwise):
//   tool "openloop", version, url, rate_per_s (asked), arrivals "uniform"|"poisson", seed,
//   connection_mode "keep-alive"|"close", connections (the pool; 0 with close),
//   max_in_flight, max_pending, timeout_s, duration_s (asked), elapsed_s (from the start to the
//   last answer or give-up, at least to the end of the arrivals), requests: {scheduled, sent,
//   completed, errors, not_sent}, errors: {connect, write, read, timeout, status (non-2xx),
//   too_large}, not_sent: {pending_cap (the waiting queue was full), expired (its deadline passed
//   while it waited for a connection)}, sent_per_s and completed_per_s (over elapsed_s), cpu_s:
//   {user, system} of openloop itself (getrusage), latency_ms: {corrected (from the intended send
//   time), uncorrected (from the actual send: the start of its connect, or of its write on a kept
//   connection)}, each {count, min, mean, max, p50, p90, p99, p99_9, p99_99, distribution:
//   [{percentile, ms, count}] (count: requests at or below ms)}.
// scheduled = sent + not_sent; sent = completed + errors. Latency counts every request that got
// a whole response, 2xx or not; a request that failed otherwise has none.
#pragma once

#include "tests/tools/openloop/exchange.hpp"
#include "tests/tools/openloop/histogram.hpp"
#include "tests/tools/openloop/options.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace mb::openloop {

struct Counts {
    std::uint64_t scheduled = 0;
    std::uint64_t sent = 0;
    std::array<std::uint64_t, kOutcomeNames.size()> outcomes{};  // of the sent, by Outcome
    std::uint64_t pending_cap = 0;
    std::uint64_t expired = 0;

    void count(Outcome outcome) { ++outcomes[static_cast<std::size_t>(outcome)]; }
    std::uint64_t of(Outcome outcome) const { return outcomes[static_cast<std::size_t>(outcome)]; }
    std::uint64_t completed() const { return of(Outcome::ok); }
    std::uint64_t errors() const;
    std::uint64_t not_sent() const { return pending_cap + expired; }
};

struct Results {
    Counts counts;
    Histogram corrected;
    Histogram uncorrected;
    double elapsed_s = 0;
    double cpu_user_s = 0;
    double cpu_system_s = 0;
};

nlohmann::ordered_json to_json(const Options& options, const Results& results);
// One line for a person: rates, errors, the corrected and uncorrected p99 and max.
std::string summary_line(const Results& results);
// A line during the run: where it is, what is out and waiting.
std::string progress_line(double seconds, const Counts& counts, std::size_t in_flight,
                          std::size_t pending);

}  // namespace mb::openloop
