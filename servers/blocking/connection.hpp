// One client connection, served start to end on its own worker thread: wait for a request, read
// it with synchronous Beast calls, answer it (database work and /tasks' wait block this thread
// and no other), and repeat while the connection is kept alive.
#pragma once

#include "common/config.hpp"
#include "common/request_handler.hpp"
#include "common/request_parser.hpp"
#include "servers/blocking/database.hpp"
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
    RequestHandler& handler;
    const HttpConfig& http;
    const DbConfig& db;
    DbConnectionMode db_connection;
    ConnectionCache& db_cache;        // persistent connections between client connections
    unsigned max_keepalive_requests;  // 0: unlimited
    const StopSignal& stop;
    // True when every worker is taken and clients wait in the listen queue: a response then ends
    // its connection, so that its worker goes to a waiting client. Counts each such hand-over.
    std::function<bool()> hand_over_worker;
};

class Connection {
  public:
    // Takes ownership of fd.
    Connection(int fd, std::string peer, const ConnectionSettings& settings);

    // Returns when the connection is closed: by the client, --keepalive off, the keep-alive
    // timeout, an error, or server shutdown.
    void run();

  private:
    using Clock = std::chrono::steady_clock;

    // Reads the header, checks it, sends 100 Continue when asked, reads the body. False when the
    // connection ends here: closed, timed out, or refused with an error response.
    bool read_request(RequestParser& parser);
    // Sends the response; false when the connection must close afterwards.
    bool answer(const Request& request);
    Response respond(const Request& request, const ResponseShape& shape);
    Response run_tasks(const ResponseShape& shape, unsigned delay_ms);
    // A request refused (400/413/414/431): answer it, then close.
    void reject(const HttpError& error, const RequestParser& parser);
    // What was received and not parsed yet.
    std::string_view unread() const;
    // Head and body in one gather write (more only while the socket buffer is full).
    boost::beast::error_code send(const Response& response);

    SocketStream stream_;
    std::string peer_;  // the client address, formatted only for the access log
    const ConnectionSettings& settings_;
    RequestHandler& handler_;
    Database database_;
    boost::beast::flat_buffer buffer_;
    std::string head_;  // the response head being sent; its capacity serves every response
    unsigned requests_ = 0;
};

}  // namespace mb::blocking
