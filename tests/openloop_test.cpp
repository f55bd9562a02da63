// openloop over real sockets against a stub HTTP server: a stall of the server shows in the
// corrected latencies and not in the uncorrected ones of a single connection (coordinated
// omission); the report's counts add up in both connection modes; errors and requests not sent
// are counted by kind; bad flags are refused.
#include "tests/support/echo_server.hpp"
#include "tests/support/flag_checks.hpp"
#include "tests/support/server_process.hpp"
#include "tests/support/stub_http_server.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace mb::test {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string url(std::uint16_t port, const std::string& path = "/hello") {
    return "http://127.0.0.1:" + std::to_string(port) + path;
}

// Runs openloop with flags and --json to a file (after launcher, a command that runs it); its
// report, after checking it exited with 0.
json run_openloop(const std::string& flags, const std::string& launcher = "") {
    const std::string file =
        ::testing::TempDir() + "openloop-" + std::to_string(getpid()) + ".json";
    std::string output;
    const int status = run_command(
        launcher + binary_path("openloop") + " --progress 0 --json " + file + " " + flags, output);
    EXPECT_EQ(status, 0) << output;
    EXPECT_NE(output.find("openloop: "), std::string::npos) << output;  // the summary line
    std::ifstream in(file);
    json report = json::parse(in, nullptr, false);
    std::remove(file.c_str());
    EXPECT_FALSE(report.is_discarded()) << output;
    return report;
}

// scheduled = sent + not sent, sent = completed + errors, each total the sum of its kinds, and
// one latency per answered request.
void expect_counts_add_up(const json& r) {
    const json& requests = r.at("requests");
    const auto scheduled = requests.at("scheduled").get<std::uint64_t>();
    const auto sent = requests.at("sent").get<std::uint64_t>();
    const auto errors = requests.at("errors").get<std::uint64_t>();
    EXPECT_EQ(scheduled, sent + requests.at("not_sent").get<std::uint64_t>());
    EXPECT_EQ(sent, requests.at("completed").get<std::uint64_t>() + errors);
    std::uint64_t by_kind = 0;
    for (const auto& [kind, count] : r.at("errors").items()) by_kind += count.get<std::uint64_t>();
    EXPECT_EQ(by_kind, errors);
    std::uint64_t not_sent = 0;
    for (const auto& [kind, count] : r.at("not_sent").items()) {
        not_sent += count.get<std::uint64_t>();
    }
    EXPECT_EQ(not_sent, requests.at("not_sent").get<std::uint64_t>());
    const auto answered = requests.at("completed").get<std::uint64_t>() +
                          r.at("errors").at("status").get<std::uint64_t>();
    for (const char* kind : {"corrected", "uncorrected"}) {
        const json& latency = r.at("latency_ms").at(kind);
        EXPECT_EQ(latency.at("count").get<std::uint64_t>(), answered) << kind;
        for (const char* field : {"min", "mean", "max", "p50", "p90", "p99", "p99_9", "p99_99"}) {
            EXPECT_TRUE(latency.at(field).is_number()) << kind << " " << field;
        }
        if (answered > 0) {
            EXPECT_DOUBLE_EQ(latency.at("distribution").back().at("percentile"), 100);
            EXPECT_EQ(latency.at("distribution").back().at("count"), answered);
        }
    }
}

// One connection, 200 requests/s for 3 s; the server sleeps 500 ms before its 200th answer.
// About 100 requests fall due during the stall and wait for the one connection: their latency
// from their intended time spans the stall, but measured from their send only the stalled one
// sees it (1 of 600, below the 99th percentile). Margins are wide for a loaded host.
TEST(Openloop, CorrectedLatencyCoversAStallTheUncorrectedMisses) {
    StubHttpServer server({.stall_before_request = 200, .stall = 500ms});
    const json r = run_openloop("--rate 200 --duration 3 --connections 1 " + url(server.port()));
    expect_counts_add_up(r);
    EXPECT_EQ(r.at("requests").at("scheduled"), 600);
    EXPECT_EQ(r.at("requests").at("completed"), 600);
    const json& corrected = r.at("latency_ms").at("corrected");
    const json& uncorrected = r.at("latency_ms").at("uncorrected");
    EXPECT_GE(corrected.at("p99").get<double>(), 300) << r.dump(1);
    EXPECT_GE(corrected.at("max").get<double>(), 450) << r.dump(1);
    EXPECT_LT(uncorrected.at("p99").get<double>(), 100) << r.dump(1);
    EXPECT_GE(uncorrected.at("max").get<double>(), 450) << r.dump(1);
    EXPECT_EQ(server.connections(), 1u);
}

TEST(Openloop, NewConnectionPerRequestReportsEveryField) {
    StubHttpServer server;
    const json r =
        run_openloop("--rate 300 --duration 1 --arrivals poisson --seed 5 " + url(server.port()));
    expect_counts_add_up(r);
    EXPECT_EQ(r.at("tool"), "openloop");
    EXPECT_TRUE(r.at("version").is_string());
    EXPECT_EQ(r.at("url"), url(server.port()));
    EXPECT_EQ(r.at("rate_per_s"), 300);
    EXPECT_EQ(r.at("arrivals"), "poisson");
    EXPECT_EQ(r.at("seed"), 5);
    EXPECT_EQ(r.at("connection_mode"), "close");
    EXPECT_EQ(r.at("connections"), 0);
    EXPECT_EQ(r.at("duration_s"), 1);
    EXPECT_GE(r.at("elapsed_s").get<double>(), 0.9);
    const auto completed = r.at("requests").at("completed").get<std::uint64_t>();
    EXPECT_EQ(r.at("requests").at("errors"), 0);
    EXPECT_NEAR(static_cast<double>(completed), 300, 5 * std::sqrt(300.0));
    EXPECT_EQ(server.connections(), completed);
    EXPECT_GT(r.at("completed_per_s").get<double>(), 0);
    EXPECT_GT(r.at("sent_per_s").get<double>(), 0);
    EXPECT_GE(r.at("cpu_s").at("user").get<double>(), 0);
    EXPECT_GE(r.at("cpu_s").at("system").get<double>(), 0);
}

