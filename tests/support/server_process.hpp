// Starts a built server binary as a child process for integration tests, on a free port, and
// stops it again. The server announces readiness with "listening on http://HOST:PORT/" on stdout
// (a tool such as delay_proxy: "listening on HOST:PORT").
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mb::test {

// How the server process is set up beyond its arguments.
struct ProcessSetup {
    // stderr is a pipe that nobody reads (stderr_text() is then empty), as when a supervisor
    // stopped reading: it fills after 64 KiB.
    bool stderr_unread_pipe = false;
    // RLIMIT_AS of the server in bytes, 0: unchanged.
    std::size_t address_space_limit = 0;
};

class ServerProcess {
  public:
    // Adds --listen 127.0.0.1:0 unless args has --listen; waits up to 15 s for readiness and
    // throws std::runtime_error (with the server's stderr) when the server does not get there.
    ServerProcess(const std::string& binary, std::vector<std::string> args,
                  const ProcessSetup& setup = {});
    ~ServerProcess();
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    pid_t pid() const { return pid_; }
    std::uint16_t port() const { return port_; }
    bool running();

    // Sends sig and waits for the exit; returns the exit code, 128+signal when killed, or -1 when
    // the process did not exit within timeout (it is then killed).
    int stop(int sig, std::chrono::milliseconds timeout = std::chrono::seconds(15));

    // All that the server wrote to stdout / stderr so far.
    std::string stdout_text() const;
    std::string stderr_text() const;

  private:
    pid_t pid_ = -1;
    std::uint16_t port_ = 0;
    int exit_code_ = -1;
    std::string stdout_path_;
    std::string stderr_path_;
    int unread_stderr_ = -1;  // the read end of stderr_unread_pipe, held open, never read
};

// Absolute path of a built binary, from the BINARY_DIR compile definition of the tests.
std::string binary_path(const std::string& name);

// A figure in kB from /proc/PID/status: "VmRSS" (resident now), "VmHWM" (peak resident).
long status_kib(pid_t pid, const std::string& field);

// CPU seconds (user + system) of a process, or of one of its threads, from /proc (10 ms steps).
double cpu_seconds(pid_t pid, pid_t tid = 0);

// Count of entries in /proc/PID/task (threads) and /proc/PID/fd (open descriptors).
int thread_count(pid_t pid);
int fd_count(pid_t pid);

// Runs command with sh -c and waits for it: the exit status (-1 when killed), with its stdout and
// stderr together in output. For checking a binary's --help, --version and bad flags.
int run_command(const std::string& command, std::string& output);

}  // namespace mb::test
