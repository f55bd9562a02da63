// What only the blocking model has: the worker cap (clients beyond it wait in the listen queue),
// a thread per connection with a real stack size, the database connection modes, its flags and
// its standalone mode. The endpoint contract itself is in server_contract_test.cpp.
#include "tests/support/flag_checks.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/server_process.hpp"
#include "tests/support/stop_checks.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <thread>

namespace mb::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kBinary = "blocking-server";

std::unique_ptr<ServerProcess> start(std::vector<std::string> args) {
    return std::make_unique<ServerProcess>(binary_path(kBinary), std::move(args));
}

nlohmann::json status_of(HttpConnection& connection) {
    const HttpReply reply = connection.request("GET", "/status");
    EXPECT_EQ(reply.status, 200u);
    return nlohmann::json::parse(reply.body);
}

// Waits until the process has exactly `expected` threads; returns the last count seen.
int settle_thread_count(pid_t pid, int expected) {
    int count = thread_count(pid);
    for (int i = 0; i < 100 && count != expected; ++i) {
        std::this_thread::sleep_for(20ms);
        count = thread_count(pid);
    }
    return count;
}

// The same cap under either lifecycle: per-connection starts a thread per client, prefork has
// its three threads from the start (and at the cap its rounds start no more).
struct CapCase {
    std::string name;
    std::vector<std::string> args;
    int idle_workers;  // worker threads of the idle server
};

class WorkerCap : public testing::TestWithParam<CapCase> {};

