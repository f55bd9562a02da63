// One client connection, served start to end on its own thread: wait for a request, read it with
// synchronous Beast calls, answer it (database work and /tasks' wait block this thread and no
// other), and repeat while the connection is kept alive. What to answer and whether to keep the
// connection is the common Exchange's decision; this class does the I/O and the model's work.
#pragma once

#include "common/config.hpp"
#include "common/exchange.hpp"
#include "common/http/request_parser.hpp"
#include "servers/blocking/database_access.hpp"
#include "servers/blocking/socket_stream.hpp"
#include "servers/blocking/stop_signal.hpp"

#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace mb::blocking {

// What every connection shares; owned by the server, which outlives its connections.
struct ConnectionSettings {
    ExchangeContext& exchanges;
    const HttpConfig& http;
    const DbConfig& db;
    DbConnectionMode db_connection;
    ConnectionCache& db_cache;        // persistent connections between client connections
    unsigned max_keepalive_requests;  // 0: unlimited
    const StopSignal& stop;
    // True when every thread is taken and clients wait in the listen queue: a response then ends
    // its connection, so that its thread goes to a waiting client. Counts each such hand-over.
    std::function<bool()> hand_over_thread;
};

class Connection {
  public:
    // Takes ownership of fd.
    Connection(int fd, std::string peer, const ConnectionSettings& settings);

    // Returns when the connection is closed: by the client, --keepalive off, the keep-alive
    // timeout, an error, or server shutdown.
    void run();

    // The model's work, for dispatch_work(): the database calls and /tasks' wait block this
    // thread.
    Response html(const ResponseShape& shape, unsigned delay_ms);
    Response json(const ResponseShape& shape, unsigned delay_ms);
    Response tasks(const ResponseShape& shape, unsigned delay_ms);

  private:
    using Clock = std::chrono::steady_clock;

    // What the client has sent already, into the buffer, without waiting; false when nothing was
    // there.
    bool received_waiting_bytes();
    // Reads the header, checks it, sends 100 Continue when asked, reads the body. False when the
    // connection ends here: closed, timed out, or refused with an error response.
    bool read_request(RequestParser& parser);
    // Answers a request read whole; false when the connection must close afterwards.
    bool answer(const RequestParser& parser);
    // A request refused (400/413/414/431): answer it, then close.
    void refuse(const HttpError& error, const RequestParser& parser);
    // Sends the exchange's response (head and body in one gather write) and records it; false
    // when the connection ends: a write failure, or a response that closes it (lingering first
    // where the client may still send).
    bool send(Exchange& exchange);
    // What was received and not parsed yet.
    std::string_view unread() const;

    SocketStream stream_;
    std::string peer_;  // the client address, formatted only for the access log
    const ConnectionSettings& settings_;
    DatabaseAccess database_;
    boost::beast::flat_buffer buffer_;
    std::string head_;  // the response head being sent; its capacity serves every response
    unsigned requests_ = 0;
};

}  // namespace mb::blocking
