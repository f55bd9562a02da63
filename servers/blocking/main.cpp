// blocking-server: the Apache+PHP model. See README.md, "Blocking server".
#include "common/command_line.hpp"
#include "common/db/blocking_connection.hpp"
#include "common/event_log.hpp"
#include "servers/blocking/options.hpp"
#include "servers/blocking/server.hpp"
#include "servers/blocking/standalone.hpp"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

namespace {

constexpr const char* kProgram = "blocking-server";

// Worker threads still use the server: leave without running destructors.
[[noreturn]] void leave_now(std::string_view why) {
    mb::log_event(why);
    std::fflush(nullptr);
    std::_Exit(0);
}

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
        mb::blocking::Server server(command_line.http, command_line.db, command_line.cost, options);
        server.start();
        // Announced once the acceptor runs, so from here on the process has its fixed threads.
        std::cout << "listening on " << server.url() << std::endl;
        std::cerr << kProgram << ": " << options.max_workers << " workers at most, "
                  << name_of(options.lifecycle) << " threads";
        if (options.lifecycle == mb::blocking::Lifecycle::prefork) {
            const auto& rules = options.prefork;
            std::cerr << " (" << rules.start_servers << " started, " << rules.min_spare << " to "
                      << rules.max_spare << " spare)";
        }
        std::cerr << ", " << name_of(options.db_connection) << " database connections, keep-alive "
                  << (command_line.http.keepalive ? "on" : "off") << "\n";

        int received = 0;
        sigwait(&stop_signals, &received);
        mb::log_event(std::string(received == SIGINT ? "SIGINT" : "SIGTERM") +
                      ": stopping; requests in flight may finish");
        server.stop();
        // Requests in flight get --timeout to finish; a second signal ends the wait at once.
        const auto deadline = std::chrono::steady_clock::now() + command_line.http.io_timeout;
        while (!server.wait(std::chrono::steady_clock::now())) {
            const timespec pace{0, 50'000'000};
            if (sigtimedwait(&stop_signals, nullptr, &pace) > 0) {
                leave_now("second signal: exiting now, cutting the connections still busy");
            }
            if (std::chrono::steady_clock::now() >= deadline) {
                leave_now("connections still busy after --timeout; exiting");
            }
        }
        mb::log_event("stopped");
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
    mb::blocking::add_blocking_options(command_line, options);
    if (!command_line.parse_or_exit(argc, argv)) {
        return 2;
    }
    mb::set_event_log_program(kProgram);
    mb::init_mysql_library();
    if (command_line.standalone) {
        return mb::blocking::run_standalone(command_line.db, command_line.cost,
                                            options.db_connection, *command_line.standalone,
                                            options.concurrency);
    }
    return serve(command_line, options);
}
