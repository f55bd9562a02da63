// delay_proxy over real sockets, with a TCP echo server as its target: every byte arrives, in
// order, in both directions; its queues stay within the limit (backpressure); the connection cap,
// an unreachable target, SIGTERM and bad flags. Its timing is delay_proxy_timing_test's.
#include "tests/support/echo_server.hpp"
#include "tests/support/flag_checks.hpp"
#include "tests/support/server_process.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace mb::test {
namespace {

using namespace std::chrono_literals;

// The byte at offset i of a test stream: reordered, lost or repeated bytes do not match.
char pattern(std::uint64_t i) {
    return static_cast<char>(((i / 8 + 1) * 0x9E3779B97F4A7C15ull) >> (8 * (i % 8)));
}

// Writes `total` pattern bytes to fd, then shuts its sending side; counts what it wrote.
void write_stream(int fd, std::uint64_t total, std::atomic<std::uint64_t>& written) {
    std::vector<char> block(64 * 1024);
    while (written < total) {
        const std::uint64_t start = written;
        const std::size_t n =
            static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), total - start));
        for (std::size_t i = 0; i < n; ++i) block[i] = pattern(start + i);
        const ssize_t w = write(fd, block.data(), n);
        if (w <= 0) return;
        written += static_cast<std::uint64_t>(w);
    }
    shutdown(fd, SHUT_WR);
}

// Reads fd to its end; the count of bytes read and of the first one that differs from the pattern.
struct StreamCheck {
    std::uint64_t received = 0;
    std::uint64_t first_mismatch = UINT64_MAX;
};

StreamCheck read_stream(int fd) {
    StreamCheck check;
    std::vector<char> block(64 * 1024);
    for (;;) {
        const ssize_t n = read(fd, block.data(), block.size());
        if (n <= 0) break;
        for (ssize_t i = 0; i < n && check.first_mismatch == UINT64_MAX; ++i) {
            if (block[static_cast<std::size_t>(i)] !=
                pattern(check.received + static_cast<std::uint64_t>(i))) {
                check.first_mismatch = check.received + static_cast<std::uint64_t>(i);
            }
        }
        check.received += static_cast<std::uint64_t>(n);
    }
    return check;
}

// A /proc/PID/status value in KiB (VmRSS, VmHWM: the peak).
long status_kib(pid_t pid, const std::string& key) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string name;
    long value = -1;
    while (status >> name) {
        if (name == key + ":") {
            status >> value;
            return value;
        }
        status.ignore(4096, '\n');
    }
    return value;
}

// True when fd has something to read (or its end) within timeout.
bool readable_within(int fd, std::chrono::milliseconds timeout) {
    pollfd p{fd, POLLIN, 0};
    return poll(&p, 1, static_cast<int>(timeout.count())) == 1;
}

// Sends one byte and waits for its echo.
bool echoes(int fd, std::chrono::milliseconds timeout) {
    const char byte = 'x';
    char back = 0;
    return write(fd, &byte, 1) == 1 && readable_within(fd, timeout) && read(fd, &back, 1) == 1 &&
           back == byte;
}

class DelayProxy : public ::testing::Test {
  protected:
    std::vector<std::string> args(std::vector<std::string> extra) const {
        std::vector<std::string> all = {"--target", "127.0.0.1:" + std::to_string(echo_.port())};
        all.insert(all.end(), extra.begin(), extra.end());
        return all;
    }

    EchoServer echo_;
};

// What the client sends comes back whole and in order through both directions of the proxy,
// with small queues that keep stopping and resuming the reads.
TEST_F(DelayProxy, CarriesLargeTransfersBothWaysIntact) {
    ServerProcess proxy(binary_path("delay_proxy"),
                        args({"--rtt-ms", "1", "--queue-limit-kib", "64"}));
    constexpr std::uint64_t kTotal = 48ull << 20;
    std::vector<int> fds;
    std::vector<std::thread> writers;
    std::vector<std::atomic<std::uint64_t>> written(2);
    for (int i = 0; i < 2; ++i) {
        fds.push_back(connect_loopback(proxy.port()));
        writers.emplace_back(write_stream, fds.back(), kTotal, std::ref(written[i]));
    }
    std::vector<StreamCheck> checks(2);
    std::thread second_reader([&] { checks[1] = read_stream(fds[1]); });
    checks[0] = read_stream(fds[0]);
    second_reader.join();
    for (int i = 0; i < 2; ++i) {
        writers[i].join();
        close(fds[i]);
        EXPECT_EQ(written[i], kTotal);
        EXPECT_EQ(checks[i].received, kTotal) << "connection " << i;
        EXPECT_EQ(checks[i].first_mismatch, UINT64_MAX) << "connection " << i;
    }
    EXPECT_EQ(proxy.stop(SIGTERM), 0);
    EXPECT_NE(proxy.stdout_text().find(std::to_string(2 * kTotal) + " bytes to the target, " +
                                       std::to_string(2 * kTotal) + " bytes to clients"),
              std::string::npos)
        << proxy.stdout_text();
}

// A client that does not read: the proxy stops reading the echo server once its queue is full,
// the echo server stops reading the proxy, and the proxy stops reading the client. Its memory
// stays near the limit instead of growing with what the client sends; then everything arrives.
TEST_F(DelayProxy, QueueLimitHoldsMemoryWhenTheClientDoesNotRead) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer's allocator keeps freed memory (quarantine, shadow): the proxy's "
                    "RSS says nothing about its queues in this build";
