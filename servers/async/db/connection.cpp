#include "servers/async/db/connection.hpp"

#include <sys/socket.h>

#include <memory>

namespace mb::async {
namespace {

// One wait: the socket's readiness races a timer. The coroutine resumes only once every
// operation started for this wait has completed (the losers come back as operation_aborted),
// so no stale handler can ever fire into a later wait.
template <typename Handler>
struct EventWait {
    explicit EventWait(Handler h) : handler(std::move(h)) {}

    void finish() {
        if (--pending == 0) {
            std::move(handler)(events);
        }
    }

    Handler handler;
    int pending = 0;
    int events = 0;
};

const DbError kQueryTimedOut(DbError::Kind::timeout,
                             "query exceeded --db-timeout; connection closed");
const DbError kCancelled(DbError::Kind::unavailable, "database work cancelled: server stopping");

}  // namespace

DbConnection::DbConnection(asio::any_io_executor executor, const DbConfig& config)
    : config_(config), socket_(executor), timer_(executor) {}

DbConnection::~DbConnection() { abandon(); }

awaitable<void> DbConnection::connect() {
    if (mysql_ != nullptr) {
        co_return;
    }
    mysql_ = mysql_init(nullptr);
    if (mysql_ == nullptr) {
        throw DbError(DbError::Kind::unavailable, "mysql_init: out of memory");
    }
    mysql_options(mysql_, MYSQL_OPT_NONBLOCK, nullptr);  // default stack for suspended calls
    mysql_options(mysql_, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    // "localhost" makes the library use the unix socket. Otherwise config_.host is an IP
    // address (main() resolved any name at start-up), so connecting never does a DNS lookup.
    const bool use_socket = !config_.socket.empty();
    const char* host = use_socket ? "localhost" : config_.host.c_str();
    const char* unix_socket = use_socket ? config_.socket.c_str() : nullptr;
    const unsigned port = use_socket ? 0 : config_.port;
    MYSQL* connected = nullptr;
    co_await drive(
        [&] {
            return mysql_real_connect_start(&connected, mysql_, host, config_.user.c_str(),
                                            config_.password.c_str(), config_.database.c_str(),
                                            port, unix_socket, 0);
        },
        [&](int events) { return mysql_real_connect_cont(&connected, mysql_, events); },
        Clock::now() + config_.connect_timeout,
        DbError(DbError::Kind::unavailable, "cannot connect to the database: timed out"));
    if (connected == nullptr) {
        DbError error(DbError::Kind::unavailable,
                      std::string("cannot connect to the database: ") + mysql_error(mysql_));
        abandon();
        throw error;
    }
    follow_library_socket();
}

awaitable<MysqlResult> DbConnection::query(std::string_view sql) {
    if (mysql_ == nullptr) {
        throw DbError(DbError::Kind::unavailable, "database connection is closed");
    }
    const auto deadline = Clock::now() + config_.query_timeout;
    int failed = 0;
    co_await drive([&] { return mysql_real_query_start(&failed, mysql_, sql.data(), sql.size()); },
                   [&](int events) { return mysql_real_query_cont(&failed, mysql_, events); },
                   deadline, kQueryTimedOut);
    if (failed != 0) {
        throw_query_error();
    }
    MYSQL_RES* stored = nullptr;
    co_await drive([&] { return mysql_store_result_start(&stored, mysql_); },
                   [&](int events) { return mysql_store_result_cont(&stored, mysql_, events); },
                   deadline, kQueryTimedOut);
    MysqlResult result(stored);
    if (!result && mysql_field_count(mysql_) != 0) {
        throw_query_error();
    }
    co_return result;
}

awaitable<void> DbConnection::close() {
    if (mysql_ == nullptr) {
        co_return;
    }
    co_await drive([&] { return mysql_close_start(mysql_); },
                   [&](int events) { return mysql_close_cont(mysql_, events); },
                   Clock::now() + config_.connect_timeout,
                   DbError(DbError::Kind::unavailable, "closing the connection timed out"));
    // The library has closed the socket and freed the handle. Release (not close) the
    // descriptor: the number is still ours, nothing else ran on this thread since.
    mysql_ = nullptr;
    if (socket_.is_open()) {
        socket_.release();
    }
}

void DbConnection::cancel() {
    cancelled_ = true;
    error_code ignored;
    socket_.cancel(ignored);
    timer_.cancel();
}

awaitable<void> DbConnection::drive(std::function<int()> start, std::function<int(int)> cont,
                                    Clock::time_point deadline, DbError on_deadline) {
    if (cancelled_) {
        abandon();
        throw kCancelled;
    }
    int status = start();
    while (status != 0) {
        follow_library_socket();
        const bool needs_socket =
            (status & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE | MYSQL_WAIT_EXCEPT)) != 0;
        int events = 0;
        if (!cancelled_ && Clock::now() < deadline && (socket_.is_open() || !needs_socket)) {
            events = co_await wait_for(status, deadline);
        }
        if (events == 0 || cancelled_) {
            const bool stopping = cancelled_;
            abandon();
            throw stopping ? kCancelled : on_deadline;
        }
        status = cont(events);
    }
}

awaitable<int> DbConnection::wait_for(int status, Clock::time_point deadline) {
    auto expiry = deadline;
    bool library_timeout = false;
    if ((status & MYSQL_WAIT_TIMEOUT) != 0) {
        const auto requested =
            Clock::now() + std::chrono::milliseconds(mysql_get_timeout_value_ms(mysql_));
        if (requested < expiry) {
            expiry = requested;
            library_timeout = true;
        }
    }
    timer_.expires_at(expiry);
    auto initiate = [this, status, library_timeout](auto handler) {
        auto wait = std::make_shared<EventWait<decltype(handler)>>(std::move(handler));
        const auto on_ready = [this, wait](int event) {
            return [this, wait, event](const error_code& ec) {
                // An error other than our own cancel is news for the library too: let it look.
                if (ec != asio::error::operation_aborted) {
                    wait->events |= event;
                    timer_.cancel();
                    error_code ignored;
                    socket_.cancel(ignored);
                }
                wait->finish();
            };
        };
        if ((status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT)) != 0) {
            ++wait->pending;
            socket_.async_wait(asio::posix::stream_descriptor::wait_read,
                               on_ready(status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT)));
        }
        if ((status & MYSQL_WAIT_WRITE) != 0) {
            ++wait->pending;
            socket_.async_wait(asio::posix::stream_descriptor::wait_write,
                               on_ready(MYSQL_WAIT_WRITE));
        }
        ++wait->pending;
        timer_.async_wait([this, wait, library_timeout](const error_code& ec) {
            if (!ec) {
                if (library_timeout) {
                    wait->events |= MYSQL_WAIT_TIMEOUT;
                }
                error_code ignored;
                socket_.cancel(ignored);
            }
            wait->finish();
        });
    };
    co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(int)>(
        std::move(initiate), use_awaitable);
}

void DbConnection::follow_library_socket() {
    const int fd = mysql_get_socket(mysql_);
    if (socket_.is_open() && socket_.native_handle() != fd) {
        socket_.release();
    }
    if (!socket_.is_open() && fd >= 0) {
        socket_.assign(fd);
    }
}

void DbConnection::throw_query_error() {
    const DbError error = statement_error(mysql_errno(mysql_), mysql_error(mysql_));
    if (error.connection_broken) {
        abandon();
    }
    throw error;
}

void DbConnection::abandon() {
    if (mysql_ == nullptr) {
        return;
    }
    const int fd = mysql_get_socket(mysql_);
    // Never let Asio close the library's descriptor: that would close it twice.
    if (socket_.is_open()) {
        socket_.release();
    }
    // mysql_close() still sends a goodbye; on a shut-down socket that send fails at once
    // instead of ever waiting for room in the socket buffer.
    if (fd >= 0) {
        ::shutdown(fd, SHUT_RDWR);
    }
    mysql_close(mysql_);
    mysql_ = nullptr;
}

}  // namespace mb::async
