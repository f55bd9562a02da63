#include "servers/async/log.hpp"

#include <unistd.h>

#include <string>

namespace mb::async {

void log_event(std::string_view message) {
    std::string line = "async-server[" + std::to_string(::getpid()) + "]: ";
    line += message;
    line += '\n';
    // Best effort: a log line that cannot be written is not worth failing a request for.
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace mb::async