#endif
    constexpr std::uint64_t kTotal = 96ull << 20;
    auto peak_mib_while_stalled = [&](const char* queue_limit_kib, StreamCheck& check) {
        ServerProcess proxy(binary_path("delay_proxy"),
                            args({"--rtt-ms", "0.5", "--queue-limit-kib", queue_limit_kib}));
        const int fd = connect_loopback(proxy.port());
        std::atomic<std::uint64_t> written = 0;
        std::thread writer(write_stream, fd, kTotal, std::ref(written));
        // Stalled: the writer made no progress for 300 ms (every buffer on the way is full, or
        // the proxy took it all).
        std::uint64_t seen = UINT64_MAX;
        for (int i = 0; i < 100 && seen != written; ++i) {
            seen = written;
            std::this_thread::sleep_for(300ms);
        }
        const long peak_kib = status_kib(proxy.pid(), "VmHWM");
        check = read_stream(fd);
        writer.join();
        close(fd);
        return peak_kib / 1024.0;
    };
    StreamCheck limited, unlimited;
    const double limited_mib = peak_mib_while_stalled("256", limited);
    const double unlimited_mib = peak_mib_while_stalled("1048576", unlimited);
    std::printf(
        "peak RSS while the client did not read: %.1f MiB with --queue-limit-kib 256, "
        "%.1f MiB with 1048576\n",
        limited_mib, unlimited_mib);
    EXPECT_LT(limited_mib, 16);
    EXPECT_GT(unlimited_mib, 40) << "the contrast run should have buffered what it could";
    for (const auto& check : {limited, unlimited}) {
        EXPECT_EQ(check.received, kTotal);
        EXPECT_EQ(check.first_mismatch, UINT64_MAX);
    }
}

// Past --max-connections a client waits in the listen queue until a relayed connection ends.
TEST_F(DelayProxy, ConnectionCapQueuesFurtherClients) {
    ServerProcess proxy(binary_path("delay_proxy"), args({"--max-connections", "2"}));
    const int first = connect_loopback(proxy.port());
    const int second = connect_loopback(proxy.port());
    EXPECT_TRUE(echoes(first, 2s));
    EXPECT_TRUE(echoes(second, 2s));
    const int third = connect_loopback(proxy.port());  // the kernel completes the handshake
    EXPECT_FALSE(echoes(third, 300ms)) << "a third connection was relayed past the cap";
    close(first);
    EXPECT_TRUE(readable_within(third, 2s)) << "the queued client was not relayed after a close";
    char back = 0;
    EXPECT_EQ(read(third, &back, 1), 1);
    EXPECT_TRUE(echoes(second, 2s));
    close(second);
    close(third);
}

// A target that refuses: the client's connection ends at once and the proxy goes on.
TEST_F(DelayProxy, UnreachableTargetClosesTheClientAndSaysWhy) {
    // A port nothing listens on: bind one, take its number, close it.
    std::uint16_t closed_port = 0;
    {
        EchoServer gone;
        closed_port = gone.port();
    }
    ServerProcess proxy(binary_path("delay_proxy"),
                        {"--target", "127.0.0.1:" + std::to_string(closed_port), "--rtt-ms", "1"});
    for (int i = 0; i < 2; ++i) {
        const int fd = connect_loopback(proxy.port());
        ASSERT_TRUE(readable_within(fd, 2s));
        char byte = 0;
        EXPECT_LE(read(fd, &byte, 1), 0);
        close(fd);
    }
    EXPECT_TRUE(proxy.running());
    EXPECT_NE(proxy.stderr_text().find("connecting to 127.0.0.1:" + std::to_string(closed_port) +
                                       " failed"),
              std::string::npos)
        << proxy.stderr_text();
    EXPECT_EQ(proxy.stop(SIGTERM), 0);
    EXPECT_NE(proxy.stdout_text().find("2 connections (2 target connects failed)"),
              std::string::npos)
        << proxy.stdout_text();
}

// SIGTERM and SIGINT close the open connections and end the proxy with status 0 at once.
TEST_F(DelayProxy, SignalsEndItCleanlyWithConnectionsOpen) {
    for (const int sig : {SIGTERM, SIGINT}) {
        ServerProcess proxy(binary_path("delay_proxy"), args({"--rtt-ms", "2"}));
        const int fd = connect_loopback(proxy.port());
        EXPECT_TRUE(echoes(fd, 2s));
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(proxy.stop(sig, 5s), 0);
        EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
        EXPECT_TRUE(readable_within(fd, 1s)) << "the client's connection stayed open";
        close(fd);
        EXPECT_NE(proxy.stdout_text().find("stopped; 1 connections"), std::string::npos)
            << proxy.stdout_text();
    }
}

TEST(DelayProxyFlags, HelpAndBadFlags) {
    const std::string binary = binary_path("delay_proxy");
    std::string output;
    EXPECT_EQ(run_command(binary + " --help", output), 0);
    EXPECT_NE(output.find("--rtt-ms"), std::string::npos) << output;
    const std::string target = " --target 127.0.0.1:9";
    expect_flags_rejected(binary, {
                                      "--target",
                                      "--target 127.0.0.1",
                                      "--target 127.0.0.1:0",
                                      "--target 127.0.0.1:70000",
                                      "--rtt-ms -1" + target,
                                      "--rtt-ms 10001" + target,
                                      "--rtt-ms abc" + target,
                                      "--rtt-ms nan" + target,
                                      "--listen 127.0.0.1" + target,
                                      "--queue-limit-kib 0" + target,
                                      "--max-connections 0" + target,
                                      "--connect-timeout 0" + target,
                                      "--no-such-flag" + target,
                                  });
    EXPECT_EQ(run_command(binary + " --target 127.0.0.1:9 --listen 192.0.2.1:1", output), 1);
    EXPECT_NE(output.find("192.0.2.1:1"), std::string::npos) << output;
}

}  // namespace
}  // namespace mb::test