TEST_P(WorkerCap, KeepsFurtherClientsWaitingInTheBacklog) {
    std::vector<std::string> args = {"--max-workers", "3", "--keepalive-timeout", "30"};
    args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
    const auto server = start(args);
    // Main and acceptor (and the prefork maintenance thread, a sanitizer's helper thread, the
    // pre-started workers, if any): what the idle server has.
    const int fixed_threads = thread_count(server->pid()) - GetParam().idle_workers;

    // Three get a worker each, are answered, and keep the connection (and the worker) idle.
    std::vector<std::unique_ptr<HttpConnection>> clients;
    for (int i = 0; i < 3; ++i) {
        clients.push_back(std::make_unique<HttpConnection>(server->port()));
        const HttpReply reply = clients[i]->request("GET", "/hello");
        EXPECT_EQ(reply.status, 200u) << "client " << i;
        EXPECT_NE(reply.header("connection"), "close") << "client " << i;
    }
    EXPECT_EQ(settle_thread_count(server->pid(), fixed_threads + 3), fixed_threads + 3);

    // Three more connect (the kernel completes their handshakes) and send, but nobody reads.
    for (int i = 3; i < 6; ++i) {
        clients.push_back(std::make_unique<HttpConnection>(server->port()));
        clients[i]->send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    for (int i = 3; i < 6; ++i) {
        EXPECT_FALSE(clients[i]->readable_within(i == 3 ? 700ms : 100ms)) << "client " << i;
    }
    EXPECT_EQ(thread_count(server->pid()), fixed_threads + 3);

    // One idle client leaves: its slot goes to the first waiting client. As others still wait,
    // that response ends its connection and the worker goes on to the next, until none waits.
    clients[0].reset();
    for (int i = 3; i < 6; ++i) {
        const HttpReply reply = clients[i]->read_reply();
        EXPECT_EQ(reply.status, 200u) << "client " << i;
        EXPECT_EQ(reply.header("connection") == "close", i < 5) << "client " << i;
        EXPECT_LE(thread_count(server->pid()), fixed_threads + 3);
    }
    EXPECT_TRUE(clients[3]->closed_by_server(2s));

    const auto status = status_of(*clients[5])["blocking"];
    EXPECT_EQ(status["max_workers"], 3);
    EXPECT_EQ(status["peak_workers"], 3);
    EXPECT_EQ(status["live_workers"], 3);
    EXPECT_EQ(status["keepalive_handovers"], 2);
    EXPECT_GE(status["accept_waits_at_cap"].get<int>(), 1);

    // Every client leaves: the process is back to the threads it had idle (per-connection: the
    // workers end; prefork: they wait for the next clients).
    clients.clear();
    const int idle_threads = fixed_threads + GetParam().idle_workers;
    EXPECT_EQ(settle_thread_count(server->pid(), idle_threads), idle_threads);
}

INSTANTIATE_TEST_SUITE_P(BlockingServer, WorkerCap,
                         testing::Values(CapCase{"per_connection", {}, 0},
                                         CapCase{"prefork",
                                                 {"--lifecycle", "prefork", "--start-servers", "3",
                                                  "--min-spare", "1", "--max-spare", "3"},
                                                 3}),
                         [](const testing::TestParamInfo<CapCase>& info) {
                             return info.param.name;
                         });

// Anonymous read-write mappings from 200 KiB up to 300 KiB: thread stacks of --worker-stack-kib
// 200 with the static TLS beside them, and nothing the default 8 MiB would make. ThreadSanitizer
// keeps about 800 KiB of static TLS per thread: up to 1.3 MiB there.
int stack_sized_mappings(pid_t pid) {
#if defined(__SANITIZE_THREAD__)
    constexpr std::size_t kLargest = 1300 * 1024;
#else
    constexpr std::size_t kLargest = 300 * 1024;
#endif
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    const std::regex anonymous_rw(R"(^([0-9a-f]+)-([0-9a-f]+) rw-p 00000000 00:00 0\s*$)");
    int count = 0;
    for (std::string line; std::getline(maps, line);) {
        std::smatch m;
        if (std::regex_match(line, m, anonymous_rw)) {
            const auto size = std::stoull(m[2], nullptr, 16) - std::stoull(m[1], nullptr, 16);
            count += size >= 200 * 1024 && size < kLargest ? 1 : 0;
        }
    }
    return count;
}

TEST(BlockingServer, EveryConnectionGetsItsOwnThreadWithTheConfiguredStack) {
    const auto server = start({"--worker-stack-kib", "200"});
    const int fixed_threads = thread_count(server->pid());
    const int idle_mappings = stack_sized_mappings(server->pid());
    std::vector<std::unique_ptr<HttpConnection>> clients;
    for (int i = 0; i < 4; ++i) {
        clients.push_back(std::make_unique<HttpConnection>(server->port()));
        ASSERT_EQ(clients.back()->request("GET", "/hello").status, 200u);
    }
    EXPECT_EQ(settle_thread_count(server->pid(), fixed_threads + 4), fixed_threads + 4);
    EXPECT_GE(stack_sized_mappings(server->pid()) - idle_mappings, 4)
        << "the four workers have no stacks of about 200 KiB";
    EXPECT_EQ(status_of(*clients[0])["blocking"]["worker_stack_kib"], 200);
}

// The kernel's ids of the process's threads.
std::set<std::string> thread_ids(pid_t pid) {
    std::set<std::string> ids;
    for (const auto& entry :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
        ids.insert(entry.path().filename());
    }
    return ids;
}

const std::vector<std::string> kPrefork = {"--lifecycle", "prefork"};

std::unique_ptr<ServerProcess> start_prefork(std::vector<std::string> args) {
    args.insert(args.begin(), kPrefork.begin(), kPrefork.end());
    return start(std::move(args));
}

// Prefork has one fixed thread more than per-connection: the one that runs the rounds.
int prefork_fixed_threads() {
    const auto idle = start({});
    return thread_count(idle->pid()) + 1;
}

TEST(BlockingServer, PreforkStartsItsThreadsBeforeTheFirstClientAndReusesThem) {
    const int fixed_threads = prefork_fixed_threads();
    const auto server = start_prefork({"--start-servers", "5", "--min-spare", "1", "--max-spare",
                                       "10", "--worker-stack-kib", "200"});
    EXPECT_EQ(thread_count(server->pid()), fixed_threads + 5);
    EXPECT_GE(stack_sized_mappings(server->pid()), 5) << "the five have no stacks of 200 KiB";

    // Twenty clients one after another, each on its own connection: the same threads serve them.
    const auto before = thread_ids(server->pid());
    for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(http_get(server->port(), i % 2 == 0 ? "/hello" : "/html").status, 200u)
            << "client " << i;
    }
    EXPECT_EQ(thread_ids(server->pid()), before);

    HttpConnection observer(server->port());
    const auto status = status_of(observer)["blocking"];
    EXPECT_EQ(status["lifecycle"], "prefork");
    EXPECT_EQ(status["threads_started"], 5);
    EXPECT_EQ(status["worker_threads"], 5);
    EXPECT_EQ(status["live_workers"], 1);  // the observer's
    EXPECT_EQ(status["idle_workers"], 4);
    EXPECT_EQ(status["peak_workers"], 5);
    EXPECT_EQ(status["thread_start_failures"], 0);
    EXPECT_EQ(status["start_servers"], 5);
    EXPECT_EQ(status["min_spare"], 1);
    EXPECT_EQ(status["max_spare"], 10);
    EXPECT_EQ(status["worker_stack_kib"], 200);
}

