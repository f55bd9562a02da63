#include "servers/blocking/database.hpp"

#include <stdexcept>
#include <utility>

namespace mb::blocking {

std::string_view name_of(DbConnectionMode mode) {
    return mode == DbConnectionMode::persistent ? "persistent" : "per-request";
}

std::optional<DbConnectionMode> parse_db_connection_mode(std::string_view text) {
    if (text == "per-request") {
        return DbConnectionMode::per_request;
    }
    if (text == "persistent") {
        return DbConnectionMode::persistent;
    }
    return std::nullopt;
}

std::unique_ptr<MysqlConnection> ConnectionCache::take() {
    std::lock_guard lock(mutex_);
    if (idle_.empty()) {
        return nullptr;
    }
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
}

void ConnectionCache::give_back(std::unique_ptr<MysqlConnection> connection) {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(connection));
}

std::size_t ConnectionCache::idle() const {
    std::lock_guard lock(mutex_);
    return idle_.size();
}

Database::Database(const DbConfig& config, DbConnectionMode mode, StatusCounters& counters,
                   ConnectionCache& cache)
    : config_(config), mode_(mode), counters_(counters), cache_(cache) {}

Database::~Database() {
    if (persistent_) {
        cache_.give_back(std::move(persistent_));
    }
}

std::unique_ptr<MysqlConnection> Database::connect() {
    auto connection = std::make_unique<MysqlConnection>(config_);
    counters_.db_connects.fetch_add(1, std::memory_order_relaxed);
    return connection;
}

template <class Work>
auto Database::run(MysqlConnection& connection, unsigned delay_ms, Work& work) {
    try {
        if (delay_ms > 0) {
            connection.query(sleep_query(delay_ms));
        }
        return work(connection);
    } catch (const DbError&) {
        throw;
    } catch (const std::runtime_error& e) {
        // check_workload_result(): a result of an unexpected shape, from a working connection.
        throw DbError(DbError::Kind::failed, e.what(), false);
    }
}

template <class Work>
auto Database::with_connection(unsigned delay_ms, Work&& work) {
    if (mode_ == DbConnectionMode::per_request) {
        const auto connection = connect();
        return run(*connection, delay_ms, work);
    }
    if (!persistent_) {
        persistent_ = cache_.take();
        persistent_from_cache_ = persistent_ != nullptr;
        if (!persistent_) {
            persistent_ = connect();
        }
    }
    const bool may_be_stale = std::exchange(persistent_from_cache_, false);
    try {
        return run(*persistent_, delay_ms, work);
    } catch (const DbError& e) {
        if (!e.connection_broken) {
            throw;
        }
        persistent_.reset();
        if (!may_be_stale || e.kind != DbError::Kind::unavailable) {
            throw;
        }
    }
    persistent_ = connect();
    return run(*persistent_, delay_ms, work);
}

HtmlResults Database::html_results(unsigned delay_ms) {
    return with_connection(delay_ms, [](MysqlConnection& connection) {
        HtmlResults results{connection.query(kProductsQuery), connection.query(kOrdersQuery)};
        check_workload_result(results.products.get());
        check_workload_result(results.orders.get());
        return results;
    });
}

MysqlResult Database::orders(unsigned delay_ms) {
    return with_connection(delay_ms, [](MysqlConnection& connection) {
        MysqlResult orders = connection.query(kOrdersQuery);
        check_workload_result(orders.get());
        return orders;
    });
}

}  // namespace mb::blocking
