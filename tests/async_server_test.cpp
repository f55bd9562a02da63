// What only the async model has: an event loop that never blocks (the pool busy, /hello still
// answers at once; /tasks answers before any task two runs), one thread, the pool (lazy, two
// connections at once for /html, a bounded queue), cluster mode, bodies identical to the
// blocking server's, its flags and its standalone mode. The endpoint contract itself is in
// server_contract_test.cpp.
#include "tests/support/flag_checks.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/server_process.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

namespace mb::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kBinary = "async-server";

// ThreadSanitizer's runtime starts a background thread of its own in a forked process (a cluster
// worker); the server itself starts none, as the Release and ASan builds show.
#if defined(__SANITIZE_THREAD__)
constexpr int kSanitizerThreadsAfterFork = 1;
#else
constexpr int kSanitizerThreadsAfterFork = 0;
#endif

std::unique_ptr<ServerProcess> start(std::vector<std::string> args = {}) {
    return std::make_unique<ServerProcess>(binary_path(kBinary), std::move(args));
}

nlohmann::json status_of(std::uint16_t port) {
    const HttpReply reply = http_get(port, "/status");
    EXPECT_EQ(reply.status, 200u);
    return nlohmann::json::parse(reply.body);
}

// Polls /status until pool figure `what` reaches at least `count`; false after 5 s.
bool pool_reaches(std::uint16_t port, const char* what, unsigned count) {
    for (const auto until = Clock::now() + 5s; Clock::now() < until;) {
        if (status_of(port)["async"]["pool"][what].get<unsigned>() >= count) {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++n;
    }
    return n;
}

// The processes whose parent is pid, from /proc/*/stat.
std::set<pid_t> children_of(pid_t pid) {
    std::set<pid_t> children;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        std::getline(stat, line);
        // pid (comm) state ppid ...: comm may hold spaces, so parse from the last ')'.
        const auto close = line.rfind(')');
        if (close == std::string::npos) {
            continue;
        }
        std::istringstream rest(line.substr(close + 1));
        char state = 0;
        pid_t parent = 0;
        rest >> state >> parent;
        if (parent == pid && state != 'Z') {
            children.insert(static_cast<pid_t>(std::stoi(name)));
        }
    }
    return children;
}

// Waits until pid has `count` live children; returns the last set seen.
std::set<pid_t> await_children(pid_t pid, std::size_t count) {
    std::set<pid_t> children = children_of(pid);
    for (const auto until = Clock::now() + 10s; children.size() != count && Clock::now() < until;) {
        std::this_thread::sleep_for(20ms);
        children = children_of(pid);
    }
    return children;
}

// ---- The loop never blocks ---------------------------------------------------------------------

