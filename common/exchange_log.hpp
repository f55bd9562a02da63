// What the exchanges of a server leave behind: the /status counters, the access log (Common Log
// Format) and the /tasks demo's lines on stderr. Thread-safe: the blocking server's connection
// threads share one.
#pragma once

#include "common/access_log.hpp"
#include "common/status_counters.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace mb {

class ExchangeLog {
  public:
    // access_log: a file to append to, empty for none. Throws std::runtime_error when it cannot
    // be opened.
    explicit ExchangeLog(const std::string& access_log);

    StatusCounters& counters() { return counters_; }
    // The client's address is only needed for the access log: formatting it costs a sprintf.
    bool logs_access() const { return access_log_ != nullptr; }

    void started() { counters_.request_started(); }
    // status: the HTTP status sent, or 499 when the client left before an answer.
    void finished(std::string_view peer, std::string_view request_line, unsigned status,
                  std::size_t body_bytes);

    // The /tasks demo: a number for each demo, and its console line "<UTC time> tasks #<id>:
    // <task>" on stderr (event_log.hpp: never blocking, dropped when stderr cannot take it).
    std::uint64_t next_task_demo() { return next_task_demo_.fetch_add(1) + 1; }
    static void task(std::uint64_t demo, std::string_view task);

  private:
    StatusCounters counters_;
    std::unique_ptr<AccessLog> access_log_;
    std::atomic<std::uint64_t> next_task_demo_{0};
};

}  // namespace mb
