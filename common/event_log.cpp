#include "common/event_log.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

namespace mb {
namespace {

// How a line reaches stderr without blocking, decided once from what stderr is.
class Stderr {
  public:
    Stderr() {
        struct stat what {};
        if (::fstat(STDERR_FILENO, &what) != 0) {
            return;
        }
        if (S_ISSOCK(what.st_mode)) {
            kind_ = Kind::socket;
        } else if (S_ISFIFO(what.st_mode) || S_ISCHR(what.st_mode)) {
            // A new open file description of the same pipe or terminal: O_NONBLOCK on it leaves
            // the one this process shares with its parent and siblings alone.
            fd_ = ::open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            kind_ = fd_ >= 0 ? Kind::nonblocking : Kind::polled;
            fd_ = fd_ >= 0 ? fd_ : STDERR_FILENO;
        }
    }

    // True when the whole line was written.
    bool write(std::string_view line) const {
        ssize_t n = -1;
        switch (kind_) {
            case Kind::file:
            case Kind::nonblocking:
                n = ::write(fd_, line.data(), line.size());
                break;
            case Kind::socket:
                n = ::send(fd_, line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
                break;
            case Kind::polled: {
                pollfd entry{fd_, POLLOUT, 0};
                if (::poll(&entry, 1, 0) == 1 && (entry.revents & POLLOUT) != 0) {
                    n = ::write(fd_, line.data(), line.size());
                }
                break;
            }
        }
        return n == static_cast<ssize_t>(line.size());
    }

  private:
    // file: a regular file (or unknown), which never waits for a reader.
    enum class Kind { file, nonblocking, socket, polled };
    Kind kind_ = Kind::file;
    int fd_ = STDERR_FILENO;
};

const Stderr& stderr_out() {
    static const Stderr out;
    return out;
}

std::atomic<std::uint64_t> dropped{0};
std::mutex program_mutex;
std::string program_name = "server";

}  // namespace

void set_event_log_program(std::string_view program) {
    const std::lock_guard lock(program_mutex);
    program_name = program;
}

void log_line(std::string_view line) {
    char text[PIPE_BUF];
    const std::size_t length = std::min(line.size(), sizeof text - 1);
    std::memcpy(text, line.data(), length);
    std::size_t end = length;
    if (end == 0 || text[end - 1] != '\n') {
        text[end++] = '\n';
    }
    if (!stderr_out().write({text, end})) {
        dropped.fetch_add(1, std::memory_order_relaxed);
    }
}

void log_event(std::string_view message) {
    std::string line;
    {
        const std::lock_guard lock(program_mutex);
        line = program_name;
    }
    line += '[';
    line += std::to_string(::getpid());
    line += "]: ";
    line += message;
    log_line(line);
}

std::uint64_t dropped_log_lines() { return dropped.load(std::memory_order_relaxed); }

}  // namespace mb
