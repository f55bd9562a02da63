#include "tests/tools/openloop/exchange.hpp"

#include <algorithm>

#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

namespace mb::openloop {
namespace {

namespace http = boost::beast::http;

void close(Connection& connection) {
    error_code ignored;
    connection.socket.close(ignored);
    connection.buffer.clear();
}

Outcome failure(Connection& connection, Outcome what) {
    close(connection);
    return connection.timed_out ? Outcome::timeout : what;
}

}  // namespace

awaitable<Outcome> exchange(Connection& connection, const RequestSettings& settings,
                            Clock::time_point deadline) {
    const std::uint64_t this_exchange = ++connection.exchanges;
    connection.timed_out = false;
    connection.deadline.expires_at(deadline);
    connection.deadline.async_wait([&connection, this_exchange](error_code ec) {
        if (ec || connection.exchanges != this_exchange) return;
        connection.timed_out = true;
        error_code ignored;
        connection.socket.close(ignored);
    });
    struct Disarm {
        Connection& connection;
        ~Disarm() {
            ++connection.exchanges;
            connection.deadline.cancel();
        }
    } disarm{connection};

    // A kept connection the server closed while it was idle fails before any byte of the
    // answer: the request goes again once on a new connection, as HTTP clients do for a GET.
    for (bool kept = connection.socket.is_open();; kept = false) {
        error_code ec;
        if (!kept) {
            co_await connection.socket.async_connect(settings.endpoint, into(ec));
            if (ec) co_return failure(connection, Outcome::connect);
            connection.socket.set_option(tcp::no_delay(true), ec);
        }
        co_await asio::async_write(connection.socket, asio::buffer(settings.text), into(ec));
        if (ec && kept && !connection.timed_out) {
            close(connection);
            continue;
        }
        if (ec) co_return failure(connection, Outcome::write);
        http::response_parser<http::string_body> parser;
        parser.header_limit(static_cast<std::uint32_t>(
            std::min<std::size_t>(settings.max_response_bytes, 64 * 1024)));
        parser.body_limit(settings.max_response_bytes);
        co_await http::async_read_header(connection.socket, connection.buffer, parser, into(ec));
        if (ec && kept && !parser.got_some() && !connection.timed_out) {
            close(connection);
            continue;
        }
        // Beast 1.74's async_read let some responses with a Content-Length past body_limit
        // through (seen here, now and then): the length is checked once the header is in.
        if (!ec && parser.content_length().value_or(0) > settings.max_response_bytes) {
            co_return failure(connection, Outcome::too_large);
        }
        if (!ec) {
            co_await http::async_read(connection.socket, connection.buffer, parser, into(ec));
        }
        if (ec == http::error::body_limit || ec == http::error::header_limit) {
            co_return failure(connection, Outcome::too_large);
        }
        if (ec) co_return failure(connection, Outcome::read);
        if (!settings.keepalive || !parser.keep_alive()) close(connection);
        co_return parser.get().result_int() / 100 == 2 ? Outcome::ok : Outcome::status;
    }
}

}  // namespace mb::openloop
