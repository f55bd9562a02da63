// The delay that delay_proxy adds is the one asked for: round trips of a small message to an echo
// server through the proxy against the same round trips without it.
//
// Measured as the network's part of a round trip, the way ping-like tools do: from the client's
// send to the kernel's arrival stamp of the answer on the client's socket (SO_TIMESTAMPNS), less
// the echo server's turnaround (from the arrival stamp of the request on its socket to its reply).
// The scheduling of both ends is left out: a thread that slept a whole round trip wakes more
// slowly than one in a tight ping-pong (on this VM 0.05 to 0.2 ms more when other work keeps the
// cores busy), as it would across a real link. What the client program sees is printed beside it.
#include "tests/support/echo_server.hpp"
#include "tests/support/server_process.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mb::test {
namespace {

constexpr std::size_t kMessageBytes = 64;

double wall_ms() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

void enable_timestamps(int fd) {
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

// recv() that also gives the kernel's arrival stamp of the data in ms of wall-clock time (the
// stamp's clock), or 0 when there is none.
ssize_t receive_stamped(int fd, char* data, std::size_t size, double& arrived_ms) {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    iovec part{data, size};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(fd, &message, 0);
    arrived_ms = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); n > 0 && c != nullptr;
         c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            timespec stamp{};
            std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
            arrived_ms =
                static_cast<double>(stamp.tv_sec) * 1e3 + static_cast<double>(stamp.tv_nsec) / 1e6;
        }
    }
    return n;
}

// An echo server on one thread that writes each message back with its turnaround (ms from the
// arrival stamp of the request to the reply, a double) in the first bytes.
class TurnaroundEcho {
  public:
    // Receive stamps on the listening socket keep the kernel's stamping on while the test runs:
    // it is switched on lazily (deferred work), after the first segments of a new connection.
    TurnaroundEcho() : listen_fd_(listen_loopback(port_)), thread_([this] { run(); }) {
        enable_timestamps(listen_fd_);
    }
    ~TurnaroundEcho() {
        stop_ = true;
        thread_.join();
        close(listen_fd_);
    }
    TurnaroundEcho(const TurnaroundEcho&) = delete;
    TurnaroundEcho& operator=(const TurnaroundEcho&) = delete;

    std::uint16_t port() const { return port_; }

  private:
    void run() {
        std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
        while (!stop_) {
            if (poll(fds.data(), fds.size(), 50) <= 0) continue;
            for (std::size_t i = 1; i < fds.size(); ++i) {
                if (fds[i].revents != 0 && !answer(fds[i].fd)) {
                    close(fds[i].fd);
                    fds[i].fd = -1;  // poll() passes over it from now on
                }
            }
            if (fds[0].revents != 0) {
                const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
                if (fd >= 0) {
                    enable_timestamps(fd);
                    fds.push_back({fd, POLLIN, 0});
                }
            }
        }
        for (const auto& p : fds) {
            if (p.fd >= 0 && p.fd != listen_fd_) close(p.fd);
        }
    }

    static bool answer(int fd) {
        char message[kMessageBytes];
        double arrived = 0;
        const ssize_t n = receive_stamped(fd, message, sizeof message, arrived);
        if (n < static_cast<ssize_t>(sizeof(double))) return false;
        const double turnaround = arrived == 0 ? 0 : wall_ms() - arrived;
        std::memcpy(message, &turnaround, sizeof turnaround);
        return write(fd, message, static_cast<std::size_t>(n)) == n;
    }

    std::uint16_t port_ = 0;
    int listen_fd_;
    std::atomic<bool> stop_ = false;
    std::thread thread_;
};

struct RoundTrip {
    double network_ms;  // the send to the answer's arrival, less the echo server's turnaround
    double seen_ms;     // the send to the end of the read: what the client program sees
};

RoundTrip round_trip(int fd) {
    char message[kMessageBytes] = {};
    const double sent = wall_ms();
    if (write(fd, message, sizeof message) != static_cast<ssize_t>(sizeof message)) {
        throw std::runtime_error("write failed");
    }
    double arrived = 0;
    for (std::size_t got = 0; got < sizeof message;) {
        const ssize_t n = receive_stamped(fd, message + got, sizeof message - got, arrived);
        if (n <= 0) throw std::runtime_error("the echo did not come back");
        got += static_cast<std::size_t>(n);
    }
    const double seen = wall_ms() - sent;
    double turnaround = 0;
    std::memcpy(&turnaround, message, sizeof turnaround);
    if (arrived == 0) throw std::runtime_error("no receive timestamp on the client's socket");
    return {arrived - sent - turnaround, seen};
}

