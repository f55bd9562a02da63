// One GET on one connection within a deadline: connect if the connection is closed, write the
// request, read the whole response (Beast's parser: Content-Length, chunked or to the close),
// and say how it ended. The connection stays open only when both sides keep it alive.
#pragma once

#include "common/coroutines.hpp"
#include "tests/tools/openloop/schedule.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace mb::openloop {

using tcp = asio::ip::tcp;

enum class Outcome { ok, connect, write, read, timeout, status, too_large };
// The outcomes' names in the report, in the enum's order (ok's is "completed").
inline constexpr std::array<const char*, 7> kOutcomeNames = {
    "completed", "connect", "write", "read", "timeout", "status", "too_large"};

// What one request needs from the run, the same for all of them.
struct RequestSettings {
    tcp::endpoint endpoint;
    std::string text;  // the request's bytes
    bool keepalive = false;
    std::size_t max_response_bytes = 0;
};

// A connection of the pool, or the room for one new connection per request.
struct Connection {
    explicit Connection(asio::io_context& io) : socket(io), deadline(io) {}

    tcp::socket socket;
    boost::beast::flat_buffer buffer;  // bytes read past a response stay for the next one
    asio::steady_timer deadline;
    std::uint64_t exchanges = 0;  // tells a late deadline handler its exchange has ended
    bool timed_out = false;
};

// Never throws; by the deadline the socket is closed and the outcome is timeout.
awaitable<Outcome> exchange(Connection& connection, const RequestSettings& settings,
                            Clock::time_point deadline);

}  // namespace mb::openloop
