#include "tests/tools/delay_proxy/relay.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <iostream>
#include <utility>

namespace mb::proxy {
namespace {

// Due chunks written by one gather write at most; more wait for the next.
constexpr std::size_t kMaxGather = 64;

constexpr Clock::duration kLatenessStep = std::chrono::microseconds(1);
constexpr Clock::duration kMaxLateness = std::chrono::milliseconds(1);

// TCP_NODELAY: a held segment leaves when due, not when the previous one was acknowledged.
// Non-blocking: reads take what is there. Receive timestamps when there is a delay to hold.
void prepare(tcp::socket& socket, bool timestamps) {
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    socket.non_blocking(true, ignored);
    if (timestamps) {
        const int on = 1;
        ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
    }
}

// read_some() that also says when the bytes arrived: the kernel's receive time of the latest
// segment read (SO_TIMESTAMPNS), so that the wait between its arrival and this read is part of the
// delay instead of adding to it; now when there is none.
std::size_t receive(tcp::socket& socket, std::vector<char>& buffer, Clock::time_point& arrived,
                    boost::system::error_code& ec) {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    iovec part{buffer.data(), buffer.size()};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(socket.native_handle(), &message, 0);
    const auto now = Clock::now();
    arrived = now;
    if (n <= 0) {
        ec = n == 0 ? boost::system::error_code(asio::error::eof)
                    : boost::system::error_code(errno, boost::system::system_category());
        return 0;
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
        timespec stamp{};
        std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
        timespec wall{};
        clock_gettime(CLOCK_REALTIME, &wall);
        // The stamp is wall-clock time; its age carries it over to the steady clock. An age out
        // of range means the wall clock was set meanwhile.
        const auto age = std::chrono::seconds(wall.tv_sec - stamp.tv_sec) +
                         std::chrono::nanoseconds(wall.tv_nsec - stamp.tv_nsec);
        if (age > Clock::duration::zero() && age < std::chrono::seconds(1)) arrived = now - age;
    }
    return static_cast<std::size_t>(n);
}

}  // namespace

void TimerLateness::observe(Clock::duration late) {
    estimate_ = std::clamp(late > estimate_ ? estimate_ + kLatenessStep : estimate_ - kLatenessStep,
                           Clock::duration::zero(), kMaxLateness);
}

Relay::Relay(tcp::socket client, const RelaySettings& settings, RelayTotals& totals,
             TimerLateness& lateness, std::vector<char>& read_buffer,
             std::function<void(Relay*)> on_closed)
    : client_(std::move(client)),
      target_(client_.get_executor()),
      settings_(settings),
      totals_(totals),
      lateness_(lateness),
      read_buffer_(read_buffer),
      on_closed_(std::move(on_closed)),
      connect_timer_(client_.get_executor()),
      to_target_(client_, target_, totals.bytes_to_target),
      to_client_(target_, client_, totals.bytes_to_client) {}

void Relay::start() {
    ++totals_.connections;
    prepare(client_, settings_.one_way_delay > Clock::duration::zero());
    // The client is read from now on: what it sends waits in the queue until the target is
    // connected and the bytes are due.
    wait_readable(to_target_);
    if (settings_.handshake_delay && settings_.one_way_delay > Clock::duration::zero()) {
        wait_until(connect_timer_, Clock::now() + 3 * settings_.one_way_delay, [this](bool fired) {
            if (fired) connect_target();
        });
    } else {
        connect_target();
    }
}

void Relay::connect_target() {
    target_.async_connect(settings_.target,
                          [self = shared_from_this()](boost::system::error_code ec) {
                              self->on_target_connected(ec);
                          });
    connect_timer_.expires_after(settings_.connect_timeout);
    connect_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec && !self->target_connected_ && !self->closed_) {
            boost::system::error_code ignored;
            self->target_.close(ignored);  // the pending connect completes with an error
        }
    });
}

void Relay::on_target_connected(const boost::system::error_code& ec) {
    if (closed_) return;
    connect_timer_.cancel();
    if (ec) {
        ++totals_.connect_failures;
        std::cerr << "delay_proxy: connecting to " << settings_.target << " failed: "
                  << (ec == asio::error::bad_descriptor || ec == asio::error::operation_aborted
                          ? std::string("no answer within the connect timeout")
                          : ec.message())
                  << "\n";
        close();
        return;
    }
    target_connected_ = true;
    prepare(target_, settings_.one_way_delay > Clock::duration::zero());
    wait_readable(to_client_);
    pump(to_target_);
}

