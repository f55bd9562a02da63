// One accepted TCP connection as a Beast SyncReadStream / SyncWriteStream with a deadline.
//
// Beast's synchronous operations have no timeouts, and Asio's synchronous socket calls defeat
// SO_RCVTIMEO (after EAGAIN they poll() with no timeout). So, as APR does for Apache, the socket
// is non-blocking and every call that would block waits in poll(), at most until the deadline
// set with expires_after(). The deadline covers every call until it is set again, as
// beast::tcp_stream's does: a whole request or a whole response, not each read, so a client that
// sends one byte a second cannot keep the worker thread forever (slowloris).
#pragma once

#include "servers/blocking/stop_signal.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>

#include <sys/uio.h>

#include <array>
#include <chrono>
#include <cstddef>

namespace mb::blocking {

class SocketStream {
  public:
    // Takes ownership of fd, a connected non-blocking socket. No deadline until expires_after().
    explicit SocketStream(int fd);
    ~SocketStream();
    SocketStream(const SocketStream&) = delete;
    SocketStream& operator=(const SocketStream&) = delete;

    using Clock = std::chrono::steady_clock;

    int native_handle() const { return fd_; }

    // Reads and writes from now on fail with net::error::timed_out once timeout has passed.
    void expires_after(std::chrono::milliseconds timeout);
    Clock::time_point deadline() const { return deadline_; }

    // SyncReadStream: reads into the first non-empty buffer. EOF is net::error::eof (Beast turns
    // it into end_of_stream), waiting past the deadline is net::error::timed_out.
    template <class MutableBufferSequence>
    std::size_t read_some(const MutableBufferSequence& buffers, boost::beast::error_code& ec) {
        for (auto it = boost::asio::buffer_sequence_begin(buffers);
             it != boost::asio::buffer_sequence_end(buffers); ++it) {
            const boost::asio::mutable_buffer buffer(*it);
            if (buffer.size() != 0) {
                return receive(buffer.data(), buffer.size(), ec);
            }
        }
        ec = {};
        return 0;
    }

    // SyncWriteStream: one sendmsg() over up to kMaxIovecs buffers (a response's header and body).
    template <class ConstBufferSequence>
    std::size_t write_some(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
        std::array<iovec, kMaxIovecs> iov{};
        std::size_t count = 0;
        for (auto it = boost::asio::buffer_sequence_begin(buffers);
             it != boost::asio::buffer_sequence_end(buffers) && count < iov.size(); ++it) {
            const boost::asio::const_buffer buffer(*it);
            if (buffer.size() != 0) {
                iov[count++] = iovec{const_cast<void*>(buffer.data()), buffer.size()};
            }
        }
        return send(iov.data(), count, ec);
    }

    // The throwing forms the stream concepts also require.
    template <class MutableBufferSequence>
    std::size_t read_some(const MutableBufferSequence& buffers) {
        boost::beast::error_code ec;
        return value_or_throw(read_some(buffers, ec), ec);
    }
    template <class ConstBufferSequence>
    std::size_t write_some(const ConstBufferSequence& buffers) {
        boost::beast::error_code ec;
        return value_or_throw(write_some(buffers, ec), ec);
    }

    // What the peer has sent already, into buffer, without waiting: the bytes received, 0 when
    // nothing is there yet, or on end of stream or an error (which the next read reports).
    std::size_t receive_waiting(boost::asio::mutable_buffer buffer);

    enum class Wait { ready, timed_out, stopped };
    // Waits until the peer sends something (or closes), until deadline at most; returns stopped at
    // once when stop is raised, so idle connections close promptly on shutdown.
    Wait wait_readable(Clock::time_point deadline, const StopSignal& stop);

    // Half-closes and discards what the peer still sends, for at most kLingerTime, so that the
    // close that follows sends no reset (common/exchange.hpp).
    void lingering_close();

  private:
    static constexpr std::size_t kMaxIovecs = 16;

    std::size_t receive(void* data, std::size_t size, boost::beast::error_code& ec);
    std::size_t send(const iovec* iov, std::size_t count, boost::beast::error_code& ec);
    // Retries io (a recv or send on the socket) until it does not fail with EINTR or EAGAIN,
    // waiting in poll() for events when it would block; -1 with ec set on error or deadline.
    template <class Io>
    ssize_t retry_until_done(short events, Io&& io, boost::beast::error_code& ec);
    static std::size_t value_or_throw(std::size_t n, const boost::beast::error_code& ec);

    int fd_;
    Clock::time_point deadline_ = Clock::time_point::max();
};

}  // namespace mb::blocking