// Too few idle threads: a round a second starts more (1, then 2); too many once the clients
// have left: a round a second retires one.
TEST(BlockingServer, PreforkGrowsSparesWhileBusyAndRetiresThemWhenIdle) {
    const int fixed_threads = prefork_fixed_threads();
    const auto server = start_prefork({"--start-servers", "2", "--min-spare", "2", "--max-spare",
                                       "3", "--keepalive-timeout", "30"});
    std::vector<std::unique_ptr<HttpConnection>> clients;
    for (int i = 0; i < 2; ++i) {
        clients.push_back(std::make_unique<HttpConnection>(server->port()));
        ASSERT_EQ(clients.back()->request("GET", "/hello").status, 200u);
    }
    // Both threads are held; this client waits in the listen queue for the next round's thread.
    clients.push_back(std::make_unique<HttpConnection>(server->port()));
    nlohmann::json status = status_of(*clients.back())["blocking"];
    EXPECT_GE(status["accept_waits_at_cap"].get<int>(), 1);
    for (const auto until = Clock::now() + 10s;
         status["threads_started"] != 5 && Clock::now() < until;) {
        std::this_thread::sleep_for(100ms);
        status = status_of(*clients.back())["blocking"];
    }
    // Round one started one thread (the waiting client's), round two two: idle again at 2.
    EXPECT_EQ(status["threads_started"], 5);
    EXPECT_EQ(status["idle_workers"], 2);
    EXPECT_EQ(thread_count(server->pid()), fixed_threads + 5);

    // All five idle, more than --max-spare 3: one retires per round.
    clients.clear();
    EXPECT_EQ(settle_thread_count(server->pid(), fixed_threads + 4), fixed_threads + 4);
    for (const auto until = Clock::now() + 5s;
         thread_count(server->pid()) != fixed_threads + 3 && Clock::now() < until;) {
        std::this_thread::sleep_for(50ms);
    }
    EXPECT_EQ(thread_count(server->pid()), fixed_threads + 3);
    std::this_thread::sleep_for(1500ms);
    EXPECT_EQ(thread_count(server->pid()), fixed_threads + 3) << "retired below --max-spare";
}

// A thread that cannot start (here: no address space for another 64 MiB stack) leaves no client
// without an answer: prefork starts threads ahead of its clients, so they wait in the listen queue
// for one that is free, as Apache's clients wait when a fork fails.
TEST(BlockingServer, PreforkServesEveryClientWhenThreadsCannotStart) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizers reserve terabytes of address space: no RLIMIT_AS possible";
#else
    // The rounds try to keep 20 threads idle: they go on starting threads until one fails.
    const ServerProcess server(binary_path(kBinary),
                               {"--lifecycle", "prefork", "--start-servers", "2", "--min-spare",
                                "20", "--max-spare", "40", "--worker-stack-kib", "65536"},
                               ProcessSetup{.address_space_limit = std::size_t{768} << 20});
    std::vector<std::unique_ptr<HttpConnection>> clients;
    for (int i = 0; i < 12; ++i) {
        clients.push_back(std::make_unique<HttpConnection>(server.port(), 20s));
        clients.back()->send("GET /tasks?delay_ms=1000 HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    for (std::size_t i = 0; i < clients.size(); ++i) {
        const auto reply = clients[i]->try_read_reply();
        ASSERT_TRUE(reply.has_value()) << "client " << i << " closed without an answer";
        EXPECT_EQ(reply->status, 200u) << "client " << i;
        clients[i].reset();  // ends the lingering close that holds its thread
    }
    // (The replies ended their connections: clients were waiting for a thread.)
    HttpConnection observer(server.port());
    nlohmann::json status = status_of(observer)["blocking"];
    for (const auto until = Clock::now() + 10s;
         status["thread_start_failures"] == 0 && Clock::now() < until;) {
        std::this_thread::sleep_for(200ms);
        status = status_of(observer)["blocking"];
    }
    EXPECT_GE(status["thread_start_failures"].get<int>(), 1);
    EXPECT_EQ(status["worker_threads"], status["threads_started"]) << "a thread ended";
    EXPECT_EQ(http_get(server.port(), "/hello").status, 200u);
#endif
}

