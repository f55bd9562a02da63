// Everything about answering a request that both models share: routing, the bodies of every
// endpoint, error responses, counters and the access log. A server's own code only decides how
// the database calls and the deferred task of /tasks are scheduled.
#pragma once

#include "common/access_log.hpp"
#include "common/config.hpp"
#include "common/db_error.hpp"
#include "common/http_response.hpp"
#include "common/render.hpp"
#include "common/request_parser.hpp"
#include "common/status_counters.hpp"
#include "common/workload.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>

namespace mb {

struct ServerIdentity {
    std::string program;      // "blocking-server"
    std::string model;        // "blocking" | "async"
    std::string description;  // one line for the index page
};

class RequestHandler {
  public:
    using ModelStatus = std::function<nlohmann::json()>;

    // Throws std::runtime_error when the access log cannot be opened.
    RequestHandler(ServerIdentity identity, const HttpConfig& http, ModelStatus model_status);

    StatusCounters& counters() { return counters_; }
    const ServerIdentity& identity() const { return identity_; }
    const ResponseFactory& responses() const { return responses_; }
    bool keepalive_enabled() const { return keepalive_; }
    // The client's address is only needed for the access log: formatting it costs a sprintf.
    bool logs_access() const { return access_log_ != nullptr; }

    // Routes a request: the finished response for /, /hello, /factorial, /status and every
    // routing error; the Route when the model must serve it (/html, /json, /tasks).
    std::variant<Response, Route> route(const Request& request, const ResponseShape& shape);

    // The pages of /html and /json, rendered from stored results that passed
    // check_workload_result().
    Response html(const ResponseShape& shape, const HtmlResults& results) const;
    Response json(const ResponseShape& shape, MYSQL_RES* orders) const;
    // 503 (unavailable), 504 (timeout) or 500; counts the error.
    Response database_error(const ResponseShape& shape, const DbError& error);
    // The /tasks body: which order the three tasks ran in.
    Response tasks(const ResponseShape& shape, bool task_two_before_response,
                   unsigned delay_ms) const;
    Response error(const ResponseShape& shape, const HttpError& error) const;
    // The answer to a request refused before it was read whole: the error, as the request's
    // version and method call for once its header is in (HEAD: no body), and the connection
    // closes after it.
    Response rejection(const RequestParser& parser, const HttpError& error) const;

    // Bookkeeping when a request arrives and when its response went out (or failed).
    void request_started() { counters_.request_started(); }
    void request_finished(std::string_view peer, std::string_view request_line, unsigned status,
                          std::size_t body_bytes);
    // The same for a request that was read: its line is formatted only for the access log.
    void request_finished(std::string_view peer, const Request& request, unsigned status,
                          std::size_t body_bytes);

    // The /tasks demo's console line: "<UTC time> tasks #<id>: <task>", on stderr (event_log.hpp:
    // never blocking, dropped when stderr cannot take it).
    static void log_task(std::uint64_t demo_id, std::string_view task);
    std::uint64_t next_task_demo_id() { return next_task_demo_.fetch_add(1) + 1; }

  private:
    ServerIdentity identity_;
    ResponseFactory responses_;
    bool keepalive_;
    ModelStatus model_status_;
    StatusCounters counters_;
    std::unique_ptr<AccessLog> access_log_;
    std::atomic<std::uint64_t> next_task_demo_{0};
};

// "GET /html HTTP/1.0", as the access log and error messages show a request.
std::string request_line(const Request& request);
// What the access log shows for a refused request: its request line once the parser has it, else
// the first line of the bytes received, cut at 256 bytes.
std::string rejected_request_line(const RequestParser& parser, std::string_view unparsed);

}  // namespace mb
