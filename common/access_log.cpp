#include "common/access_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace mb {

AccessLog::AccessLog(const std::string& path)
    : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {
    if (fd_ < 0) {
        throw std::runtime_error("cannot open access log " + path + ": " + std::strerror(errno));
    }
}

AccessLog::~AccessLog() { ::close(fd_); }

std::string AccessLog::format(std::string_view peer, std::string_view request_line, unsigned status,
                              std::size_t body_bytes, std::time_t when) {
    std::tm utc{};
    gmtime_r(&when, &utc);
    char date[40];
    const std::size_t date_length =
        std::strftime(date, sizeof date, "[%d/%b/%Y:%H:%M:%S +0000]", &utc);
    std::string line;
    line.reserve(peer.size() + request_line.size() + 64);
    line.append(peer.empty() ? "-" : peer);
    line += " - - ";
    line.append(date, date_length);
    line += " \"";
    // Request lines come from the network: keep quotes and control bytes out of the log line.
    for (const char c : request_line) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\' || byte < 0x20 || byte == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            line += escaped;
        } else {
            line += c;
        }
    }
    line += "\" ";
    line += std::to_string(status);
    line += ' ';
    line += body_bytes == 0 ? std::string("-") : std::to_string(body_bytes);
    line += '\n';
    return line;
}

void AccessLog::write(std::string_view peer, std::string_view request_line, unsigned status,
                      std::size_t body_bytes) {
    const std::string line = format(peer, request_line, status, body_bytes, std::time(nullptr));
    // A failed log write must not fail the request; the result is deliberately ignored.
    [[maybe_unused]] const ssize_t written = ::write(fd_, line.data(), line.size());
}

}  // namespace mb