// SIGTERM: idle pre-started threads end at once, a request in flight is answered, exit 0; a
// server with only idle threads does not wait for the next round; a second signal does not wait
// for the request in flight.
TEST(BlockingServer, PreforkStopsCleanly) {
    const auto server = start_prefork({});
    auto busy = std::make_unique<HttpConnection>(server->port(), 10s);
    busy->send("GET /tasks?delay_ms=1000 HTTP/1.1\r\nHost: x\r\n\r\n");
    std::this_thread::sleep_for(200ms);
    ASSERT_EQ(::kill(server->pid(), SIGTERM), 0);
    const auto reply = busy->try_read_reply();
    ASSERT_TRUE(reply.has_value()) << "the request in flight got no answer";
    EXPECT_EQ(reply->status, 200u);
    EXPECT_EQ(reply->header("connection"), "close");
    busy.reset();  // ends the server's lingering close
    const auto answered = Clock::now();
    EXPECT_EQ(server->stop(0, 5s), 0);  // signal 0: only waits for the exit
    EXPECT_LT(Clock::now() - answered, 500ms);

    const auto idle = start_prefork({"--start-servers", "50"});
    EXPECT_EQ(http_get(idle->port(), "/hello").status, 200u);
    const auto idle_asked = Clock::now();
    EXPECT_EQ(idle->stop(SIGTERM, 5s), 0);
    EXPECT_LT(Clock::now() - idle_asked, 500ms);

    expect_second_signal_stops_at_once(*start_prefork({}));
}

TEST(BlockingServer, MaxKeepaliveRequestsClosesTheConnectionAfterItsShare) {
    const auto server = start({"--max-keepalive-requests", "3"});
    HttpConnection connection(server->port());
    for (int i = 1; i <= 3; ++i) {
        const HttpReply reply =
            connection.request("GET", "/hello", 10, "Connection: keep-alive\r\n");
        EXPECT_EQ(reply.status, 200u);
        // ab -k reads a response without "Keep-Alive" to the close, as the last one must be.
        EXPECT_EQ(reply.header("connection").empty(), i == 3) << "request " << i;
    }
    EXPECT_TRUE(connection.closed_by_server(2s));

    const auto unlimited = start({"--max-keepalive-requests", "0"});
    HttpConnection kept(unlimited->port());
    for (int i = 0; i < 150; ++i) {
        ASSERT_EQ(kept.request("GET", "/hello").header("connection"), "") << "request " << i;
    }
    EXPECT_FALSE(kept.closed_by_server(200ms));
}

TEST(BlockingServer, PerRequestConnectsForEveryRequestPersistentKeepsConnectionsForLaterClients) {
    for (const char* mode : {"per-request", "persistent"}) {
        SCOPED_TRACE(mode);
        const bool persistent = std::string(mode) == "persistent";
        const auto server = start({"--db-connection", mode});
        auto first = std::make_unique<HttpConnection>(server->port());
        for (const char* target : {"/html", "/json", "/html?delay_ms=10"}) {
            EXPECT_EQ(first->request("GET", target).status, 200u) << target;
        }
        const auto status = status_of(*first);
        EXPECT_EQ(status["blocking"]["db_connection"], mode);
        EXPECT_EQ(status["database"]["connects"], persistent ? 1 : 3);

        // A client that comes while the first is still connected needs a connection of its own.
        HttpConnection second(server->port());
        EXPECT_EQ(second.request("GET", "/json").status, 200u);
        EXPECT_EQ(status_of(second)["database"]["connects"], persistent ? 2 : 4);

        // Once a client has left, its worker's connection waits in the cache for the next one.
        first.reset();
        HttpConnection third(server->port());
        nlohmann::json later = status_of(third);
        for (int i = 0; i < 100 && later["blocking"]["idle_db_connections"] != (persistent ? 1 : 0);
             ++i) {
            std::this_thread::sleep_for(20ms);
            later = status_of(third);
        }
        EXPECT_EQ(later["blocking"]["idle_db_connections"], persistent ? 1 : 0);
        EXPECT_EQ(third.request("GET", "/html").status, 200u);
        const auto last = status_of(third);
        EXPECT_EQ(last["database"]["connects"], persistent ? 2 : 5);
        EXPECT_EQ(last["blocking"]["idle_db_connections"], 0);
    }
}

