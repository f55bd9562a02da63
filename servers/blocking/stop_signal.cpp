#include "servers/blocking/stop_signal.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace mb::blocking {

StopSignal::StopSignal() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_ < 0) {
        throw std::system_error(errno, std::generic_category(), "eventfd");
    }
}

StopSignal::~StopSignal() { ::close(fd_); }

void StopSignal::raise() {
    raised_.store(true, std::memory_order_release);
    // Nobody reads the counter back, so the descriptor stays readable for good.
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
}

}  // namespace mb::blocking
