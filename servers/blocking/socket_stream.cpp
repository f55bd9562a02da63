#include "servers/blocking/socket_stream.hpp"

#include "common/exchange.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace mb::blocking {
namespace {

using Clock = std::chrono::steady_clock;

boost::beast::error_code last_error() { return {errno, boost::system::system_category()}; }

int milliseconds_left(Clock::time_point deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    return static_cast<int>(std::max<long long>(0, left.count()));
}

}  // namespace

SocketStream::SocketStream(int fd) : fd_(fd) {}

SocketStream::~SocketStream() { ::close(fd_); }

void SocketStream::expires_after(std::chrono::milliseconds timeout) {
    deadline_ = Clock::now() + timeout;
}

template <class Io>
ssize_t SocketStream::retry_until_done(short events, Io&& io, boost::beast::error_code& ec) {
    for (;;) {
        const ssize_t n = io();
        if (n >= 0) {
            ec = {};
            return n;
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            ec = last_error();
            return -1;
        }
        pollfd entry{fd_, events, 0};
        const int ready = ::poll(
            &entry, 1, deadline_ == Clock::time_point::max() ? -1 : milliseconds_left(deadline_));
        if (ready == 0) {
            ec = boost::asio::error::timed_out;
            return -1;
        }
        if (ready < 0 && errno != EINTR) {
            ec = last_error();
            return -1;
        }
        // Readiness, or a socket error the next call reports.
    }
}

std::size_t SocketStream::receive(void* data, std::size_t size, boost::beast::error_code& ec) {
    const ssize_t n = retry_until_done(
        POLLIN, [&] { return ::recv(fd_, data, size, 0); }, ec);
    if (n == 0) {
        ec = boost::asio::error::eof;
    }
    return n > 0 ? static_cast<std::size_t>(n) : 0;
}

std::size_t SocketStream::send(const iovec* iov, std::size_t count, boost::beast::error_code& ec) {
    ec = {};
    if (count == 0) {
        return 0;
    }
    msghdr message{};
    message.msg_iov = const_cast<iovec*>(iov);
    message.msg_iovlen = count;
    // MSG_NOSIGNAL: a peer that went away is an error code here, not a SIGPIPE.
    const ssize_t n = retry_until_done(
        POLLOUT, [&] { return ::sendmsg(fd_, &message, MSG_NOSIGNAL); }, ec);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
}

std::size_t SocketStream::receive_waiting(boost::asio::mutable_buffer buffer) {
    ssize_t n;
    do {
        n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    } while (n < 0 && errno == EINTR);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
}

SocketStream::Wait SocketStream::wait_readable(Clock::time_point deadline, const StopSignal& stop) {
    for (;;) {
        pollfd entries[2] = {{fd_, POLLIN, 0}, {stop.fd(), POLLIN, 0}};
        const int ready = ::poll(entries, 2, milliseconds_left(deadline));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready == 0) {
            return Wait::timed_out;
        }
        // A socket error (or a failed poll) counts as ready: the read that follows reports it.
        return entries[1].revents != 0 ? Wait::stopped : Wait::ready;
    }
}

void SocketStream::lingering_close() {
    ::shutdown(fd_, SHUT_WR);
    const auto deadline = Clock::now() + kLingerTime;
    char discard[4096];
    for (;;) {
        pollfd entry{fd_, POLLIN, 0};
        if (::poll(&entry, 1, milliseconds_left(deadline)) <= 0) {
            return;
        }
        const ssize_t n = ::recv(fd_, discard, sizeof discard, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            return;
        }
    }
}

std::size_t SocketStream::value_or_throw(std::size_t n, const boost::beast::error_code& ec) {
    if (ec) {
        throw boost::beast::system_error(ec);
    }
    return n;
}

}  // namespace mb::blocking