// A client that said its request was its last (HTTP/1.0 without keep-alive) gets a plain close:
// its worker is free at once, not after the client's own close, which a lingering close waits
// for (up to 2 s). The one worker here serves the next client while the first keeps its end open.
TEST(BlockingServer, AClientThatSaidItsRequestWasItsLastDoesNotHoldItsWorker) {
    const auto server = start({"--max-workers", "1"});
    HttpConnection first(server->port(), 5s);
    EXPECT_EQ(first.request("GET", "/hello", 10).status, 200u);
    EXPECT_TRUE(first.closed_by_server(1s));
    HttpConnection second(server->port(), 5s);
    const HttpReply reply = second.request("GET", "/hello", 10);
    EXPECT_EQ(reply.status, 200u);
    EXPECT_LT(reply.elapsed, 1s) << "the first client's worker lingered";
}

// A client that connects and sends nothing takes no worker: the kernel holds it back until its
// first byte (TCP_DEFER_ACCEPT), so the one worker here stays free for a client that talks.
TEST(BlockingServer, ASilentConnectionTakesNoWorker) {
    const auto server = start({"--max-workers", "1", "--timeout", "3"});
    HttpConnection silent(server->port());
    std::this_thread::sleep_for(300ms);
    HttpConnection talking(server->port(), 2s);
    const HttpReply reply = talking.request("GET", "/hello");
    EXPECT_EQ(reply.status, 200u);
    EXPECT_LT(reply.elapsed, 1s);
}

// Once the kernel hands a silent connection over after all, its worker waits for the first
// request --timeout at most, the wait for the first byte included: a first byte just before
// that does not buy the client another --timeout.
TEST(BlockingServer, TheFirstRequestHasTimeoutFromTheAccept) {
    const auto server = start({"--max-workers", "4", "--timeout", "1"});
    HttpConnection silent(server->port());
    HttpConnection observer(server->port());
    // live_workers counts the observer's own worker, then the silent client's once accepted.
    Clock::time_point accepted;
    for (const auto until = Clock::now() + 15s; Clock::now() < until;) {
        if (status_of(observer)["blocking"]["live_workers"].get<int>() >= 2) {
            accepted = Clock::now();
            break;
        }
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_NE(accepted, Clock::time_point{}) << "the silent connection was never accepted";
    std::this_thread::sleep_for(700ms);
    EXPECT_TRUE(trickle_until_closed(silent, accepted + 5s, 50ms));
    EXPECT_LT(Clock::now() - accepted, 1400ms);
}

// No thread for a connection (here: no address space left for another 64 MiB stack) is a 503
// with Retry-After for that client, and the server goes on.
TEST(BlockingServer, AConnectionWithoutAThreadGets503) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizers reserve terabytes of address space: no RLIMIT_AS possible";
#else
    const ServerProcess server(binary_path(kBinary), {"--worker-stack-kib", "65536"},
                               ProcessSetup{.address_space_limit = std::size_t{768} << 20});
    std::vector<std::unique_ptr<HttpConnection>> clients;
    for (int i = 0; i < 20; ++i) {
        clients.push_back(std::make_unique<HttpConnection>(server.port(), 10s));
        clients.back()->send("GET /tasks?delay_ms=1500 HTTP/1.1\r\nHost: x\r\n\r\n");
        std::this_thread::sleep_for(10ms);
    }
    int served = 0;
    int refused = 0;
    for (auto& client : clients) {
        const auto reply = client->try_read_reply();
        ASSERT_TRUE(reply.has_value()) << "closed without an answer";
        if (reply->status == 503) {
            ++refused;
            EXPECT_EQ(reply->body, "no worker thread available\n");
            EXPECT_FALSE(reply->header("retry-after").empty());
        } else {
            EXPECT_EQ(reply->status, 200u);
            ++served;
        }
    }
    EXPECT_GE(served, 1);
    EXPECT_GE(refused, 1);
    // Once the workers have ended (and their stacks are unmapped), new clients get one again.
    clients.clear();
    unsigned status = 0;
    for (const auto until = Clock::now() + 10s; status != 200 && Clock::now() < until;) {
        status = http_get(server.port(), "/hello").status;
        std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(status, 200u);
#endif
}

// The cost model's per-row CPU is spent by the thread serving the connection: 100 /json of 300
// rows at 10 us a row take 0.3 s of the process's CPU beyond what the server needs by itself.
TEST(BlockingServer, TheCostModelsCpuIsSpentByTheConnectionsThread) {
    const auto server = start({"--cpu-per-row-ns", "10000"});
    HttpConnection connection(server->port());
    const double before = cpu_seconds(server->pid());
    for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(connection.request("GET", "/json").status, 200u);
    }
    EXPECT_GE(cpu_seconds(server->pid()) - before, 0.28);
    HttpConnection observer(server->port());  // the 100th response closed the connection
    const auto cost = status_of(observer)["cost"];
    EXPECT_EQ(cost["per_row_ns"], 10000);
    EXPECT_GE(cost["spent_cpu_s"].get<double>(), 0.3);
    EXPECT_LT(cost["spent_cpu_s"].get<double>(), 0.33);
}

