#include "servers/blocking/listener.hpp"

#include "common/event_log.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace mb::blocking {
namespace {

std::string address_text(const sockaddr_storage& address) {
    char text[INET6_ADDRSTRLEN] = "-";
    if (address.ss_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text,
                  sizeof text);
    } else if (address.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, text,
                  sizeof text);
    }
    return text;
}

bool is_transient(int error) {
    // The connection went away before accept(), or a signal interrupted us.
    return error == EINTR || error == ECONNABORTED || error == EPROTO;
}

}  // namespace

Listener::Listener(const ListenAddress& address, int backlog, std::chrono::seconds accept_delay)
    : bound_(address) {
    const std::string where = address.host + ":" + std::to_string(address.port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(address.port);
    if (const int rc = getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
        throw std::runtime_error("cannot listen on " + where + ": " + gai_strerror(rc));
    }
    const addrinfo first = *found;
    sockaddr_storage bind_address{};
    std::memcpy(&bind_address, found->ai_addr, found->ai_addrlen);
    freeaddrinfo(found);

    fd_ = ::socket(first.ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int on = 1;
    if (fd_ < 0 || ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        ::bind(fd_, reinterpret_cast<const sockaddr*>(&bind_address), first.ai_addrlen) != 0 ||
        ::listen(fd_, backlog) != 0) {
        const std::string reason = std::strerror(errno);
        close();
        throw std::runtime_error("cannot listen on " + where + ": " + reason);
    }
    const int delay_s = static_cast<int>(accept_delay.count());
    if (::setsockopt(fd_, IPPROTO_TCP, TCP_DEFER_ACCEPT, &delay_s, sizeof delay_s) != 0) {
        const std::string reason = std::strerror(errno);
        close();
        throw std::runtime_error("cannot listen on " + where + ": TCP_DEFER_ACCEPT: " + reason);
    }
    // Responses go out in one sendmsg(); Nagle would only delay the last segment. Set here, once:
    // Linux gives every accepted socket the listening socket's TCP_NODELAY.
    if (::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0) {
        const std::string reason = std::strerror(errno);
        close();
        throw std::runtime_error("cannot listen on " + where + ": TCP_NODELAY: " + reason);
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &length);
    bound_.port =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(bound).sin6_port
                                          : reinterpret_cast<sockaddr_in&>(bound).sin_port);
}

Listener::~Listener() { close(); }

void Listener::close() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

unsigned Listener::waiting() const {
    // For a listening socket the kernel reports its accept queue length as tcpi_unacked.
    tcp_info info{};
    socklen_t length = sizeof info;
    if (::getsockopt(fd_, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) {
        return 0;
    }
    return info.tcpi_unacked;
}

std::optional<AcceptedConnection> Listener::accept(const StopSignal& stop, bool with_peer) {
    // accept() first and poll() only when nobody is waiting: under load the backlog seldom
    // empties, and a poll() before each accept() would only return at once.
    while (!stop.raised()) {
        sockaddr_storage peer{};
        socklen_t length = sizeof peer;
        const int fd = ::accept4(fd_, reinterpret_cast<sockaddr*>(&peer), &length,
                                 SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            return AcceptedConnection{fd, with_peer ? address_text(peer) : std::string()};
        }
        const int error = errno;
        if (error == EAGAIN || error == EWOULDBLOCK) {
            pollfd entries[2] = {{stop.fd(), POLLIN, 0}, {fd_, POLLIN, 0}};
            ::poll(entries, 2, -1);
        } else if (!is_transient(error)) {
            // EMFILE, ENFILE, ENOBUFS, ENOMEM: the client stays in the backlog until we recover;
            // wait a little (or for the stop) before trying again.
            log_event(std::string("accept: ") + std::strerror(error) + "; retrying");
            pollfd entry{stop.fd(), POLLIN, 0};
            ::poll(&entry, 1, 100);
        }
    }
    return std::nullopt;
}

}  // namespace mb::blocking
