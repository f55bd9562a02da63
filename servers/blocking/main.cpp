// blocking-server: the Apache+PHP model. See README.md, "Blocking server".
#include "common/config.hpp"
#include "common/mysql_connection.hpp"
#include "servers/blocking/blocking_options.hpp"
#include "servers/blocking/server.hpp"
#include "servers/blocking/standalone.hpp"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

namespace {

constexpr const char* kProgram = "blocking-server";

int serve(const mb::CommandLine& command_line, const mb::blocking::BlockingOptions& options) {
    // SIGINT/SIGTERM are taken with sigwait() on this thread alone: blocked before any other
    // thread exists, every thread inherits the mask. SIGPIPE is off for the database sockets.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    signal(SIGPIPE, SIG_IGN);

    try {
        mb::blocking::Server server(command_line.http, command_line.db, options);
        server.start();
        // Announced once the acceptor runs, so from here on the process has its fixed threads.
        std::cout << "listening on " << server.url() << std::endl;
        std::cerr << kProgram << ": " << options.max_workers << " workers at most, "
                  << name_of(options.db_connection) << " database connections, keep-alive "
                  << (command_line.http.keepalive ? "on" : "off") << "\n";

        int received = 0;
        sigwait(&stop_signals, &received);
        std::cerr << kProgram << ": " << (received == SIGINT ? "SIGINT" : "SIGTERM")
                  << ": stopping; requests in flight may finish\n";
        server.stop();
        if (!server.wait(std::chrono::steady_clock::now() + command_line.http.io_timeout)) {
            std::cerr << kProgram << ": connections still busy after --timeout; exiting\n";
            // Their threads still use the server: leave without running destructors.
            std::fflush(nullptr);
            std::_Exit(0);
        }
        std::cerr << kProgram << ": stopped\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << kProgram << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace

int main(int argc, char* argv[]) {
    mb::CommandLine command_line(
        kProgram, "The blocking model (Apache+PHP): a thread per connection, blocking MySQL calls.",
        8081);
    mb::blocking::BlockingOptions options;
    mb::blocking::add_blocking_options(command_line.model_options(), options);
    if (!command_line.parse_or_exit(argc, argv)) {
        return 2;
    }
    mb::init_mysql_library();
    if (command_line.standalone) {
        return mb::blocking::run_standalone(command_line.db, options.db_connection,
                                            *command_line.standalone, options.concurrency);
    }
    return serve(command_line, options);
}