int connect_stamped(std::uint16_t port) {
    const int fd = connect_loopback(port);
    enable_timestamps(fd);
    return fd;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// connect(), one message and its answer on the new connection.
RoundTrip connect_round_trip(std::uint16_t port) {
    const double start = wall_ms();
    const int fd = connect_stamped(port);
    const RoundTrip trip = round_trip(fd);
    const double connect_ms = wall_ms() - start - trip.seen_ms;
    close(fd);
    return {connect_ms + trip.network_ms, connect_ms + trip.seen_ms};
}

struct Added {
    double network_ms;
    double seen_ms;
};

// What a round trip on the proxied path takes more than one on the direct path: rounds of
// `per_round` of each in turn, so that both paths see the same machine (other work on it comes
// and goes), and the median of the rounds' differences of medians.
template <typename Measure>
Added added_by_proxy(int rounds, int per_round, Measure direct, Measure proxied) {
    const auto medians_of_round = [per_round](const Measure& measure) {
        std::vector<double> network, seen;
        for (int i = 0; i < per_round; ++i) {
            const RoundTrip trip = measure();
            network.push_back(trip.network_ms);
            seen.push_back(trip.seen_ms);
        }
        return Added{median(network), median(seen)};
    };
    medians_of_round(proxied);  // the first round trips through a new proxy are not counted
    std::vector<double> network, seen;
    for (int round = 0; round < rounds; ++round) {
        const Added direct_round = medians_of_round(direct);
        const Added proxied_round = medians_of_round(proxied);
        network.push_back(proxied_round.network_ms - direct_round.network_ms);
        seen.push_back(proxied_round.seen_ms - direct_round.seen_ms);
    }
    return {median(network), median(seen)};
}

// On one connection to each, open through all the rounds.
Added added_round_trip(std::uint16_t direct_port, std::uint16_t proxy_port, int per_round) {
    const int direct = connect_stamped(direct_port);
    const int proxied = connect_stamped(proxy_port);
    using Measure = std::function<RoundTrip()>;
    const Added added = added_by_proxy(9, per_round, Measure([&] { return round_trip(direct); }),
                                       Measure([&] { return round_trip(proxied); }));
    close(direct);
    close(proxied);
    return added;
}

class DelayProxyTiming : public ::testing::Test {
  protected:
    ServerProcess start_proxy(double rtt_ms) {
        return ServerProcess(binary_path("delay_proxy"),
                             {"--target", "127.0.0.1:" + std::to_string(echo_.port()), "--rtt-ms",
                              std::to_string(rtt_ms)});
    }

    // What a round trip through a new proxy holding `rtt_ms` takes more than one direct.
    Added added_by_new_proxy(double rtt_ms, int per_round) {
        auto proxy = start_proxy(rtt_ms);
        return added_round_trip(echo_.port(), proxy.port(), per_round);
    }

    TurnaroundEcho echo_;
};

// Within 10 %, or 0.03 ms for the shortest delays, never earlier; later by as much again as the
// proxy's own turn to read and write a segment, which no timer can hold back: measured first, as
// the hop at --rtt-ms 0 (0.03 to 0.05 ms here, more while other work keeps both cores busy).
TEST_F(DelayProxyTiming, AddsTheAskedRoundTripWithinTenPercent) {
    const double hop_ms = std::max(added_by_new_proxy(0, 50).network_ms, 0.0);
    std::printf("rtt 0: %.3f ms added by the hop itself\n", hop_ms);
    for (const double rtt : {0.2, 0.5, 1.0, 2.0, 5.0}) {
        const Added added = added_by_new_proxy(rtt, rtt < 2 ? 50 : 20);
        std::printf("rtt %.1f ms: %.3f ms added (%+.1f %%); the client program saw %.3f ms more\n",
                    rtt, added.network_ms, (added.network_ms - rtt) / rtt * 100, added.seen_ms);
        const double tolerance = std::max(rtt * 0.1, 0.03);
        EXPECT_GE(added.network_ms, rtt - tolerance) << "asked " << rtt << " ms";
        EXPECT_LE(added.network_ms, rtt + tolerance + hop_ms)
            << "asked " << rtt << " ms; the hop itself " << hop_ms << " ms";
    }
}

// A new connection pays the handshake too: its first bytes reach the target 1.5 round trips after
// connect(), and the answer comes half a round trip later, as across a real link. On top come the
// proxy's own turns to accept the client and to complete its connect to the target, which no
// timer covers: 0.1 to 0.16 ms measured here with the load average at 25 on 2 cores.
TEST_F(DelayProxyTiming, NewConnectionPaysTwoRoundTrips) {
    constexpr double kOwnTurnsMs = 0.25;
    for (const double rtt : {0.5, 1.0, 2.0}) {
        auto proxy = start_proxy(rtt);
        using Measure = std::function<RoundTrip()>;
        const Added added =
            added_by_proxy(5, 20, Measure([this] { return connect_round_trip(echo_.port()); }),
                           Measure([&proxy] { return connect_round_trip(proxy.port()); }));
        std::printf(
            "rtt %.1f ms, connect and first answer: %.3f ms added (%+.1f %% of %.1f); "
            "the client program saw %.3f ms more\n",
            rtt, added.network_ms, (added.network_ms - 2 * rtt) / (2 * rtt) * 100, 2 * rtt,
            added.seen_ms);
        EXPECT_GE(added.network_ms, 2 * rtt * 0.9) << "asked " << rtt << " ms";
        EXPECT_LE(added.network_ms, 2 * rtt * 1.1 + kOwnTurnsMs) << "asked " << rtt << " ms";
    }
}

// Nothing is held: what the hop costs is the proxy's reading and writing, 0.03 to 0.05 ms here
// (up to 0.19 ms seen while other work kept both cores busy).
TEST_F(DelayProxyTiming, ForwardsAtOnceWithoutDelay) {
    const Added added = added_by_new_proxy(0, 50);
    std::printf("rtt 0: %.3f ms added by the extra hop; the client program saw %.3f ms more\n",
                added.network_ms, added.seen_ms);
    EXPECT_LT(added.network_ms, 0.25);
}

}  // namespace
}  // namespace mb::test
