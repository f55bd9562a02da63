// One proxied connection: the accepted client socket, the connection to the target, and a delay
// line in each direction that holds the bytes of every read until the one-way delay has passed
// since they arrived (the kernel's receive stamp), then writes them on, in order.
#pragma once

#include <boost/asio.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace mb::proxy {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct RelaySettings {
    tcp::endpoint target;
    Clock::duration one_way_delay{};  // half the round trip
    // Open the target connection 3 one-way delays after the accept, as a TCP handshake across
    // the link would (SYN, SYN-ACK, ACK): what the client sends at once reaches the target then,
    // and the target's first bytes reach the client 2 round trips after it connected.
    bool handshake_delay = true;
    std::size_t queue_limit = 1 << 20;  // bytes held per direction before reading that side stops
    std::chrono::milliseconds connect_timeout{5000};
};

// How late this machine's timers fire: a VM's can wake 60 to 150 us after the time asked, half
// of a 0.25 ms one-way delay. Relays arm their timers that much early so that the
// bytes leave on time. Each observed lateness moves the estimate one step toward it, which makes
// it track the median.
class TimerLateness {
  public:
    explicit TimerLateness(Clock::duration seed) : estimate_(seed) {}
    Clock::duration estimate() const { return estimate_; }
    // late: how long after the time it was armed for a timer ran.
    void observe(Clock::duration late);

  private:
    Clock::duration estimate_;
};

// Totals over the proxy's life, for its exit line.
struct RelayTotals {
    std::uint64_t connections = 0;
    std::uint64_t connect_failures = 0;
    std::uint64_t bytes_to_target = 0;
    std::uint64_t bytes_to_client = 0;
};

class Relay : public std::enable_shared_from_this<Relay> {
  public:
    // read_buffer is shared by every relay: the proxy runs on one thread and copies what a read
    // returns into the queue at once. on_closed runs once, when both sockets are closed.
    Relay(tcp::socket client, const RelaySettings& settings, RelayTotals& totals,
          TimerLateness& lateness, std::vector<char>& read_buffer,
          std::function<void(Relay*)> on_closed);

    void start();
    // Closes both sockets now, dropping what is still queued.
    void close();

  private:
    struct Chunk {
        Clock::time_point due;
        std::vector<char> bytes;
    };
    // One direction: bytes read from `from`, written to `to` once due.
    struct Line {
        Line(tcp::socket& from_socket, tcp::socket& to_socket, std::uint64_t& total)
            : from(from_socket),
              to(to_socket),
              timer(from_socket.get_executor()),
              bytes_total(total) {}
        tcp::socket& from;
        tcp::socket& to;
        asio::steady_timer timer;
        std::uint64_t& bytes_total;
        std::deque<Chunk> queue;
        std::size_t queued_bytes = 0;
        std::vector<asio::const_buffer> gather;
        bool reading = false;
        bool writing = false;
        bool timer_armed = false;
        bool eof = false;       // `from` sent its FIN
        bool finished = false;  // and everything before it was written, `to` shut down for sending
    };

    void connect_target();
    void on_target_connected(const boost::system::error_code& ec);
    void wait_readable(Line& line);
    void on_readable(Line& line, const boost::system::error_code& ec);
    // Writes the chunks due by now, or by woken_for when a timer armed for that time ran early.
    void pump(Line& line, Clock::time_point woken_for = {});
    // Calls then(true) at `due`, from a timer armed early by the timers' lateness (which it
    // measures again); then(false) when the timer was cancelled or the relay closed.
    void wait_until(asio::steady_timer& timer, Clock::time_point due,
                    std::function<void(bool fired)> then);
    void on_written(Line& line, std::size_t chunks, const boost::system::error_code& ec,
                    std::size_t bytes);
    void finish(Line& line);

    tcp::socket client_;
    tcp::socket target_;
    const RelaySettings& settings_;
    RelayTotals& totals_;
    TimerLateness& lateness_;
    std::vector<char>& read_buffer_;
    std::function<void(Relay*)> on_closed_;
    asio::steady_timer connect_timer_;
    Line to_target_;
    Line to_client_;
    bool target_connected_ = false;
    bool closed_ = false;
};

}  // namespace mb::proxy
