// One client connection, served as a coroutine on the event loop: wait for a request (the first
// within --timeout, later ones within --keepalive-timeout), read it with the contract's limits,
// answer it, repeat while the connection is kept alive. Every wait is an Asio operation under the
// connection's deadline, so a slow or silent client costs a few hundred bytes, never a thread.
#pragma once

#include "common/config.hpp"
#include "common/coroutines.hpp"
#include "common/exchange.hpp"
#include "common/http/request_parser.hpp"
#include "servers/async/model_work.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace mb::async {

class Connection {
  public:
    Connection(asio::ip::tcp::socket socket, ExchangeContext& exchanges, ModelWork& model_work,
               const HttpConfig& http);

    // Serves requests until the client leaves, a timeout, an error or stop(). Never throws for
    // network errors: they end the connection, which is all they can do.
    awaitable<void> run();

    // Shutdown: an idle connection is closed now, a busy one after its current response.
    void stop();
    // Closes the connection now, whatever it is doing (shutdown grace period over).
    void abort();

    bool idle() const { return idle_; }

  private:
    using Clock = std::chrono::steady_clock;

    // The connection's one deadline for what it waits for (a request, the write of a response, a
    // linger), as a beast::tcp_stream's expiry is, whole-request: once it passes the socket is
    // closed, so the pending operation fails. Setting it is a store. Its timer is armed at most
    // once per shortest timeout and armed again when it fired early; a tcp_stream arms and cancels
    // a timer for every read and write (two timer-queue insertions, removals and handlers per
    // keep-alive request). A deadline set after another is never earlier than the armed expiry
    // but for a linger's, which arms the timer anew.
    class Deadline {
      public:
        // shortest: the shortest timeout that expires_after() is given, but kLingerTime's.
        Deadline(asio::ip::tcp::socket& socket, Clock::duration shortest);
        ~Deadline();
        Deadline(const Deadline&) = delete;
        Deadline& operator=(const Deadline&) = delete;

        void expires_after(Clock::duration timeout);
        void expires_never();

      private:
        struct State;
        static void arm(const std::shared_ptr<State>& state);

        std::shared_ptr<State> state_;  // shared with the pending wait's handler
    };

    // Tells the model's work when the client leaves while its request is being served.
    class DepartureWatch {
      public:
        explicit DepartureWatch(Connection& connection);
        ~DepartureWatch();
        DepartureWatch(const DepartureWatch&) = delete;
        DepartureWatch& operator=(const DepartureWatch&) = delete;

      private:
        Connection& connection_;
        std::shared_ptr<bool> watching_;  // shared with the pending wait's handler
    };

    // True when request bytes are buffered; false when the client left, stayed silent past the
    // deadline (the first request's, else --keepalive-timeout), or stop() came first.
    awaitable<bool> wait_for_request(bool first);
    // Reads the header, checks it, sends 100 Continue when asked, reads the body. False when the
    // connection ends here: closed, timed out, or refused with an error response.
    awaitable<bool> read_request(RequestParser& parser);
    // Answers a request read whole; true when the connection stays open for the next.
    awaitable<bool> answer(const RequestParser& parser);
    // A request refused (400/413/414/431): answer it, then close.
    awaitable<void> refuse(const HttpError& error, const RequestParser& parser);
    // Sends the exchange's response (head and body in one gather write, within --timeout) and
    // records it; false when the connection ends: a write failure, or a response that closes it
    // (lingering first where the client may still send).
    awaitable<bool> send(Exchange& exchange);
    // What was received and not parsed yet.
    std::string_view unread() const;
    // Half-closes, then discards what the client still sends for at most kLingerTime, so that
    // the close sends no reset that would destroy responses the client has not read yet.
    awaitable<void> lingering_close();

    asio::ip::tcp::socket socket_;
    Deadline deadline_;
    boost::beast::flat_buffer buffer_;
    std::string head_;  // the response head being sent; its capacity serves every response
    std::string peer_;  // the client address, formatted only for the access log
    ExchangeContext& exchanges_;
    ModelWork& model_work_;
    const HttpConfig& http_;
    bool idle_ = false;
    bool stopping_ = false;
};

}  // namespace mb::async