// A server that ends every kept connection after its answer: each request after a
// connection's first finds it closed, and goes again on a new one, without an error.
TEST(Openloop, RequestOnAConnectionTheServerClosedGoesAgain) {
    StubHttpServer server({.close_after_each_answer = true});
    const json r = run_openloop("--rate 100 --duration 0.5 --connections 2 " + url(server.port()));
    expect_counts_add_up(r);
    EXPECT_EQ(r.at("requests").at("completed"), 50);
    EXPECT_EQ(server.connections(), 50u);
}

TEST(Openloop, NonSuccessStatusesAreErrorsWithLatencies) {
    StubHttpServer server;
    const json r =
        run_openloop("--rate 100 --duration 0.5 --connections 2 " + url(server.port(), "/missing"));
    expect_counts_add_up(r);
    EXPECT_EQ(r.at("errors").at("status"), 50);
    EXPECT_EQ(r.at("requests").at("completed"), 0);
    EXPECT_EQ(r.at("latency_ms").at("corrected").at("count"), 50);
}

TEST(Openloop, ResponsesPastTheCapAreErrors) {
    StubHttpServer server;
    const json r = run_openloop("--rate 100 --duration 0.3 --connections 2 --max-response-kib 64 " +
                                url(server.port(), "/large"));
    expect_counts_add_up(r);
    EXPECT_EQ(r.at("errors").at("too_large"), 30);
    EXPECT_EQ(r.at("latency_ms").at("corrected").at("count"), 0);
}

TEST(Openloop, UnreachableTargetCountsConnectErrors) {
    std::uint16_t port = 0;
    close(listen_loopback(port));  // a port nobody listens on
    const json r = run_openloop("--rate 100 --duration 0.3 " + url(port));
    expect_counts_add_up(r);
    EXPECT_EQ(r.at("errors").at("connect"), 30);
    EXPECT_EQ(r.at("latency_ms").at("corrected").at("count"), 0);
}

// The server sleeps 1 s before its first answer, which times out at 0.2 s. Meanwhile 10,000
// requests fall due within 10 ms for the one connection: 1000 wait, the others find the queue
// full; of those waiting, the ones whose deadline passes before the connection is free again
// expire unsent. All are counted, none lost.
TEST(Openloop, TimeoutsAndCapsAreCounted) {
    StubHttpServer server({.stall_before_request = 1, .stall = 1000ms});
    const json r = run_openloop(
        "--rate 1000000 --duration 0.01 --connections 1 --max-pending 1000 "
        "--timeout 0.2 " +
        url(server.port()));
    expect_counts_add_up(r);
    EXPECT_EQ(r.at("requests").at("scheduled"), 10000);
    EXPECT_GE(r.at("errors").at("timeout"), 1);
    EXPECT_GE(r.at("not_sent").at("pending_cap"), 1);
    EXPECT_GE(r.at("not_sent").at("expired"), 1);
    EXPECT_EQ(r.at("not_sent").at("pending_cap").get<int>() +
                  r.at("not_sent").at("expired").get<int>() +
                  r.at("requests").at("sent").get<int>(),
              10000);
}

// SIGINT after 1 s of a 30-s schedule: the arrivals stop, the requests out are waited for, and
// the report covers what was scheduled until then.
TEST(Openloop, SignalEndsTheScheduleEarly) {
    StubHttpServer server;
    const json r = run_openloop("--rate 100 --duration 30 --connections 2 " + url(server.port()),
                                "timeout --preserve-status -s INT 1 ");
    expect_counts_add_up(r);
    EXPECT_GT(r.at("requests").at("scheduled"), 0);
    EXPECT_LT(r.at("requests").at("scheduled"), 1000);
    EXPECT_EQ(r.at("requests").at("completed"), r.at("requests").at("scheduled"));
    EXPECT_LT(r.at("elapsed_s").get<double>(), 10);
}

TEST(Openloop, HelpAndBadFlags) {
    const std::string binary = binary_path("openloop");
    std::string output;
    EXPECT_EQ(run_command(binary + " --help", output), 0);
    EXPECT_NE(output.find("Usage: openloop"), std::string::npos) << output;
    expect_flags_rejected(binary, {"--url ftp://x/", "--url http://:80/", "--rate 0",
                                   "--rate -5 --url http://127.0.0.1:1/", "--duration 0",
                                   "--arrivals bursty", "--connections -1", "--timeout 0",
                                   "--max-response-kib 0", "--progress -1", "--bogus"});
    EXPECT_EQ(run_command(binary + " --rate 10", output), 2);  // no URL
    EXPECT_NE(output.find("url"), std::string::npos) << output;
}

}  // namespace
}  // namespace mb::test