TEST(AsyncServer, HelloIsAnsweredAtOnceWhileEveryPoolConnectionIsBusy) {
    const auto server = start();  // --db-pool 10: five /html take all ten connections
    std::vector<std::unique_ptr<HttpConnection>> slow;
    for (int i = 0; i < 6; ++i) {
        slow.push_back(std::make_unique<HttpConnection>(server->port()));
        slow.back()->send("GET /html?delay_ms=1000 HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    ASSERT_TRUE(pool_reaches(server->port(), "busy", 10));
    ASSERT_TRUE(pool_reaches(server->port(), "queued", 2));  // the sixth waits for its turn

    // The best of a few, so that a busy test machine cannot fail it; one answer under 50 ms
    // while the database holds every connection is the proof that nothing waits on the loop.
    std::chrono::milliseconds fastest = 1h;
    for (int i = 0; i < 5; ++i) {
        const HttpReply hello = http_get(server->port(), "/hello");
        EXPECT_EQ(hello.status, 200u);
        fastest = std::min(fastest, hello.elapsed);
    }
    EXPECT_LT(fastest, 50ms);
    EXPECT_EQ(status_of(server->port())["async"]["pool"]["busy"], 10) << "the pool freed up early";

    for (auto& connection : slow) {
        const HttpReply reply = connection->read_reply();
        EXPECT_EQ(reply.status, 200u);
        EXPECT_EQ(reply.body.size(), 32581u);
    }
    EXPECT_EQ(server->stop(SIGTERM), 0) << server->stderr_text();
}

// A heavy request computes on the one loop: every timer due meanwhile runs late by about as
// long, which /status's event-loop delay gives (E9 reads it).
TEST(AsyncServer, AHeavyRequestHoldsTheLoopAndStatusSaysHowLong) {
    const auto server = start();
    const HttpReply heavy = http_get(server->port(), "/factorial?n=20000");
    ASSERT_EQ(heavy.status, 200u);
    const auto delay = status_of(server->port())["async"]["event_loop_delay"];
    EXPECT_GT(delay["samples"].get<int>(), 0);
    // Its timer was due at most 10 ms after the computation began; the reply's time also holds
    // the connection and the transfer, hence the half.
    EXPECT_GE(delay["max_ms"].get<double>(), heavy.elapsed.count() / 2.0 - 10.0) << delay.dump();
    EXPECT_LE(delay["p99_ms"].get<double>(), delay["max_ms"].get<double>());
    EXPECT_EQ(server->stop(SIGTERM), 0) << server->stderr_text();
}

TEST(AsyncServer, AllTasksResponsesArriveBeforeAnyTaskTwoRuns) {
    const auto server = start();
    constexpr int kDemos = 100;
    std::vector<std::unique_ptr<HttpConnection>> clients;
    for (int i = 0; i < kDemos; ++i) {
        clients.push_back(std::make_unique<HttpConnection>(server->port()));
        clients.back()->send("GET /tasks?delay_ms=2000 HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    for (auto& client : clients) {
        const HttpReply reply = client->read_reply();
        ASSERT_EQ(reply.status, 200u);
        EXPECT_NE(reply.body.find("after this response was sent"), std::string::npos);
    }
    // Every response is in; task two is a timer 2 s out, so none of them may have run yet.
    const std::string log = server->stderr_text();
    EXPECT_EQ(count_of(log, ": task one\n"), std::size_t{kDemos});
    EXPECT_EQ(count_of(log, ": task three\n"), std::size_t{kDemos});
    EXPECT_EQ(count_of(log, ": task two"), 0u) << log;

    // ... and they all run later.
    std::string later;
    for (const auto until = Clock::now() + 10s; Clock::now() < until;) {
        later = server->stderr_text();
        if (count_of(later, ": task two\n") == std::size_t{kDemos}) {
            break;
        }
        std::this_thread::sleep_for(50ms);
    }
    EXPECT_EQ(count_of(later, ": task two\n"), std::size_t{kDemos});
    EXPECT_EQ(server->stop(SIGTERM), 0) << server->stderr_text();
}

TEST(AsyncServer, ServesEverythingOnOneThread) {
    const auto server = start();
    EXPECT_EQ(http_get(server->port(), "/html").status, 200u);
    EXPECT_EQ(http_get(server->port(), "/tasks?delay_ms=100").status, 200u);
    // With queries in flight on several pool connections and a timer pending.
    HttpConnection busy(server->port());
    busy.send("GET /html?delay_ms=500 HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(pool_reaches(server->port(), "busy", 2));
    EXPECT_EQ(thread_count(server->pid()), 1);
    EXPECT_EQ(busy.read_reply().status, 200u);
    EXPECT_EQ(thread_count(server->pid()), 1);
    EXPECT_EQ(status_of(server->port())["async"]["event_loop_threads"], 1);
}

// ---- The pool ----------------------------------------------------------------------------------

TEST(AsyncServer, PoolOpensLazilyReusesAndRunsHtmlsQueriesAtOnce) {
    const auto server = start();
    auto status = status_of(server->port());
    EXPECT_EQ(status["async"]["pool"]["open"], 0);
    EXPECT_EQ(status["database"]["connects"], 0);

    HttpConnection connection(server->port());
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(connection.request("GET", "/json").status, 200u);
    }
    status = status_of(server->port());
    EXPECT_EQ(status["database"]["connects"], 1) << "one connection serves requests in turn";

    // Both tables sleep 600 ms first, each on its own connection: done in one delay, not two.
    const HttpReply html = connection.request("GET", "/html?delay_ms=600");
    EXPECT_EQ(html.status, 200u);
    EXPECT_GE(html.elapsed, 595ms);
    EXPECT_LT(html.elapsed, 1150ms);
    status = status_of(server->port());
    EXPECT_EQ(status["database"]["connects"], 2);
    EXPECT_EQ(status["async"]["pool"]["open"], 2);
    EXPECT_EQ(status["async"]["pool"]["size"], 10);
}

// On a --db-pool 1 --db-queue-limit 1 server: a /json?delay_ms= that holds the one connection,
// and a /json waiting in the one queue place. Their replies are left to read.
std::pair<std::unique_ptr<HttpConnection>, std::unique_ptr<HttpConnection>> occupy_pool_and_queue(
    std::uint16_t port, unsigned delay_ms) {
    auto holder = std::make_unique<HttpConnection>(port);
    holder->send("GET /json?delay_ms=" + std::to_string(delay_ms) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_TRUE(pool_reaches(port, "busy", 1));
    auto waiter = std::make_unique<HttpConnection>(port);
    waiter->send("GET /json HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_TRUE(pool_reaches(port, "queued", 1));
    return {std::move(holder), std::move(waiter)};
}

TEST(AsyncServer, PastTheQueueLimitRequestsGet503AtOnce) {
    const auto server = start({"--db-pool", "1", "--db-queue-limit", "1"});
    const auto [holder, waiter] = occupy_pool_and_queue(server->port(), 800);

    const HttpReply refused = http_get(server->port(), "/json");
    EXPECT_EQ(refused.status, 503u);
    EXPECT_EQ(refused.body, "database queue full\n");
    EXPECT_FALSE(refused.header("retry-after").empty());
    EXPECT_LT(refused.elapsed, 400ms);

    EXPECT_EQ(holder->read_reply().status, 200u);
    EXPECT_EQ(waiter->read_reply().status, 200u);
    const auto status = status_of(server->port());
    EXPECT_EQ(status["async"]["pool"]["rejected"], 1);
    EXPECT_EQ(status["async"]["pool"]["queue_limit"], 1);
    EXPECT_EQ(status["database"]["connects"], 1);
}

TEST(AsyncServer, StopsCleanlyAfterTimeoutsAndRejectionsWithTaskTwosPending) {
    const auto server = start({"--db-pool", "1", "--db-queue-limit", "1", "--db-timeout", "0.5"});
    // A query past --db-timeout: its connection is abandoned mid-query and reopened later.
    const auto [slow, queued] = occupy_pool_and_queue(server->port(), 3000);
    EXPECT_EQ(http_get(server->port(), "/json").status, 503u);
    EXPECT_EQ(slow->read_reply().status, 504u);
    EXPECT_EQ(queued->read_reply().status, 200u);
    EXPECT_EQ(http_get(server->port(), "/tasks?delay_ms=10000").status, 200u);
    EXPECT_EQ(status_of(server->port())["async"]["pending_task_twos"], 1);

    // Nothing in flight: the stop is prompt, drops task two, closes the pool, exits 0 (and,
    // in the sanitizer builds, without a leak or an error report).
    const auto asked = Clock::now();
    EXPECT_EQ(server->stop(SIGTERM), 0) << server->stderr_text();
    EXPECT_LT(Clock::now() - asked, 2s);
    EXPECT_NE(server->stderr_text().find("task two dropped: server stopping"), std::string::npos);
}

TEST(AsyncServer, AWaitForAPoolConnectionPastDbQueueTimeoutIs503) {
    const auto server = start({"--db-pool", "1", "--db-queue-timeout", "0.5"});
    EXPECT_EQ(status_of(server->port())["async"]["pool"]["queue_timeout_s"], 0.5);
    HttpConnection holder(server->port());
    holder.send("GET /json?delay_ms=2000 HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(pool_reaches(server->port(), "busy", 1));
    const HttpReply waited = http_get(server->port(), "/json");
    EXPECT_EQ(waited.status, 503u);
    EXPECT_EQ(waited.body, "database queue wait timed out\n");
    EXPECT_FALSE(waited.header("retry-after").empty());
    EXPECT_GE(waited.elapsed, 450ms);
    EXPECT_LT(waited.elapsed, 1500ms);
    EXPECT_EQ(holder.read_reply().status, 200u);
    EXPECT_EQ(status_of(server->port())["async"]["pool"]["timed_out"], 1);
}

TEST(AsyncServer, TheQueueForPoolConnectionsHasALimitByDefault) {
    const auto server = start();
    EXPECT_EQ(status_of(server->port())["async"]["pool"]["queue_limit"], 4096);
}

// 150 clients ask for a slow /json and leave at once. The ten that got a connection run their
// query to the end; the 140 waiting for one are dropped, so a new client waits one delay at most,
// not the fourteen it would take to serve nobody.
TEST(AsyncServer, QueuedWorkOfClientsThatLeftIsDropped) {
    const auto server = start();
    for (int i = 0; i < 150; ++i) {
        HttpConnection leaving(server->port());
        leaving.send("GET /json?delay_ms=1000 HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    ASSERT_TRUE(pool_reaches(server->port(), "busy", 10));
    HttpConnection later(server->port(), 20s);
    const HttpReply reply = later.request("GET", "/json");
    EXPECT_EQ(reply.status, 200u);
    EXPECT_LT(reply.elapsed, 2500ms);
    const auto status = status_of(server->port());
    EXPECT_GE(status["async"]["pool"]["dropped"].get<int>(), 100) << status.dump();
    EXPECT_EQ(status["async"]["pool"]["queued"], 0);
}

// stderr a pipe nobody reads: its 64 KiB fill after some 500 /tasks demos (three lines each).
// The loop must go on serving, dropping the lines it cannot write and counting them.
TEST(AsyncServer, AFullStderrPipeNeverStallsTheLoop) {
    const ServerProcess server(binary_path(kBinary), {}, ProcessSetup{.stderr_unread_pipe = true});
    HttpConnection connection(server.port(), 5s);
    for (int i = 0; i < 3000; ++i) {
        ASSERT_EQ(connection.request("GET", "/tasks?delay_ms=0").status, 200u) << "request " << i;
    }
    const HttpReply hello = http_get(server.port(), "/hello");
    EXPECT_EQ(hello.status, 200u);
    EXPECT_LT(hello.elapsed, 1s);
    EXPECT_GT(status_of(server.port())["log"]["dropped_lines"].get<long>(), 1000);
}

TEST(AsyncServer, PendingTaskTwosAreCapped) {
    const auto server = start({"--max-pending-tasks", "3"});
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(http_get(server->port(), "/tasks?delay_ms=5000").status, 200u);
    }
    const HttpReply refused = http_get(server->port(), "/tasks?delay_ms=5000");
    EXPECT_EQ(refused.status, 503u);
    EXPECT_FALSE(refused.header("retry-after").empty());
    EXPECT_EQ(status_of(server->port())["async"]["pending_task_twos"], 3);
}

// The first request has --timeout from the accept on, its first byte included: a client that
// waits almost that long before it starts does not get a second --timeout for the rest.
TEST(AsyncServer, TheFirstRequestHasTimeoutFromTheAccept) {
    const auto server = start({"--timeout", "2"});
    HttpConnection connection(server->port());
    const auto connected = Clock::now();
    std::this_thread::sleep_for(1500ms);
    EXPECT_TRUE(trickle_until_closed(connection, connected + 5s, 100ms));
    EXPECT_LT(Clock::now() - connected, 2500ms);
}

// ---- The cost model ----------------------------------------------------------------------------

// The per-request CPU of the cost model is real work on the one thread that runs the loop, as a
// Node.js handler's JavaScript runs on Node's: 200 requests of 2 ms each take 0.4 s of its CPU.
TEST(AsyncServer, TheCostModelsCpuIsSpentOnTheEventLoopThread) {
    const auto server = start({"--cpu-per-request-us", "2000"});
    const pid_t loop = server->pid();  // the main thread runs the loop
    const double before = cpu_seconds(server->pid(), loop);
    HttpConnection connection(server->port());
    for (int i = 0; i < 200; ++i) {
        ASSERT_EQ(connection.request("GET", "/hello").status, 200u);
    }
    const double spent_by_loop = cpu_seconds(server->pid(), loop) - before;
    EXPECT_GE(spent_by_loop, 0.38);
    EXPECT_EQ(thread_count(server->pid()), 1);
    const auto cost = status_of(server->port())["cost"];
    EXPECT_EQ(cost["per_request_us"], 2000);
    EXPECT_GE(cost["spent_cpu_s"].get<double>(), 0.4);
    EXPECT_LT(cost["spent_cpu_s"].get<double>(), 0.44);
}

// ---- Same bytes as the blocking server ----------------------------------------------------------

// The index page names its server on one line (both pages are identical but for it);
// that line is taken out before comparing.
std::string without_server_line(const std::string& page, const std::string& server_name) {
    std::istringstream in(page);
    std::string kept;
    for (std::string line; std::getline(in, line);) {
        if (line.find(server_name) == std::string::npos) {
            kept += line + "\n";
        }
    }
    return kept;
}

TEST(AsyncServer, BodiesAreIdenticalToTheBlockingServers) {
    const auto async = start();
    const ServerProcess blocking(binary_path("blocking-server"), {});
    for (const char* target : {"/html", "/json", "/hello", "/factorial?n=20", "/factorial?n=40"}) {
        SCOPED_TRACE(target);
        const HttpReply a = http_get(async->port(), target);
        const HttpReply b = http_get(blocking.port(), target);
        EXPECT_EQ(a.status, 200u);
        EXPECT_EQ(a.header("content-type"), b.header("content-type"));
        EXPECT_TRUE(a.body == b.body) << "bodies differ";
    }
    const std::string a = http_get(async->port(), "/").body;
    const std::string b = http_get(blocking.port(), "/").body;
    EXPECT_NE(a, b);
    EXPECT_EQ(without_server_line(a, "async-server"), without_server_line(b, "blocking-server"));
}

// ---- Cluster mode ----------------------------------------------------------------------------

TEST(AsyncServer, ClusterKeepsServingWhenAWorkerIsKilledAndStopsOnSigterm) {
    const auto cluster = start({"--workers", "2"});
    const std::set<pid_t> workers = await_children(cluster->pid(), 2);
    ASSERT_EQ(workers.size(), 2u);
    for (const pid_t worker : workers) {
        EXPECT_EQ(thread_count(worker), 1 + kSanitizerThreadsAfterFork)
            << "each worker is one event loop";
    }
    std::set<int> answered_by;
    for (int i = 0; i < 60 && answered_by.size() < 2; ++i) {
        answered_by.insert(status_of(cluster->port())["pid"].get<int>());
    }
    EXPECT_EQ(answered_by.size(), 2u) << "the kernel spreads connections over both workers";

    // Four clients, each with one request at a time on a new connection, while a worker is
    // SIGKILLed. Connections the victim holds or queues until its listener is gone may fail;
    // once the supervisor has reaped it (its sockets are closed by then), a request started
    // afterwards always finds the live worker.
    constexpr int kClients = 4;
    std::atomic<bool> done{false};
    std::atomic<int> answered{0};
    std::atomic<int> failed_after_reap{0};
    std::atomic<Clock::rep> reaped_at{Clock::time_point::max().time_since_epoch().count()};
    std::vector<std::thread> clients;
    for (int i = 0; i < kClients; ++i) {
        clients.emplace_back([&] {
            while (!done) {
                const auto started = Clock::now().time_since_epoch().count();
                bool ok = false;
                try {
                    ok = http_get(cluster->port(), "/hello").status == 200;
                } catch (const std::exception&) {
                }
                if (ok) {
                    ++answered;
                } else if (started > reaped_at) {
                    ++failed_after_reap;
                }
            }
        });
    }
    const auto wait_for_answers = [&](int count) {
        for (const auto until = Clock::now() + 20s; answered < count && Clock::now() < until;) {
            std::this_thread::sleep_for(10ms);
        }
        return answered >= count;
    };
    EXPECT_TRUE(wait_for_answers(200));
    const pid_t victim = *workers.begin();
    ASSERT_EQ(::kill(victim, SIGKILL), 0);
    for (const auto until = Clock::now() + 10s; Clock::now() < until;) {
        if (cluster->stderr_text().find("killed by signal 9; restarting") != std::string::npos) {
            reaped_at = Clock::now().time_since_epoch().count();
            break;
        }
        std::this_thread::sleep_for(5ms);
    }
    EXPECT_NE(reaped_at, Clock::time_point::max().time_since_epoch().count()) << "never reaped";
    EXPECT_TRUE(wait_for_answers(answered + 400)) << "the surviving worker stopped answering";
    done = true;
    for (auto& client : clients) {
        client.join();
    }
    EXPECT_EQ(failed_after_reap, 0);

    const std::set<pid_t> after = await_children(cluster->pid(), 2);
    ASSERT_EQ(after.size(), 2u) << "no replacement worker";
    EXPECT_EQ(after.count(victim), 0u);
    for (int i = 0; i < 10; ++i) {
        EXPECT_EQ(http_get(cluster->port(), "/hello").status, 200u);
    }

    EXPECT_EQ(cluster->stop(SIGTERM), 0);
    for (const pid_t worker : after) {
        EXPECT_FALSE(std::filesystem::exists("/proc/" + std::to_string(worker)))
            << "worker " << worker << " outlived the cluster";
    }
}

// /status in cluster mode is answered by one worker, yet its "server" resources are the whole
// cluster's: the supervisor and every worker, as /proc shows them.
TEST(AsyncServer, ClusterStatusReportsTheWholeServersCpu) {
    const auto cluster = start({"--workers", "2"});
    const std::set<pid_t> workers = await_children(cluster->pid(), 2);
    ASSERT_EQ(workers.size(), 2u);
    const auto tree_cpu = [&] {
        double seconds = cpu_seconds(cluster->pid());
        for (const pid_t worker : workers) {
            seconds += cpu_seconds(worker);
        }
        return seconds;
    };
    const auto cpu_from_status = [&] {
        const auto server = status_of(cluster->port())["resources"]["server"];
        EXPECT_EQ(server["processes"], 3);
        return server["user_s"].get<double>() + server["system_s"].get<double>();
    };
    const double status_before = cpu_from_status();
    const double proc_before = tree_cpu();
    std::string report;
    ASSERT_EQ(run_command("ab -q -n 5000 -c 20 http://127.0.0.1:" +
                              std::to_string(cluster->port()) + "/html",
                          report),
              0)
        << report;
    const double proc_spent = tree_cpu() - proc_before;
    const double status_spent = cpu_from_status() - status_before;
    EXPECT_GT(proc_spent, 0.2);
    EXPECT_NEAR(status_spent, proc_spent, 0.05 * proc_spent + 0.03);
}

// ---- Flags and standalone ---------------------------------------------------------------------

TEST(AsyncServer, BadModelFlagsPrintUsageAndExit2) {
    expect_flags_rejected(
        binary_path(kBinary),
        {"--db-pool 0", "--db-pool 1001", "--db-queue-limit -1", "--workers 257", "--workers -1",
         "--concurrency 0", "--db-queue-timeout 0", "--max-pending-tasks 0"});
}

TEST(AsyncServer, StandaloneKeepsKIterationsInFlightOnTwoConnectionsEach) {
    std::string output;
    ASSERT_EQ(run_command(binary_path(kBinary) + " --standalone 30 --concurrency 3", output), 0)
        << output;
    EXPECT_NE(output.find("standalone: 30 iterations of the /html workload (2 queries, 32581 "
                          "bytes rendered each), async model"),
              std::string::npos)
        << output;
    EXPECT_NE(output.find("in flight\t3\ndb connections\t6\n"), std::string::npos) << output;
    EXPECT_NE(output.find("standalone: 30/30"), std::string::npos) << output;

    EXPECT_EQ(run_command(binary_path(kBinary) + " --standalone 5 --db-port 1", output), 1);
    EXPECT_NE(output.find("standalone run failed: cannot connect"), std::string::npos) << output;
}

}  // namespace
}  // namespace mb::test
