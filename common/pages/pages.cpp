#include "common/pages/pages.hpp"

#include "common/pages/factorial.hpp"
#include "common/pages/render.hpp"

#include <unistd.h>

#include <random>
#include <utility>

namespace mb {

Pages::Pages(ServerIdentity identity)
    : identity_(std::move(identity)),
      responses_("modelbench-" + identity_.model + "/" MODELBENCH_VERSION " (" +
                 identity_.description + ")") {}

Response Pages::ready(const Route& route, const ResponseShape& shape) const {
    switch (route.endpoint) {
        case Endpoint::hello: {
            // E2's handler runs an empty loop to 10 before answering; kept for fidelity.
            volatile int i = 0;
            while (i < 10) {
                i = i + 1;
            }
            return responses_.make_static(shape, http::status::ok, kTextPlain, kHelloBody);
        }
        case Endpoint::factorial: {
            thread_local std::mt19937 random{std::random_device{}()};
            const unsigned n =
                route.n ? *route.n : std::uniform_int_distribution<unsigned>(10, 40)(random);
            return responses_.make(shape, http::status::ok, kTextPlain, render_factorial(n));
        }
        default:
            return responses_.make(shape, http::status::ok, kTextHtml,
                                   render_index_page(identity_.program, identity_.description));
    }
}

Response Pages::status(const ResponseShape& shape, nlohmann::json figures) const {
    figures["server"] = identity_.program;
    figures["model"] = identity_.model;
    figures["pid"] = ::getpid();
    return responses_.make(shape, http::status::ok, kApplicationJson, figures.dump());
}

Response Pages::html(const ResponseShape& shape, const HtmlResults& results) const {
    ResultRows products(results.products.get());
    ResultRows orders(results.orders.get());
    return responses_.make(shape, http::status::ok, kTextHtml, render_html_page(products, orders));
}

Response Pages::json(const ResponseShape& shape, const MysqlResult& orders) const {
    ResultRows rows(orders.get());
    return responses_.make(shape, http::status::ok, kApplicationJson, render_orders_json(rows));
}

Response Pages::tasks(const ResponseShape& shape, TaskOrder order, unsigned delay_ms) const {
    const std::string delay = std::to_string(delay_ms) + " ms";
    std::string body = order == TaskOrder::two_before_response
                           ? "task one\ntask two (after " + delay +
                                 ")\ntask three\n"
                                 "task two ran before this response: the worker waited for it\n"
                           : "task one\ntask three\n"
                             "task two runs " +
                                 delay + " after task one, after this response was sent\n";
    return responses_.make(shape, http::status::ok, kTextPlain, std::move(body));
}

Response Pages::error(const ResponseShape& shape, const HttpError& error) const {
    return responses_.error(shape, error);
}

}  // namespace mb
