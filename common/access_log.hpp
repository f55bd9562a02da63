// Apache Common Log Format, one line per response:
//   127.0.0.1 - - [30/Nov/2026:01:30:00 +0000] "GET /html HTTP/1.0" 200 23456
#pragma once

#include <cstddef>
#include <ctime>
#include <string>
#include <string_view>

namespace mb {

class AccessLog {
  public:
    // Opens (appends to) path; throws std::runtime_error with the reason when it cannot.
    explicit AccessLog(const std::string& path);
    ~AccessLog();
    AccessLog(const AccessLog&) = delete;
    AccessLog& operator=(const AccessLog&) = delete;

    // Thread-safe: each line is one write(2) to an O_APPEND file, so lines never interleave.
    void write(std::string_view peer, std::string_view request_line, unsigned status,
               std::size_t body_bytes);

    static std::string format(std::string_view peer, std::string_view request_line, unsigned status,
                              std::size_t body_bytes, std::time_t when);

  private:
    int fd_ = -1;
};

}  // namespace mb
