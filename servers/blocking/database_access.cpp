#include "servers/blocking/database_access.hpp"

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

std::unique_ptr<BlockingDbConnection> ConnectionCache::take() {
    std::lock_guard lock(mutex_);
    if (idle_.empty()) {
        return nullptr;
    }
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
}

void ConnectionCache::give_back(std::unique_ptr<BlockingDbConnection> connection) {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(connection));
}

std::size_t ConnectionCache::idle() const {
    std::lock_guard lock(mutex_);
    return idle_.size();
}

DatabaseAccess::DatabaseAccess(const DbConfig& config, DbConnectionMode mode,
                               StatusCounters& counters, ConnectionCache& cache)
    : config_(config), mode_(mode), counters_(counters), cache_(cache) {}

DatabaseAccess::~DatabaseAccess() {
    if (persistent_) {
        cache_.give_back(std::move(persistent_));
    }
}

std::unique_ptr<BlockingDbConnection> DatabaseAccess::connect() {
    auto connection = std::make_unique<BlockingDbConnection>(config_);
    connection->connect();
    counters_.db_connects.fetch_add(1, std::memory_order_relaxed);
    return connection;
}

namespace {

void run_statements(BlockingDbConnection& connection, TableFetch& fetch) {
    while (const auto sql = fetch.next()) {
        fetch.take(connection.query(*sql));
    }
}

}  // namespace

void DatabaseAccess::run(TableFetch& fetch) {
    if (mode_ == DbConnectionMode::per_request) {
        run_statements(*connect(), fetch);
        return;
    }
    if (!persistent_) {
        persistent_ = cache_.take();
        persistent_idle_ = persistent_ != nullptr;
        if (!persistent_) {
            persistent_ = connect();
        }
    }
    const bool after_idle = std::exchange(persistent_idle_, false);
    try {
        run_statements(*persistent_, fetch);
        return;
    } catch (const DbError& e) {
        if (e.connection_broken) {
            persistent_.reset();
        }
        if (!retry_on_fresh_connection(e, after_idle && fetch.at_start())) {
            throw;
        }
    }
    persistent_ = connect();
    run_statements(*persistent_, fetch);
}

}  // namespace mb::blocking