TEST(BlockingServer, BadModelFlagsPrintUsageAndExit2) {
    expect_flags_rejected(
        binary_path(kBinary),
        {"--max-workers 0", "--max-workers 10001", "--max-workers -1",
         "--max-keepalive-requests -1", "--db-connection pooled", "--worker-stack-kib 8",
         "--concurrency 0", "--lifecycle fork", "--lifecycle prefork --start-servers 10001",
         "--lifecycle prefork --min-spare 0", "--lifecycle prefork --max-spare 1",
         "--lifecycle prefork --min-spare 8 --max-spare 8",
         "--lifecycle prefork --max-workers 4 --start-servers 5", "--start-servers 5",
         "--min-spare 3", "--max-spare 20"});
}

TEST(BlockingServer, StandaloneRunsTheWorkloadAndReportsLikeTime) {
    for (const char* flags : {"--standalone 20", "--standalone 20 --db-connection persistent",
                              "--standalone 21 --concurrency 4"}) {
        SCOPED_TRACE(flags);
        std::string output;
        ASSERT_EQ(run_command(binary_path(kBinary) + " " + flags, output), 0) << output;
        EXPECT_TRUE(std::regex_search(output, std::regex(R"(standalone: 2[01] iterations .*)"
                                                         R"(32581 bytes rendered)")))
            << output;
        for (const char* line : {"\nreal\t", "\nuser\t", "\nsys\t", "\niterations/s\t"}) {
            EXPECT_NE(output.find(line), std::string::npos) << line << output;
        }
    }
}

// The cost model in the standalone loop: each iteration is a request and fetches 600 rows.
TEST(BlockingServer, StandaloneSpendsTheCostModelsCpu) {
    std::string output;
    ASSERT_EQ(run_command(binary_path(kBinary) +
                              " --standalone 20 --cpu-per-request-us 4000 --cpu-per-row-ns 1000",
                          output),
              0)
        << output;
    std::smatch spent;
    ASSERT_TRUE(std::regex_search(
        output, spent,
        std::regex(R"(cpu cost\t4000 us per request, 1000 ns per row: ([0-9.]+) s spent)")))
        << output;
    EXPECT_GE(std::stod(spent[1]), 20 * 0.0046);  // (4 ms + 600 rows x 1 us) x 20
    std::smatch user;
    std::smatch sys;
    ASSERT_TRUE(std::regex_search(output, user, std::regex(R"(\nuser\t0m([0-9.]+)s)")));
    ASSERT_TRUE(std::regex_search(output, sys, std::regex(R"(\nsys\t0m([0-9.]+)s)")));
    EXPECT_GE(std::stod(user[1]) + std::stod(sys[1]), 20 * 0.0046);
    EXPECT_GT(std::stod(user[1]), std::stod(sys[1])) << "the cost is user time, as PHP's";
}

TEST(BlockingServer, StandaloneWithoutDatabaseExits1) {
    std::string output;
    EXPECT_EQ(run_command(binary_path(kBinary) + " --standalone 5 --db-host 127.0.0.1 --db-port 1",
                          output),
              1);
    EXPECT_NE(output.find("cannot connect"), std::string::npos) << output;
}

}  // namespace
}  // namespace mb::test
