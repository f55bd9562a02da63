#include "servers/async/connection_pool.hpp"

#include "common/event_log.hpp"
#include "common/exchange.hpp"

#include <algorithm>
#include <string>

namespace mb::async {

ConnectionPool::Lease::Lease(Lease&& other) noexcept : pool_(other.pool_), slot_(other.slot_) {
    other.slot_ = nullptr;
}

ConnectionPool::Lease& ConnectionPool::Lease::operator=(Lease&& other) noexcept {
    if (this != &other) {
        give_back();
        pool_ = other.pool_;
        slot_ = other.slot_;
        other.slot_ = nullptr;
    }
    return *this;
}

ConnectionPool::Lease::~Lease() { give_back(); }

void ConnectionPool::Lease::give_back() {
    if (slot_ != nullptr) {
        pool_->release(slot_);
        slot_ = nullptr;
    }
}

awaitable<void> ConnectionPool::Lease::run(TableFetch& fetch) {
    NonblockingDbConnection& connection = slot_->connection;
    const bool after_idle = slot_->reused && connection.is_open();
    if (!connection.is_open()) {
        co_await pool_->open(*slot_);
    }
    bool retry = false;
    try {
        while (const auto sql = fetch.next()) {
            fetch.take(co_await connection.query(*sql));
        }
    } catch (const DbError& e) {
        retry = !pool_->stopping_ && retry_on_fresh_connection(e, after_idle && fetch.at_start());
        if (!retry) {
            throw;
        }
    }
    if (retry) {
        co_await pool_->open(*slot_);
        while (const auto sql = fetch.next()) {
            fetch.take(co_await connection.query(*sql));
        }
    }
}

ConnectionPool::ConnectionPool(asio::any_io_executor executor, const DbConfig& config,
                               std::size_t size, std::size_t queue_limit,
                               std::chrono::milliseconds queue_timeout, StatusCounters& counters)
    : executor_(std::move(executor)),
      config_(config),
      size_(size),
      queue_limit_(queue_limit),
      queue_timeout_(queue_timeout),
      counters_(counters) {
    slots_.reserve(size_);
    idle_.reserve(size_);
}

ConnectionPool::~ConnectionPool() = default;

awaitable<ConnectionPool::Lease> ConnectionPool::acquire(const void* requester) {
    if (stopping_) {
        throw DbError(DbError::Kind::unavailable, "server stopping");
    }
    if (!idle_.empty()) {
        Slot* slot = idle_.back();
        idle_.pop_back();
        co_return Lease(this, slot);
    }
    if (slots_.size() < size_) {
        slots_.push_back(std::make_unique<Slot>(executor_, config_));
        co_return Lease(this, slots_.back().get());
    }
    if (queue_limit_ != 0 && waiters_.size() >= queue_limit_) {
        ++rejected_;
        throw ServiceUnavailable("database queue full");
    }
    Waiter waiter(executor_, requester);
    waiter.wake.expires_after(queue_timeout_);
    const auto position = waiters_.insert(waiters_.end(), &waiter);
    waiter.queued = true;
    error_code woken;  // operation_aborted: release(), drop_waiters_of() or cancel_all() woke us
    co_await waiter.wake.async_wait(into(woken));
    if (waiter.queued) {
        waiters_.erase(position);  // the deadline woke us
    }
    // A grant wins even over a deadline that passed in the same turn of the loop.
    if (waiter.granted != nullptr) {
        co_return Lease(this, waiter.granted);
    }
    if (waiter.dropped) {
        throw ClientGone();
    }
    if (stopping_) {
        throw DbError(DbError::Kind::unavailable, "server stopping");
    }
    ++timed_out_;
    throw ServiceUnavailable("database queue wait timed out");
}

void ConnectionPool::drop_waiters_of(const void* requester) {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
        Waiter* waiter = *it;
        if (waiter->requester != requester) {
            ++it;
            continue;
        }
        waiter->dropped = true;
        waiter->queued = false;
        waiter->wake.cancel();
        it = waiters_.erase(it);
        ++dropped_;
    }
}

void ConnectionPool::release(Slot* slot) {
    slot->reused = true;
    if (!waiters_.empty()) {
        Waiter* next = waiters_.front();
        waiters_.pop_front();
        next->queued = false;
        next->granted = slot;
        next->wake.cancel();
        return;
    }
    idle_.push_back(slot);
}

awaitable<void> ConnectionPool::open(Slot& slot) {
    try {
        co_await slot.connection.connect();
    } catch (const DbError& e) {
        note_database_state(false, e.what());
        throw;
    }
    counters_.db_connects.fetch_add(1, std::memory_order_relaxed);
    note_database_state(true, nullptr);
}

void ConnectionPool::note_database_state(bool reachable, const char* error) {
    if (reachable == reachable_) {
        return;
    }
    reachable_ = reachable;
    log_event(
        reachable
            ? std::string("database reachable again")
            : std::string("database unreachable (requests needing it fail until it is back): ") +
                  error);
}

void ConnectionPool::cancel_all() {
    stopping_ = true;
    for (Waiter* waiter : waiters_) {
        waiter->queued = false;
        waiter->wake.cancel();
    }
    waiters_.clear();
    for (const auto& slot : slots_) {
        if (std::find(idle_.begin(), idle_.end(), slot.get()) == idle_.end()) {
            slot->connection.cancel();
        }
    }
}

awaitable<void> ConnectionPool::close() {
    stopping_ = true;
    for (Slot* slot : idle_) {
        try {
            co_await slot->connection.close();
        } catch (const DbError&) {
            // Closing is a courtesy to the server; the connection is gone either way.
        }
    }
}

nlohmann::json ConnectionPool::status() const {
    const auto open = std::count_if(slots_.begin(), slots_.end(),
                                    [](const auto& slot) { return slot->connection.is_open(); });
    return {
        {"size", size_},
        {"open", open},
        {"busy", slots_.size() - idle_.size()},
        {"idle", idle_.size()},
        {"queued", waiters_.size()},
        {"queue_limit", queue_limit_},
        {"queue_timeout_s", static_cast<double>(queue_timeout_.count()) / 1000},
        {"rejected", rejected_},
        {"timed_out", timed_out_},
        {"dropped", dropped_},
    };
}

}  // namespace mb::async
