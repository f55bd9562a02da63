// One MariaDB connection driven by the event loop through Connector/C's non-blocking API
// (MYSQL_OPT_NONBLOCK, mysql_*_start / mysql_*_cont): the library says which socket event it
// waits for, Asio waits for it on mysql_get_socket() (and a timer for MYSQL_WAIT_TIMEOUT), and
// the coroutine resumes the library. Nothing here ever blocks the thread.
//
// One operation at a time per connection, as the library requires. Errors are thrown as DbError;
// after a timeout or a lost link the connection is closed and is_open() turns false.
#pragma once

#include "common/config.hpp"
#include "common/coroutines.hpp"
#include "common/db/db_error.hpp"
#include "common/db/mysql_client.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <mysql.h>

#include <chrono>
#include <functional>
#include <string_view>

namespace mb {

class NonblockingDbConnection {
  public:
    NonblockingDbConnection(asio::any_io_executor executor, const DbConfig& config);
    // Abandons an open connection without network I/O; use close() for a polite goodbye.
    ~NonblockingDbConnection();
    NonblockingDbConnection(const NonblockingDbConnection&) = delete;
    NonblockingDbConnection& operator=(const NonblockingDbConnection&) = delete;

    bool is_open() const { return mysql_ != nullptr; }

    // Connects (TCP to an IP address, or the unix socket). Throws DbError(unavailable) on
    // failure or after --db-connect-timeout.
    awaitable<void> connect();

    // Runs sql and stores its whole result (after that, mysql_fetch_row never blocks). Throws
    // DbError: timeout past --db-timeout, unavailable when the link broke, failed when the
    // server answered with an error (the connection stays usable only in that case).
    awaitable<MysqlResult> query(std::string_view sql);

    // Says goodbye to the server (COM_QUIT) and closes.
    awaitable<void> close();

    // Makes the operation in progress, and every later one, end at once with
    // DbError(unavailable), closing the connection: for when the shutdown grace period is over.
    void cancel();

  private:
    using Clock = std::chrono::steady_clock;

    // Runs one library call: start() once, then cont(events) after each wait until the library
    // reports completion (status 0). Past the deadline the connection is abandoned and
    // on_deadline thrown; after cancel(), DbError(unavailable).
    awaitable<void> drive(std::function<int()> start, std::function<int(int)> cont,
                          Clock::time_point deadline, DbError on_deadline);
    // Waits for the MYSQL_WAIT_* events in status; returns those that occurred, 0 when the
    // deadline passed first.
    awaitable<int> wait_for(int status, Clock::time_point deadline);
    // Keeps socket_ on the descriptor the library currently uses (it may close it on errors).
    void follow_library_socket();
    [[noreturn]] void throw_query_error();
    // Frees the handle mid-operation, which the library permits; no waiting, no network I/O.
    void abandon();

    DbConfig config_;
    MYSQL* mysql_ = nullptr;
    asio::posix::stream_descriptor socket_;
    asio::steady_timer timer_;
    bool cancelled_ = false;
};

}  // namespace mb
