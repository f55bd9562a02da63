#include "servers/async/standalone.hpp"

#include "common/pages/render.hpp"
#include "common/standalone_report.hpp"
#include "common/status_counters.hpp"
#include "servers/async/connection_pool.hpp"
#include "servers/async/fetch.hpp"

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>

namespace mb::async {
namespace {

class StandaloneRun {
  public:
    StandaloneRun(const DbConfig& db, const CpuCostConfig& cost, unsigned iterations,
                  unsigned concurrency)
        : iterations_(iterations),
          cost_(cost),
          lanes_(std::min(concurrency, iterations)),
          // Every lane holds its two connections, so nobody ever waits for one.
          pool_(io_.get_executor(), db, 2 * lanes_, 0, std::chrono::hours(1), counters_) {}

    // Returns the process exit code.
    int run() {
        const RunTimer timer;
        for (unsigned lane = 0; lane < lanes_; ++lane) {
            asio::co_spawn(io_, run_lane(), [this, &timer](std::exception_ptr e) {
                if (e && error_.empty()) {
                    error_ = describe(e);
                }
                if (--lanes_running_ == 0) {
                    times_ = timer.elapsed();
                    asio::co_spawn(io_, pool_.close(), [](std::exception_ptr) {});
                }
            });
        }
        lanes_running_ = lanes_;
        io_.run();
        if (!error_.empty()) {
            std::cerr << "async-server: standalone run failed: " << error_ << "\n";
            return 1;
        }
        print_standalone_report(std::cout, "async", iterations_, page_bytes_, *times_, cost_);
        std::cout << "in flight\t" << lanes_ << "\n"
                  << "db connections\t" << 2 * lanes_ << "\n";
        return 0;
    }

  private:
    // One of the K lanes: takes the next iteration until all are taken or one failed.
    awaitable<void> run_lane() {
        while (error_.empty() && started_ < iterations_) {
            ++started_;
            cost_.spend_request();
            const HtmlResults results = co_await fetch_html_results(pool_, 0, nullptr);
            cost_.spend_rows(rows_of(results));
            ResultRows products(results.products.get());
            ResultRows orders(results.orders.get());
            page_bytes_ = render_html_page(products, orders).size();
            report_standalone_progress(++finished_, iterations_);
        }
    }

    static std::string describe(std::exception_ptr e) {
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& failure) {
            return failure.what();
        } catch (...) {
            return "unknown error";
        }
    }

    const unsigned iterations_;
    CpuCost cost_;
    const unsigned lanes_;
    asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE};  // one thread, as in the server
    StatusCounters counters_;
    ConnectionPool pool_;
    unsigned lanes_running_ = 0;
    unsigned started_ = 0;
    unsigned finished_ = 0;
    std::size_t page_bytes_ = 0;
    std::string error_;
    std::optional<RunTimes> times_;
};

}  // namespace

int run_standalone(const DbConfig& db, const CpuCostConfig& cost, unsigned iterations,
                   unsigned concurrency) {
    StandaloneRun run(db, cost, iterations, concurrency);
    return run.run();
}

}  // namespace mb::async
