#include "tests/support/server_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mb::test {
namespace {

int count_entries(const std::string& dir) {
    std::error_code ec;
    int n = 0;
    for (auto it = std::filesystem::directory_iterator(dir, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        ++n;
    }
    return n;
}

std::string make_temp_file(const char* what) {
    std::string path = std::string("/tmp/modelbench-server-") + what + "-XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd < 0) {
        throw std::runtime_error("mkstemp failed");
    }
    close(fd);
    return path;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

std::string binary_path(const std::string& name) {
    return std::string(MODELBENCH_BINARY_DIR) + "/" + name;
}

long status_kib(pid_t pid, const std::string& field) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(field + ":", 0) == 0) {
            return std::stol(line.substr(field.size() + 1));
        }
    }
    return -1;
}

double cpu_seconds(pid_t pid, pid_t tid) {
    const std::string path = "/proc/" + std::to_string(pid) +
                             (tid != 0 ? "/task/" + std::to_string(tid) : std::string()) + "/stat";
    std::ifstream stat(path);
    std::string line;
    std::getline(stat, line);
    // Fields after "pid (comm) ": state is the 3rd field, utime the 14th, stime the 15th.
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i >= 14) {
            ticks += std::stod(field);
        }
    }
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

int thread_count(pid_t pid) { return count_entries("/proc/" + std::to_string(pid) + "/task"); }

int fd_count(pid_t pid) { return count_entries("/proc/" + std::to_string(pid) + "/fd"); }

int run_command(const std::string& command, std::string& output) {
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) {
        return -1;
    }
    char chunk[4096];
    output.clear();
    while (const std::size_t n = std::fread(chunk, 1, sizeof chunk, pipe)) {
        output.append(chunk, n);
    }
    const int status = ::pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

ServerProcess::ServerProcess(const std::string& binary, std::vector<std::string> args,
                             const ProcessSetup& setup) {
    bool has_listen = false;
    for (const auto& a : args) {
        has_listen = has_listen || a.rfind("--listen", 0) == 0;
    }
    if (!has_listen) {
        args.push_back("--listen");
        args.push_back("127.0.0.1:0");
    }
    stdout_path_ = make_temp_file("stdout");
    stderr_path_ = make_temp_file("stderr");
    int stderr_pipe[2] = {-1, -1};
    if (setup.stderr_unread_pipe && ::pipe2(stderr_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe2 failed");
    }
    pid_ = fork();
    if (pid_ == 0) {
        const int out = open(stdout_path_.c_str(), O_WRONLY | O_APPEND);
        const int err = setup.stderr_unread_pipe ? stderr_pipe[1]
                                                 : open(stderr_path_.c_str(), O_WRONLY | O_APPEND);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        if (setup.address_space_limit != 0) {
            const rlimit limit{setup.address_space_limit, setup.address_space_limit};
            setrlimit(RLIMIT_AS, &limit);
        }
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(binary.c_str()));
        for (auto& a : args) {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        execv(binary.c_str(), argv.data());
        _exit(127);
    }
    if (setup.stderr_unread_pipe) {
        ::close(stderr_pipe[1]);
        unread_stderr_ = stderr_pipe[0];
    }

    const std::regex ready(R"(listening on (?:http://)?\S+:(\d+))");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (port_ == 0 && std::chrono::steady_clock::now() < deadline && running()) {
        const std::string seen = stdout_text();
        std::smatch match;
        if (std::regex_search(seen, match, ready)) {
            port_ = static_cast<std::uint16_t>(std::stoi(match[1]));
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    if (port_ == 0) {
        stop(SIGKILL, std::chrono::seconds(5));
        throw std::runtime_error("server " + binary + " did not become ready; stdout: " +
                                 stdout_text() + "\nstderr: " + stderr_text());
    }
}

ServerProcess::~ServerProcess() {
    if (pid_ > 0) {
        stop(SIGTERM);
    }
    std::filesystem::remove(stdout_path_);
    std::filesystem::remove(stderr_path_);
    if (unread_stderr_ >= 0) {
        ::close(unread_stderr_);
    }
}

bool ServerProcess::running() {
    if (pid_ <= 0) {
        return false;
    }
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        pid_ = -1;
        return false;
    }
    return true;
}

int ServerProcess::stop(int sig, std::chrono::milliseconds timeout) {
    if (!running()) {
        return exit_code_;
    }
    kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (!running()) {
            return exit_code_;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    exit_code_ = -1;
    return -1;
}

std::string ServerProcess::stdout_text() const { return read_file(stdout_path_); }

std::string ServerProcess::stderr_text() const { return read_file(stderr_path_); }

}  // namespace mb::test