void Relay::wait_readable(Line& line) {
    line.reading = true;
    line.from.async_wait(tcp::socket::wait_read,
                         [self = shared_from_this(), &line](boost::system::error_code ec) {
                             self->on_readable(line, ec);
                         });
}

void Relay::on_readable(Line& line, const boost::system::error_code& wait_ec) {
    line.reading = false;
    if (closed_) return;
    if (wait_ec) {
        close();
        return;
    }
    // Read what is there (the socket is non-blocking) until the queue reaches its limit.
    while (line.queued_bytes < settings_.queue_limit) {
        boost::system::error_code ec;
        Clock::time_point arrived;
        const std::size_t n = receive(line.from, read_buffer_, arrived, ec);
        if (ec == asio::error::would_block || ec == asio::error::try_again) break;
        if (ec == asio::error::eof) {
            line.eof = true;
            pump(line);
            return;
        }
        if (ec) {
            close();
            return;
        }
        line.queue.push_back(Chunk{
            arrived + settings_.one_way_delay,
            std::vector<char>(read_buffer_.begin(), read_buffer_.begin() + std::ptrdiff_t(n))});
        line.queued_bytes += n;
        if (n < read_buffer_.size()) break;  // drained: save the read that would say so
    }
    pump(line);
    // Over the limit, reading resumes once writes brought the queue below it (backpressure).
    if (!closed_ && line.queued_bytes < settings_.queue_limit) wait_readable(line);
}

void Relay::pump(Line& line, Clock::time_point woken_for) {
    if (closed_ || line.writing || line.finished) return;
    if (&line == &to_target_ && !target_connected_) return;
    if (line.queue.empty()) {
        if (line.eof) finish(line);
        return;
    }
    const auto now = std::max(Clock::now(), woken_for);
    const auto due = line.queue.front().due;
    if (due > now) {
        if (!line.timer_armed) {
            line.timer_armed = true;
            wait_until(line.timer, due, [this, &line, due](bool fired) {
                line.timer_armed = false;
                if (fired) pump(line, due);
            });
        }
        return;
    }
    line.gather.clear();
    for (const auto& chunk : line.queue) {
        if (chunk.due > now || line.gather.size() == kMaxGather) break;
        line.gather.push_back(asio::buffer(chunk.bytes));
    }
    line.writing = true;
    asio::async_write(line.to, line.gather,
                      [self = shared_from_this(), &line, chunks = line.gather.size()](
                          boost::system::error_code ec, std::size_t bytes) {
                          self->on_written(line, chunks, ec, bytes);
                      });
}

void Relay::wait_until(asio::steady_timer& timer, Clock::time_point due,
                       std::function<void(bool fired)> then) {
    // Early by the timers' lateness; when that moment has passed already (a delay shorter than
    // the lateness), at `due` itself: late rather than early, and the timer still measures.
    auto wake = due - lateness_.estimate();
    if (wake <= Clock::now()) wake = due;
    timer.expires_at(wake);
    timer.async_wait(
        [self = shared_from_this(), wake, then = std::move(then)](boost::system::error_code ec) {
            const bool fired = !ec && !self->closed_;
            if (fired) self->lateness_.observe(Clock::now() - wake);
            then(fired);
        });
}

void Relay::on_written(Line& line, std::size_t chunks, const boost::system::error_code& ec,
                       std::size_t bytes) {
    line.writing = false;
    if (closed_) return;
    if (ec) {
        close();
        return;
    }
    for (std::size_t i = 0; i < chunks; ++i) line.queue.pop_front();
    line.queued_bytes -= bytes;
    line.bytes_total += bytes;
    if (!line.reading && !line.eof && line.queued_bytes < settings_.queue_limit) {
        wait_readable(line);
    }
    pump(line);
}

void Relay::finish(Line& line) {
    line.finished = true;
    boost::system::error_code ignored;
    line.to.shutdown(tcp::socket::shutdown_send, ignored);
    if (to_target_.finished && to_client_.finished) close();
}

void Relay::close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    connect_timer_.cancel();
    to_target_.timer.cancel();
    to_client_.timer.cancel();
    client_.close(ignored);
    target_.close(ignored);
    on_closed_(this);
}

}  // namespace mb::proxy
