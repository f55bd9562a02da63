// What both servers decide about an exchange (one request and its response on a connection),
// whatever their I/O: route it, answer it or refuse it, map a failure of the model's work to its
// status, whether the connection stays, and how long a close lingers. Each server only reads,
// writes and schedules the model's work.
#pragma once

#include "common/cpu_cost.hpp"
#include "common/exchange_log.hpp"
#include "common/http/request_parser.hpp"
#include "common/http/response.hpp"
#include "common/http/routing.hpp"
#include "common/pages/pages.hpp"

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mb {

// A close the server starts after a response while the client may still send (close_lingers())
// half-closes first and reads, discarding, what the client still sends, for at most this long
// (Apache's lingering close). Closing a socket with unread input makes the kernel send a reset,
// and a reset destroys whatever the client has not read yet: responses already sent would be lost.
inline constexpr std::chrono::seconds kLingerTime{2};

// The server cannot take the request now: 503 with Retry-After (a full queue, a wait past its
// deadline, too many pending tasks). what() is the response's message.
struct ServiceUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The client left while its request waited: there is nobody to answer (the access log shows 499).
struct ClientGone : std::runtime_error {
    ClientGone() : std::runtime_error("client gone") {}
};

// What every exchange of a server uses; owned by the server.
struct ExchangeContext {
    const Pages& pages;
    ExchangeLog& log;
    CpuCost& cost;                                 // spent on the thread that serves the request
    bool keepalive_enabled;                        // --keepalive
    std::function<nlohmann::json()> model_status;  // the model's section of /status
    pid_t server_root;  // the whole server's process tree: this process, or a cluster's supervisor
};

class Exchange {
  public:
    // A request read whole by parser: counted and routed; every page but the model's work is
    // answered here. A page's request (not /status, not an error) spends the cost model's
    // per-request CPU. peer and parser must outlive the exchange.
    Exchange(ExchangeContext& context, const RequestParser& parser, std::string_view peer);
    // A request refused before it was read whole (a parser error, a framing check): its error
    // answer, as its version and method call for once they are known (HEAD: no body), ends the
    // connection. unparsed: what was received and not parsed, for the access log.
    Exchange(ExchangeContext& context, const RequestParser& parser, const HttpError& error,
             std::string_view unparsed, std::string_view peer);
    ~Exchange();
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;

    // The model's work for this request (/html, /json, /tasks); nullptr when the response is in.
    const Route* work() const { return work_ ? &*work_ : nullptr; }
    const ResponseShape& shape() const { return shape_; }

    void respond(Response response);
    // The model's work failed: 503, 504 or 500 as the failure calls for (counted, a 500 logged),
    // or no response at all when the client is gone.
    void fail(std::exception_ptr failure);

    // False only when the client left before an answer.
    bool has_response() const { return response_.has_value(); }
    Response& response() { return *response_; }
    // The connection ends with this response: shutdown, the connection's share of requests, a
    // hand-over of its worker. Only before the response is sent.
    void end_connection();
    // The connection stays open for the next request.
    bool keeps_connection() const { return response_ && response_->keep_alive(); }
    // The client may send more after this request: it was refused before it was read whole, or
    // the client meant to keep the connection (the server ends it). Otherwise the client said this
    // request was its last (HTTP/1.0 without keep-alive, "Connection: close"), which it must not
    // follow with another (RFC 9112 9.6).
    bool client_may_send_more() const { return request_ == nullptr || client_keeps_alive_; }

    // The response went out, or could not: counted, and written to the access log. Once; the
    // destructor does it when nobody did.
    void finished();

  private:
    ExchangeContext& context_;
    std::string_view peer_;
    const Request* request_ = nullptr;  // null for a refusal
    // The request's keep-alive semantics, as the parser found them while it read the Connection
    // field (the message's keep_alive() would parse that field again).
    bool client_keeps_alive_ = false;
    std::string refused_line_;  // a refusal's access-log line
    ResponseShape shape_;
    std::optional<Route> work_;
    std::optional<Response> response_;
    bool finished_ = false;
};

// Whether closing socket after exchange's response must linger (kLingerTime) so that no reset
// follows: when the client may still send, or has sent more already (unread: what the server has
// received and not parsed; the socket is asked for what it holds). A client that said its request
// was its last, and kept to it, gets a plain close, which needs neither a wait for its end of the
// connection nor the system calls of one.
bool close_lingers(const Exchange& exchange, std::string_view unread, int socket);

// The model's part of an exchange, to model.html(), .json() or .tasks() (shape, delay_ms, then
// extra), returning what they return: a Response, or an awaitable of one.
template <class Model, class... Extra>
auto dispatch_work(Model& model, const Route& route, const ResponseShape& shape, Extra&&... extra) {
    switch (route.endpoint) {
        case Endpoint::html:
            return model.html(shape, route.delay_ms, std::forward<Extra>(extra)...);
        case Endpoint::json:
            return model.json(shape, route.delay_ms, std::forward<Extra>(extra)...);
        default:
            return model.tasks(shape, route.delay_ms, std::forward<Extra>(extra)...);
    }
}

}  // namespace mb
