#include "servers/async/cluster.hpp"

#include "common/event_log.hpp"
#include "servers/async/listener.hpp"
#include "servers/async/server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace mb::async {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A worker that dies young is restarted after a pause that doubles up to the maximum, so a
// worker that cannot start does not turn into a fork loop; one that ran a while restarts fast.
constexpr milliseconds kFirstBackoff{100};
constexpr milliseconds kMaxBackoff{5000};
constexpr auto kHealthyRun = std::chrono::seconds(10);

[[noreturn]] void throw_errno(const char* what) {
    throw std::system_error(errno, std::generic_category(), what);
}

// Owns a descriptor of the supervisor.
class Descriptor {
  public:
    explicit Descriptor(int fd = -1) : fd_(fd) {}
    ~Descriptor() { reset(); }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }
    void reset() {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

  private:
    int fd_;
};

std::string describe_exit(int status) {
    if (WIFSIGNALED(status)) {
        return std::string("killed by signal ") + std::to_string(WTERMSIG(status));
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

class Supervisor {
  public:
    Supervisor(const HttpConfig& http, const DbConfig& db, const CpuCostConfig& cost,
               const AsyncOptions& options)
        : http_(http),
          db_(db),
          cost_(cost),
          options_(options),
          slots_(options.worker_processes()) {}

    int run() {
        reserve_port();
        block_signals();
        int ready[2];
        if (::pipe2(ready, O_CLOEXEC) != 0) {
            throw_errno("pipe2");
        }
        ready_read_ = std::make_unique<Descriptor>(ready[0]);
        ready_write_ = std::make_unique<Descriptor>(ready[1]);
        for (unsigned index = 0; index < slots_.size(); ++index) {
            if (auto worker_exit = spawn(index)) {
                return *worker_exit;
            }
        }
        while (!(stopping_ && live_workers() == 0)) {
            if (auto worker_exit = step()) {
                return *worker_exit;
            }
        }
        log_event(failed_ ? "cluster stopped after a failed start" : "cluster stopped");
        return failed_ ? 1 : 0;
    }

  private:
    struct Slot {
        pid_t pid = -1;
        Clock::time_point started;
        std::optional<Clock::time_point> restart_at;
        milliseconds backoff = kFirstBackoff;
    };

    // Binds (without listening) the port every worker will listen on, so that port 0 becomes
    // one concrete port and the port stays ours while a worker restarts.
    void reserve_port() {
        endpoint_ = resolve_listen_address(http_.listen);
        // With SO_REUSEPORT this cluster could silently join the listeners of another server
        // that already has the port (same user, same option): a plain bind tells first.
        if (endpoint_.port() != 0) {
            const Descriptor probe(bind_socket(false));
        }
        reserved_ = std::make_unique<Descriptor>(bind_socket(true));
        const int fd = reserved_->get();
        sockaddr_storage bound{};
        socklen_t length = sizeof bound;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
        endpoint_.resize(length);
        std::copy_n(reinterpret_cast<const char*>(&bound), length,
                    reinterpret_cast<char*>(endpoint_.data()));
    }

    // A socket bound (not listening) to endpoint_, with SO_REUSEPORT or without.
    int bind_socket(bool reuse_port) {
        Descriptor socket(::socket(endpoint_.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
        const int on = 1;
        if (socket.get() < 0 ||
            ::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
            (reuse_port &&
             ::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0)) {
            throw_errno("socket");
        }
        if (::bind(socket.get(), endpoint_.data(), static_cast<socklen_t>(endpoint_.size())) != 0) {
            const int error = errno;  // before the message's allocations can change it
            throw std::system_error(error, std::generic_category(),
                                    "cannot listen on " + to_string(endpoint_));
        }
        return socket.release();
    }

    // The supervisor takes its signals from a signalfd; workers get the default mask back.
    void block_signals() {
        sigemptyset(&signals_);
        sigaddset(&signals_, SIGCHLD);
        sigaddset(&signals_, SIGINT);
        sigaddset(&signals_, SIGTERM);
        if (::sigprocmask(SIG_BLOCK, &signals_, nullptr) != 0) {
            throw_errno("sigprocmask");
        }
        signal_fd_ =
            std::make_unique<Descriptor>(::signalfd(-1, &signals_, SFD_CLOEXEC | SFD_NONBLOCK));
        if (signal_fd_->get() < 0) {
            throw_errno("signalfd");
        }
    }

    // Forks worker index. In the child, runs the worker and returns its exit code.
    std::optional<int> spawn(unsigned index) {
        std::cout.flush();
        std::fflush(nullptr);
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) {
            log_event(std::string("fork failed: ") + std::strerror(errno));
            schedule_restart(slots_[index]);
            return std::nullopt;
        }
        if (pid == 0) {
            return run_worker(index, parent);
        }
        slots_[index].pid = pid;
        slots_[index].started = Clock::now();
        slots_[index].restart_at.reset();
        return std::nullopt;
    }

    int run_worker(unsigned index, pid_t parent) {
        // An orphaned worker would keep serving the port unsupervised: die with the parent.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) {
            return 0;
        }
        reserved_->reset();
        signal_fd_->reset();
        ready_read_->reset();
        ::sigprocmask(SIG_UNBLOCK, &signals_, nullptr);
        const ServerPlan plan{index, static_cast<unsigned>(slots_.size()), ready_write_->get()};
        try {
            Server server(http_, db_, cost_, options_, endpoint_, plan);
            return server.run();
        } catch (const std::exception& e) {
            log_event(std::string("worker failed: ") + e.what());
            return 1;
        }
    }

    // Waits for the next event (signal, readiness byte, due restart) and handles it.
    std::optional<int> step() {
        pollfd watched[2] = {{signal_fd_->get(), POLLIN, 0}, {ready_read_->get(), POLLIN, 0}};
        if (::poll(watched, 2, poll_timeout_ms()) < 0 && errno != EINTR) {
            throw_errno("poll");
        }
        if ((watched[1].revents & POLLIN) != 0) {
            read_readiness();
        }
        if ((watched[0].revents & POLLIN) != 0) {
            signalfd_siginfo info{};
            while (::read(signal_fd_->get(), &info, sizeof info) == sizeof info) {
                if (info.ssi_signo == SIGCHLD) {
                    reap();
                } else {
                    forward(static_cast<int>(info.ssi_signo));
                }
            }
        }
        for (unsigned index = 0; index < slots_.size(); ++index) {
            const auto& due = slots_[index].restart_at;
            if (!stopping_ && due && *due <= Clock::now()) {
                if (auto worker_exit = spawn(index)) {
                    return worker_exit;
                }
            }
        }
        return std::nullopt;
    }

    int poll_timeout_ms() const {
        std::optional<Clock::time_point> next;
        for (const auto& slot : slots_) {
            if (slot.restart_at && (!next || *slot.restart_at < *next)) {
                next = slot.restart_at;
            }
        }
        if (!next || stopping_) {
            return -1;
        }
        const auto wait = std::chrono::duration_cast<milliseconds>(*next - Clock::now());
        return static_cast<int>(std::max<long long>(0, wait.count() + 1));
    }

    void read_readiness() {
        char bytes[64];
        const ssize_t n = ::read(ready_read_->get(), bytes, sizeof bytes);
        if (n <= 0) {
            return;
        }
        ready_count_ += static_cast<unsigned>(n);
        if (!announced_ && ready_count_ >= slots_.size()) {
            announced_ = true;
            log_event(std::to_string(slots_.size()) +
                      " worker processes listening (SO_REUSEPORT), supervisor pid " +
                      std::to_string(::getpid()));
            std::cout << "listening on " << listen_url({http_.listen.host, endpoint_.port()})
                      << std::endl;
        }
    }

    void reap() {
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
            const auto slot = std::find_if(slots_.begin(), slots_.end(),
                                           [pid](const Slot& s) { return s.pid == pid; });
            if (slot == slots_.end()) {
                continue;
            }
            slot->pid = -1;
            const auto index = std::to_string(slot - slots_.begin());
            if (stopping_) {
                continue;
            }
            if (!announced_) {
                // A worker that cannot even start (port taken, bad database settings) will not
                // do better on a retry: give up, and say why.
                log_event("worker " + index + " " + describe_exit(status) +
                          " before listening; stopping the cluster");
                failed_ = true;
                forward(SIGTERM);
                continue;
            }
            const milliseconds pause = schedule_restart(*slot);
            log_event("worker " + index + " (pid " + std::to_string(pid) + ") " +
                      describe_exit(status) + "; restarting it in " +
                      std::to_string(pause.count()) + " ms");
        }
    }

    // Returns the pause before the restart.
    milliseconds schedule_restart(Slot& slot) {
        if (Clock::now() - slot.started >= kHealthyRun) {
            slot.backoff = kFirstBackoff;
        }
        const milliseconds pause = slot.backoff;
        slot.restart_at = Clock::now() + pause;
        slot.backoff = std::min(slot.backoff * 2, kMaxBackoff);
        return pause;
    }

    // SIGINT/SIGTERM: the workers stop gracefully; a second signal makes them close at once.
    void forward(int signal_number) {
        stopping_ = true;
        for (auto& slot : slots_) {
            slot.restart_at.reset();
            if (slot.pid > 0) {
                ::kill(slot.pid, signal_number);
            }
        }
    }

    std::size_t live_workers() const {
        return std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.pid > 0; });
    }

    const HttpConfig& http_;
    const DbConfig& db_;
    const CpuCostConfig& cost_;
    const AsyncOptions& options_;
    std::vector<Slot> slots_;
    asio::ip::tcp::endpoint endpoint_;
    std::unique_ptr<Descriptor> reserved_;
    std::unique_ptr<Descriptor> signal_fd_;
    std::unique_ptr<Descriptor> ready_read_;
    std::unique_ptr<Descriptor> ready_write_;
    sigset_t signals_{};
    unsigned ready_count_ = 0;
    bool announced_ = false;
    bool stopping_ = false;
    bool failed_ = false;
};

}  // namespace

int run_cluster(const HttpConfig& http, const DbConfig& db, const CpuCostConfig& cost,
                const AsyncOptions& options) {
    Supervisor supervisor(http, db, cost, options);
    return supervisor.run();
}

}  // namespace mb::async
