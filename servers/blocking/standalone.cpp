#include "servers/blocking/standalone.hpp"

#include "common/db/workload.hpp"
#include "common/pages/render.hpp"
#include "common/standalone_report.hpp"
#include "common/status_counters.hpp"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mb::blocking {
namespace {

class StandaloneRun {
  public:
    StandaloneRun(const DbConfig& db, const CpuCostConfig& cost, DbConnectionMode mode,
                  unsigned iterations)
        : db_(db), mode_(mode), iterations_(iterations), cost_(cost) {}

    // One thread's share: per-request mode connects every iteration, persistent mode once.
    void run(unsigned share) {
        try {
            DatabaseAccess database(db_, mode_, counters_, cache_);
            for (unsigned i = 0; i < share && !failed_.load(); ++i) {
                cost_.spend_request();
                TableFetch fetch({Table::products, Table::orders}, 0);
                database.run(fetch);
                const HtmlResults results{fetch.result(0), fetch.result(1)};
                cost_.spend_rows(rows_of(results));
                ResultRows products(results.products.get());
                ResultRows orders(results.orders.get());
                const TextBuffer page = render_html_page(products, orders);
                page_bytes_.store(page.size(), std::memory_order_relaxed);
                report_standalone_progress(done_.fetch_add(1) + 1, iterations_);
            }
        } catch (const DbError& e) {
            std::lock_guard lock(error_mutex_);
            if (!failed_.exchange(true)) {
                error_ = e.what();
            }
        }
    }

    bool failed() const { return failed_.load(); }
    const std::string& error() const { return error_; }
    std::size_t page_bytes() const { return page_bytes_.load(); }
    const CpuCost& cost() const { return cost_; }

  private:
    const DbConfig& db_;
    const DbConnectionMode mode_;
    const unsigned iterations_;
    CpuCost cost_;
    StatusCounters counters_;
    ConnectionCache cache_;
    std::atomic<unsigned> done_{0};
    std::atomic<std::size_t> page_bytes_{0};
    std::atomic<bool> failed_{false};
    std::mutex error_mutex_;
    std::string error_;
};

}  // namespace

int run_standalone(const DbConfig& db, const CpuCostConfig& cost, DbConnectionMode mode,
                   unsigned iterations, unsigned concurrency) {
    concurrency = std::min(concurrency, iterations);
    StandaloneRun run(db, cost, mode, iterations);
    const RunTimer timer;
    std::vector<std::thread> threads;
    for (unsigned k = 0; k < concurrency; ++k) {
        const unsigned share = iterations / concurrency + (k < iterations % concurrency ? 1 : 0);
        threads.emplace_back([&run, share] { run.run(share); });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    const RunTimes times = timer.elapsed();
    if (run.failed()) {
        std::cerr << "blocking-server: standalone run failed: " << run.error() << "\n";
        return 1;
    }
    print_standalone_report(std::cout, "blocking", iterations, run.page_bytes(), times, run.cost());
    std::cout << "threads\t" << concurrency << "\n"
              << "db-connection\t" << name_of(mode) << "\n";
    return 0;
}

}  // namespace mb::blocking
