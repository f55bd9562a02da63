// The responses of every endpoint and every error, from what they show. Pure: no counters, no
// logs, no I/O; what to answer is decided in common/exchange, how to send it by a server.
#pragma once

#include "common/db/workload.hpp"
#include "common/http/response.hpp"
#include "common/http/routing.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace mb {

struct ServerIdentity {
    std::string program;      // "blocking-server"
    std::string model;        // "blocking" | "async"
    std::string description;  // one line for the index page and the Server header
};

// In which order /tasks' three tasks ran: the blocking model waits for task two before it
// answers, the async model answers and runs task two later.
enum class TaskOrder { two_before_response, two_after_response };

class Pages {
  public:
    explicit Pages(ServerIdentity identity);

    const ServerIdentity& identity() const { return identity_; }

    // The pages that need no work of the model: /, /hello, /factorial.
    Response ready(const Route& route, const ResponseShape& shape) const;
    // /status: figures, with the server's name, model and process id added.
    Response status(const ResponseShape& shape, nlohmann::json figures) const;
    // /html and /json from stored results that passed check_workload_result().
    Response html(const ResponseShape& shape, const HtmlResults& results) const;
    Response json(const ResponseShape& shape, const MysqlResult& orders) const;
    // /tasks: which order the three tasks ran in.
    Response tasks(const ResponseShape& shape, TaskOrder order, unsigned delay_ms) const;
    // 405 adds Allow: GET, HEAD; 503 adds Retry-After: 1.
    Response error(const ResponseShape& shape, const HttpError& error) const;

  private:
    ServerIdentity identity_;
    ResponseFactory responses_;
};

}  // namespace mb
