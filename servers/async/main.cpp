// async-server: the Node.js model. See README.md, "Async server".
#include "common/command_line.hpp"
#include "common/db/blocking_connection.hpp"
#include "common/event_log.hpp"
#include "servers/async/cluster.hpp"
#include "servers/async/listener.hpp"
#include "servers/async/options.hpp"
#include "servers/async/server.hpp"
#include "servers/async/standalone.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <csignal>
#include <ctime>
#include <exception>
#include <iostream>

namespace {

constexpr const char* kProgram = "async-server";

// Connector/C resolves a host name with a blocking getaddrinfo() inside connect. The event loop
// must never block, so a name is resolved once here, before the loop starts; "localhost" means
// the unix socket to the library and is left alone.
void resolve_database_host(mb::DbConfig& db) {
    if (!db.socket.empty() || db.host == "localhost") {
        return;
    }
    boost::system::error_code not_an_address;
    boost::asio::ip::make_address(db.host, not_an_address);
    if (!not_an_address) {
        return;
    }
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    const auto found = resolver.resolve(db.host, std::to_string(db.port));
    const std::string address = found.begin()->endpoint().address().to_string();
    std::cerr << kProgram << ": --db-host " << db.host << " is " << address
              << " (resolved once at start-up)\n";
    db.host = address;
}

}  // namespace

int main(int argc, char* argv[]) {
    mb::CommandLine command_line(
        kProgram,
        "The async model (Node.js): one thread, one event loop, non-blocking MySQL, a pool.", 8082);
    mb::async::AsyncOptions options;
    options.add_to(command_line);
    if (!command_line.parse_or_exit(argc, argv)) {
        return 2;
    }
    mb::set_event_log_program(kProgram);
    // A client that disconnects must cost an error code, never the process.
    std::signal(SIGPIPE, SIG_IGN);
    // glibc's strftime() (the Date header) reads /etc/localtime on first use: a file read the
    // loop would otherwise do for the first response. Done here, before the loop runs.
    tzset();
    mb::init_mysql_library();
    try {
        resolve_database_host(command_line.db);
        if (command_line.standalone) {
            return mb::async::run_standalone(command_line.db, command_line.cost,
                                             *command_line.standalone, options.concurrency);
        }
        if (options.worker_processes() > 1) {
            return mb::async::run_cluster(command_line.http, command_line.db, command_line.cost,
                                          options);
        }
        mb::async::Server server(command_line.http, command_line.db, command_line.cost, options,
                                 mb::async::resolve_listen_address(command_line.http.listen),
                                 mb::async::ServerPlan{});
        return server.run();
    } catch (const std::exception& e) {
        std::cerr << kProgram << ": " << e.what() << "\n";
        return 1;
    }
}
