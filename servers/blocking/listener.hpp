// The listening socket. It listens from construction on, so the port is known before the
// acceptor thread runs and early clients already queue in the kernel's backlog.
#pragma once

#include "common/config.hpp"
#include "servers/blocking/stop_signal.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace mb::blocking {

struct AcceptedConnection {
    int fd = -1;       // non-blocking, TCP_NODELAY (the listener's); the caller owns it
    std::string peer;  // client IP address, for the access log; empty unless asked for
};

class Listener {
  public:
    // Throws std::runtime_error naming the address and the reason (e.g. address in use).
    // accept_delay: how long the kernel holds back a connection that has sent nothing yet
    // (TCP_DEFER_ACCEPT, as Apache's AcceptFilter sets it), so that a silent client takes no
    // worker; past it the connection is accepted all the same.
    Listener(const ListenAddress& address, int backlog, std::chrono::seconds accept_delay);
    ~Listener();
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;

    // The address with the port actually bound (--listen may ask for port 0).
    const ListenAddress& bound() const { return bound_; }

    // Waits for the next connection; nullopt once stop is raised. Transient failures (a client
    // that reset before accept, out of descriptors) are retried, the latter after a pause.
    // with_peer: also format the client's address.
    std::optional<AcceptedConnection> accept(const StopSignal& stop, bool with_peer);

    // How many connections wait in the kernel's accept queue, not yet accepted.
    unsigned waiting() const;

    // Stops listening: clients still in the backlog are refused instead of waiting in vain.
    void close();

  private:
    int fd_ = -1;
    ListenAddress bound_;
};

}  // namespace mb::blocking
