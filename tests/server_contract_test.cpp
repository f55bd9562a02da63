// The endpoint contract (docs/servers.md, "The endpoint contract") checked against the built server
// binaries over real sockets and the private MariaDB: status, headers and body of every endpoint,
// HEAD, every error code, keep-alive, the database faults and shutdown. One instance of the suite
// per server kind (tests/support/server_kinds.hpp).
#include "common/command_line.hpp"
#include "common/db/blocking_connection.hpp"
#include "common/db/workload.hpp"
#include "common/pages/factorial.hpp"
#include "common/pages/render.hpp"
#include "tests/support/flag_checks.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/server_kinds.hpp"
#include "tests/support/server_process.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace mb::test {
namespace {

using namespace std::chrono_literals;

std::string variant_name(const std::vector<std::string>& variant) {
    std::string name;
    for (const auto& arg : variant) {
        name += (name.empty() ? "" : " ") + arg;
    }
    return name.empty() ? "(default)" : name;
}

// The database the servers use by default, reached the way they reach it.
DbConfig private_db() {
    CommandLine command_line{"server_contract_tests", "", 0};
    const char* argv[] = {"server_contract_tests"};
    command_line.parse(1, argv);
    return command_line.db;
}

const std::string& expected_html() {
    static const std::string page = [] {
        BlockingDbConnection db{private_db()};
        db.connect();
        const MysqlResult products = db.query(kProductsQuery);
        const MysqlResult orders = db.query(kOrdersQuery);
        ResultRows product_rows(products.get());
        ResultRows order_rows(orders.get());
        return std::string(render_html_page(product_rows, order_rows).view());
    }();
    return page;
}

const std::string& expected_json() {
    static const std::string json = [] {
        BlockingDbConnection db{private_db()};
        db.connect();
        const MysqlResult orders = db.query(kOrdersQuery);
        ResultRows rows(orders.get());
        return std::string(render_orders_json(rows).view());
    }();
    return json;
}

// Every response: Content-Length (never chunked), Date, Server naming the model, Content-Type.
void expect_contract_headers(const HttpReply& reply, const std::string& content_type,
                             const std::string& model) {
    EXPECT_TRUE(reply.has_header("content-length"));
    EXPECT_FALSE(reply.has_header("transfer-encoding"));
    EXPECT_TRUE(std::regex_match(reply.header("date"),
                                 std::regex(R"([A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} )"
                                            R"(\d\d:\d\d:\d\d GMT)")))
        << reply.header("date");
    EXPECT_NE(reply.header("server").find(model), std::string::npos) << reply.header("server");
    EXPECT_EQ(reply.header("content-type"), content_type);
}

void expect_error(const HttpReply& reply, unsigned status, const std::string& model) {
    EXPECT_EQ(reply.status, status) << reply.body;
    expect_contract_headers(reply, "text/plain; charset=utf-8", model);
    // One line of plain text.
    ASSERT_FALSE(reply.body.empty());
    EXPECT_EQ(reply.body.back(), '\n');
    EXPECT_EQ(reply.body.find('\n'), reply.body.size() - 1) << reply.body;
    EXPECT_EQ(reply.header("content-length"), std::to_string(reply.body.size()));
}

class ServerContract : public ::testing::TestWithParam<ServerKind> {
  protected:
    const std::string& model() const { return GetParam().model; }

    std::unique_ptr<ServerProcess> start(std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = GetParam().args;
        args.insert(args.end(), extra.begin(), extra.end());
        return std::make_unique<ServerProcess>(binary_path(GetParam().binary), args);
    }

    // The server with default flags, started on first use.
    ServerProcess& server() {
        if (!default_server_) {
            default_server_ = start();
        }
        return *default_server_;
    }

    std::string command(const std::string& flags) const {
        return binary_path(GetParam().binary) + " " + flags;
    }

  private:
    std::unique_ptr<ServerProcess> default_server_;
};

// ---- Endpoints --------------------------------------------------------------------------------

TEST_P(ServerContract, IndexNamesTheEndpointsAndTheModel) {
    const HttpReply reply = http_get(server().port(), "/");
    EXPECT_EQ(reply.status, 200u);
    expect_contract_headers(reply, "text/html; charset=utf-8", model());
    for (const char* path : {"/html", "/json", "/hello", "/factorial", "/tasks", "/status"}) {
        EXPECT_NE(reply.body.find(path), std::string::npos) << path;
    }
    EXPECT_NE(reply.body.find(model()), std::string::npos);
}

TEST_P(ServerContract, HtmlIsBothTablesAsRenderedFromTheDatabase) {
    for (const auto& variant : GetParam().db_variants) {
        SCOPED_TRACE(variant_name(variant));
        const auto server = start(variant);
        const HttpReply reply = http_get(server->port(), "/html");
        EXPECT_EQ(reply.status, 200u);
        expect_contract_headers(reply, "text/html; charset=utf-8", model());
        EXPECT_EQ(reply.header("content-length"), std::to_string(expected_html().size()));
        EXPECT_TRUE(reply.body == expected_html()) << "the /html body differs from the rendering";
    }
}

TEST_P(ServerContract, JsonIsTheOrdersTableAsRenderedFromTheDatabase) {
    for (const auto& variant : GetParam().db_variants) {
        SCOPED_TRACE(variant_name(variant));
        const auto server = start(variant);
        const HttpReply reply = http_get(server->port(), "/json");
        EXPECT_EQ(reply.status, 200u);
        expect_contract_headers(reply, "application/json", model());
        EXPECT_TRUE(reply.body == expected_json()) << "the /json body differs from the rendering";
        EXPECT_EQ(nlohmann::json::parse(reply.body).size(), 300u);
    }
}

TEST_P(ServerContract, HelloIsExact) {
    const HttpReply reply = http_get(server().port(), "/hello");
    EXPECT_EQ(reply.status, 200u);
    expect_contract_headers(reply, "text/plain; charset=utf-8", model());
    EXPECT_EQ(reply.body, "Hello World! 10\n");
    EXPECT_EQ(reply.header("content-length"), "16");
}

TEST_P(ServerContract, FactorialOfAGivenN) {
    HttpReply reply = http_get(server().port(), "/factorial?n=20");
    EXPECT_EQ(reply.status, 200u);
    expect_contract_headers(reply, "text/plain; charset=utf-8", model());
    EXPECT_EQ(reply.body, "20! = 2432902008176640000\n");
    EXPECT_EQ(http_get(server().port(), "/factorial?n=0").body, "0! = 1\n");
    reply = http_get(server().port(), "/factorial?n=1000");
    EXPECT_EQ(reply.body, render_factorial(1000));
}

TEST_P(ServerContract, FactorialOfARandomNBetween10And40) {
    HttpConnection connection(server().port());
    std::set<unsigned> seen;
    for (int i = 0; i < 60; ++i) {
        const HttpReply reply = connection.request("GET", "/factorial");
        ASSERT_EQ(reply.status, 200u);
        std::smatch match;
        ASSERT_TRUE(std::regex_match(reply.body, match, std::regex(R"((\d+)! = (\d+)\n)")))
            << reply.body;
        const unsigned n = static_cast<unsigned>(std::stoul(match[1]));
        EXPECT_GE(n, 10u);
        EXPECT_LE(n, 40u);
        EXPECT_EQ(reply.body, render_factorial(n));
        seen.insert(n);
    }
    EXPECT_GE(seen.size(), 5u) << "n does not look random";
}

// The server's stderr line for one step of a /tasks demo: "HH:MM:SS.mmm tasks #ID: task ..."
struct TaskLogLine {
    long long ms_of_day;
    std::string demo;
    std::string task;
};

std::vector<TaskLogLine> task_log(const std::string& stderr_text) {
    std::vector<TaskLogLine> lines;
    const std::regex line(R"((\d\d):(\d\d):(\d\d)\.(\d{3}) tasks #(\d+): (task \w+))");
    for (auto it = std::sregex_iterator(stderr_text.begin(), stderr_text.end(), line);
         it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        const long long ms =
            ((std::stoll(m[1]) * 60 + std::stoll(m[2])) * 60 + std::stoll(m[3])) * 1000 +
            std::stoll(m[4]);
        lines.push_back({ms, m[5], m[6]});
    }
    return lines;
}

TEST_P(ServerContract, TasksLogsThreeTasksInTheModelsOrder) {
    const HttpReply reply = http_get(server().port(), "/tasks?delay_ms=400");
    EXPECT_EQ(reply.status, 200u);
    expect_contract_headers(reply, "text/plain; charset=utf-8", model());
    EXPECT_NE(reply.body.find("task one"), std::string::npos);
    EXPECT_NE(reply.body.find("400 ms"), std::string::npos);

    // Task two runs 400 ms after task one, whatever the model; wait for it to be logged.
    std::vector<TaskLogLine> log;
    for (int i = 0; i < 100 && log.size() < 3; ++i) {
        std::this_thread::sleep_for(20ms);
        log = task_log(server().stderr_text());
    }
    ASSERT_EQ(log.size(), 3u) << server().stderr_text();
    EXPECT_EQ(log[0].demo, log[2].demo);
    EXPECT_EQ(log[0].task, "task one");
    const auto two = std::find_if(log.begin(), log.end(),
                                  [](const TaskLogLine& line) { return line.task == "task two"; });
    ASSERT_NE(two, log.end());
    EXPECT_GE((two->ms_of_day - log[0].ms_of_day + 86'400'000) % 86'400'000, 395);

    if (model() == "blocking") {
        // Task two blocks the worker: the response waits for it, and the log reads one, two, three.
        EXPECT_GE(reply.elapsed, 395ms);
        EXPECT_EQ(log[1].task, "task two");
        EXPECT_EQ(log[2].task, "task three");
        EXPECT_NE(reply.body.find("task one\ntask two (after 400 ms)\ntask three\n"),
                  std::string::npos);
    } else {
        // Task two is a timer: the response comes at once, and the log reads one, three, two.
        EXPECT_LT(reply.elapsed, 395ms);
        EXPECT_EQ(log[1].task, "task three");
        EXPECT_EQ(log[2].task, "task two");
    }
}

TEST_P(ServerContract, StatusReportsCounters) {
    HttpConnection connection(server().port());
    ASSERT_EQ(connection.request("GET", "/hello").status, 200u);
    ASSERT_EQ(connection.request("GET", "/nowhere").status, 404u);
    const HttpReply reply = connection.request("GET", "/status");
    EXPECT_EQ(reply.status, 200u);
    expect_contract_headers(reply, "application/json", model());
    const auto status = nlohmann::json::parse(reply.body);
    EXPECT_EQ(status["model"], model());
    EXPECT_EQ(status["server"], GetParam().binary);
    EXPECT_EQ(status["pid"], server().pid());
    EXPECT_GT(status["uptime_s"].get<double>(), 0.0);
    EXPECT_GE(status["requests"]["2xx"].get<unsigned>(), 1u);
    EXPECT_GE(status["requests"]["4xx"].get<unsigned>(), 1u);
    EXPECT_GE(status["requests"]["in_flight"].get<int>(), 1);  // this request
    EXPECT_TRUE(status["database"].contains("connects"));
    EXPECT_TRUE(status["database"].contains("connect_errors"));
    EXPECT_TRUE(status[model()].is_object()) << "no model section";
    for (const char* part : {"process", "server"}) {
        const auto& resources = status["resources"][part];
        EXPECT_GT(resources["rss_kib"].get<long>(), 1000) << part;
        EXPECT_GE(resources["threads"].get<long>(), 1) << part;
        EXPECT_GE(resources["user_s"].get<double>() + resources["system_s"].get<double>(), 0.0);
    }
    EXPECT_EQ(status["resources"]["server"]["processes"], 1);
}

// The server's own CPU in /status agrees with what /proc shows of it over a load run, so that a
// client on another machine can measure CPU per request.
TEST_P(ServerContract, StatusCpuAgreesWithProcOverALoadRun) {
    const auto server = start();
    const auto cpu_from_status = [&] {
        const auto status = nlohmann::json::parse(http_get(server->port(), "/status").body);
        const auto& usage = status["resources"]["server"];
        return usage["user_s"].get<double>() + usage["system_s"].get<double>();
    };
    const double status_before = cpu_from_status();
    const double proc_before = cpu_seconds(server->pid());
    std::string report;
    ASSERT_EQ(run_command("ab -q -n 5000 -c 20 http://127.0.0.1:" + std::to_string(server->port()) +
                              "/html",
                          report),
              0)
        << report;
    const double proc_spent = cpu_seconds(server->pid()) - proc_before;
    const double status_spent = cpu_from_status() - status_before;
    EXPECT_GT(proc_spent, 0.2) << "too little CPU to compare";
    EXPECT_NEAR(status_spent, proc_spent, 0.05 * proc_spent + 0.02);
}

TEST_P(ServerContract, HeadHasTheHeadersOfGetAndNoBody) {
    HttpConnection connection(server().port());
    for (const char* target : {"/", "/html", "/json", "/hello", "/factorial?n=30",
                               "/tasks?delay_ms=0", "/nowhere", "/factorial?n=-1"}) {
        SCOPED_TRACE(target);
        const HttpReply get = connection.request("GET", target);
        const HttpReply head = connection.request("HEAD", target);
        EXPECT_EQ(head.status, get.status);
        EXPECT_EQ(head.header("content-type"), get.header("content-type"));
        EXPECT_EQ(head.header("content-length"), std::to_string(get.body.size()));
        EXPECT_TRUE(head.body.empty());
    }
    // Had the server sent a body after a HEAD response, this reply would not parse.
    EXPECT_EQ(connection.request("GET", "/hello").body, "Hello World! 10\n");
}

// ---- Errors -----------------------------------------------------------------------------------

TEST_P(ServerContract, OutOfRangeParametersAre400) {
    for (const char* target : {"/factorial?n=20001", "/factorial?n=abc", "/html?delay_ms=10001",
                               "/json?delay_ms=-5", "/tasks?delay_ms=x"}) {
        SCOPED_TRACE(target);
        expect_error(http_get(server().port(), target), 400, model());
    }
}

TEST_P(ServerContract, MalformedRequestIs400AndCloses) {
    HttpConnection connection(server().port());
    connection.send("THIS IS NOT HTTP\r\n\r\n");
    expect_error(connection.read_reply(), 400, model());
    EXPECT_TRUE(connection.closed_by_server(2s));
}

TEST_P(ServerContract, UnknownPathIs404) {
    expect_error(http_get(server().port(), "/nowhere"), 404, model());
    expect_error(http_get(server().port(), "/html/"), 404, model());
}

TEST_P(ServerContract, OtherMethodsAre405WithAllow) {
    HttpConnection connection(server().port());
    for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS"}) {
        SCOPED_TRACE(method);
        const HttpReply reply = connection.request(method, "/hello", 11, "Content-Length: 0\r\n");
        expect_error(reply, 405, model());
        EXPECT_EQ(reply.header("allow"), "GET, HEAD");
    }
}

TEST_P(ServerContract, UriOver8KiBIs414) {
    const std::string long_query = "/hello?pad=" + std::string(9000, 'a');
    expect_error(http_get(server().port(), long_query), 414, model());
    // Longer than the whole header limit: refused while reading, still 414.
    HttpConnection connection(server().port());
    connection.send("GET /hello?pad=" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_error(connection.read_reply(), 414, model());
}

TEST_P(ServerContract, HeadersOver16KiBAre431) {
    HttpConnection connection(server().port());
    const std::string big = "X-Big: " + std::string(17 * 1024, 'b') + "\r\n";
    expect_error(connection.request("GET", "/hello", 11, big), 431, model());
}

TEST_P(ServerContract, BodyOver64KiBIs413) {
    HttpConnection connection(server().port());
    const std::string body(70 * 1024, 'x');
    connection.send("POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body);
    expect_error(connection.read_reply(), 413, model());
}

TEST_P(ServerContract, UnreachableDatabaseIs503WithRetryAfter) {
    for (const auto& variant : GetParam().db_variants) {
        SCOPED_TRACE(variant_name(variant));
        std::vector<std::string> args = variant;
        args.insert(args.end(), {"--db-host", "127.0.0.1", "--db-port", "1"});  // nothing there
        const auto server = start(args);
        for (const char* target : {"/html", "/json"}) {
            const HttpReply reply = http_get(server->port(), target);
            expect_error(reply, 503, model());
            EXPECT_FALSE(reply.header("retry-after").empty());
        }
        EXPECT_EQ(http_get(server->port(), "/hello").status, 200u);
    }
}

TEST_P(ServerContract, QueryPastDbTimeoutIs504AndTheServerGoesOn) {
    for (const auto& variant : GetParam().db_variants) {
        SCOPED_TRACE(variant_name(variant));
        std::vector<std::string> args = variant;
        args.insert(args.end(), {"--db-timeout", "1"});
        const auto server = start(args);
        HttpConnection connection(server->port());
        const HttpReply slow = connection.request("GET", "/html?delay_ms=3000");
        expect_error(slow, 504, model());
        EXPECT_GE(slow.elapsed, 900ms);
        EXPECT_LT(slow.elapsed, 2900ms);
        // The timed-out database connection is not reused in a broken state.
        const HttpReply next = connection.request("GET", "/html");
        EXPECT_EQ(next.status, 200u);
        EXPECT_TRUE(next.body == expected_html());
    }
}

TEST_P(ServerContract, DelayMsWaitsInTheDatabase) {
    const HttpReply reply = http_get(server().port(), "/json?delay_ms=300");
    EXPECT_EQ(reply.status, 200u);
    EXPECT_GE(reply.elapsed, 295ms);
    EXPECT_TRUE(reply.body == expected_json());
}

// ---- Keep-alive -------------------------------------------------------------------------------

TEST_P(ServerContract, Http11KeepsTheConnectionOpen) {
    HttpConnection connection(server().port());
    for (int i = 0; i < 3; ++i) {
        const HttpReply reply = connection.request("GET", "/hello");
        EXPECT_EQ(reply.status, 200u);
        EXPECT_EQ(reply.version, 11u);
        EXPECT_NE(reply.header("connection"), "close");
    }
    EXPECT_FALSE(connection.closed_by_server(300ms));
}

TEST_P(ServerContract, Http11ConnectionCloseIsHonoured) {
    HttpConnection connection(server().port());
    const HttpReply reply = connection.request("GET", "/hello", 11, "Connection: close\r\n");
    EXPECT_EQ(reply.status, 200u);
    EXPECT_EQ(reply.header("connection"), "close");
    EXPECT_TRUE(connection.closed_by_server(2s));
}

TEST_P(ServerContract, Http10ClosesUnlessAskedToKeepAlive) {
    {
        HttpConnection connection(server().port());
        const HttpReply reply = connection.request("GET", "/hello", 10);
        EXPECT_EQ(reply.status, 200u);
        EXPECT_EQ(reply.version, 10u);
        EXPECT_TRUE(connection.closed_by_server(2s));
    }
    // What ab -k sends; ab then needs "Keep-Alive" in the response headers.
    HttpConnection connection(server().port());
    for (int i = 0; i < 3; ++i) {
        const HttpReply reply =
            connection.request("GET", "/hello", 10, "Connection: Keep-Alive\r\n");
        EXPECT_EQ(reply.status, 200u);
        EXPECT_EQ(reply.version, 10u);
        EXPECT_TRUE(std::regex_search(reply.header("connection"),
                                      std::regex("keep-alive", std::regex::icase)));
    }
    EXPECT_FALSE(connection.closed_by_server(300ms));
}

TEST_P(ServerContract, KeepaliveOffClosesAfterEveryResponse) {
    const auto server = start({"--keepalive", "off"});
    {
        HttpConnection connection(server->port());
        const HttpReply reply = connection.request("GET", "/hello");
        EXPECT_EQ(reply.status, 200u);
        EXPECT_EQ(reply.header("connection"), "close");
        EXPECT_TRUE(connection.closed_by_server(2s));
    }
    HttpConnection connection(server->port());
    const HttpReply reply = connection.request("GET", "/hello", 10, "Connection: keep-alive\r\n");
    EXPECT_EQ(reply.status, 200u);
    EXPECT_FALSE(
        std::regex_search(reply.header("connection"), std::regex("keep-alive", std::regex::icase)));
    EXPECT_TRUE(connection.closed_by_server(2s));
}

TEST_P(ServerContract, IdleConnectionClosesAfterKeepaliveTimeout) {
    const auto server = start({"--keepalive-timeout", "1"});
    HttpConnection connection(server->port());
    ASSERT_EQ(connection.request("GET", "/hello").status, 200u);
    const auto idle_since = std::chrono::steady_clock::now();
    EXPECT_FALSE(connection.closed_by_server(500ms));
    EXPECT_TRUE(connection.closed_by_server(3s));
    EXPECT_LT(std::chrono::steady_clock::now() - idle_since, 3s);
}

// A slowloris client: every byte comes well within --timeout, but the request never ends.
// --timeout bounds the whole request, so the server closes it once that much time has passed.
TEST_P(ServerContract, ARequestTrickledPastTimeoutIsClosed) {
    const auto server = start({"--timeout", "1"});
    HttpConnection connection(server->port());
    const auto started = std::chrono::steady_clock::now();
    const bool closed = trickle_until_closed(connection, started + 5s, 200ms);
    const auto elapsed = std::chrono::steady_clock::now() - started;
    EXPECT_TRUE(closed) << "still open after 5 s of one byte every 200 ms";
    EXPECT_GE(elapsed, 900ms);
    EXPECT_LT(elapsed, 2500ms);
    EXPECT_EQ(http_get(server->port(), "/hello").status, 200u);
}

TEST_P(ServerContract, PipelinedRequestsAreAnsweredInOrder) {
    HttpConnection connection(server().port());
    connection.send(
        "GET /factorial?n=5 HTTP/1.1\r\nHost: x\r\n\r\n"
        "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
        "GET /json HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(connection.read_reply().body, "5! = 120\n");
    EXPECT_EQ(connection.read_reply().body, "Hello World! 10\n");
    EXPECT_TRUE(connection.read_reply().body == expected_json());
}

// ---- Flags, access log, shutdown -------------------------------------------------------------

TEST_P(ServerContract, HelpVersionAndBadFlags) {
    std::string output;
    EXPECT_EQ(run_command(command("--help"), output), 0);
    EXPECT_NE(output.find("--listen"), std::string::npos);
    EXPECT_EQ(run_command(command("--version"), output), 0);
    EXPECT_NE(output.find(GetParam().binary), std::string::npos);
    expect_flags_rejected(
        binary_path(GetParam().binary),
        {"--no-such-flag", "--listen nowhere", "--keepalive maybe", "--timeout 0",
         "--db-port 70000", "--cpu-per-request-us -1", "--cpu-per-row-ns 1000001"});
}

TEST_P(ServerContract, AccessLogHasACommonLogFormatLinePerRequest) {
    const std::string path = std::filesystem::temp_directory_path() /
                             ("modelbench-access-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(path);
    {
        const auto server = start({"--access-log", path});
        HttpConnection connection(server->port());
        connection.request("GET", "/hello", 10, "Connection: keep-alive\r\n");
        connection.request("GET", "/nowhere", 10, "Connection: keep-alive\r\n");
        EXPECT_EQ(server->stop(SIGTERM), 0);
    }
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove(path);
    const std::regex clf(R"(127\.0\.0\.1 - - \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000\] )"
                         R"("GET /hello HTTP/1\.0" 200 16\n)"
                         R"(127\.0\.0\.1 - - \[[^\]]+\] "GET /nowhere HTTP/1\.0" 404 \d+\n)");
    EXPECT_TRUE(std::regex_match(text.str(), clf)) << text.str();
}

TEST_P(ServerContract, SigtermLetsTheRequestInFlightFinishThenExits0) {
    const auto server = start();
    HttpConnection busy(server->port());
    busy.send("GET /html?delay_ms=1000 HTTP/1.1\r\nHost: x\r\n\r\n");
    std::this_thread::sleep_for(300ms);
    ASSERT_EQ(::kill(server->pid(), SIGTERM), 0);
    const HttpReply reply = busy.read_reply();
    EXPECT_EQ(reply.status, 200u);
    EXPECT_TRUE(reply.body == expected_html());
    EXPECT_EQ(reply.header("connection"), "close");
    EXPECT_EQ(server->stop(SIGTERM, 5s), 0);
}

TEST_P(ServerContract, SigtermClosesIdleConnectionsPromptly) {
    const auto server = start({"--keepalive-timeout", "30"});
    HttpConnection idle(server->port());
    ASSERT_EQ(idle.request("GET", "/hello").status, 200u);
    const auto asked = std::chrono::steady_clock::now();
    EXPECT_EQ(server->stop(SIGTERM, 10s), 0);
    EXPECT_LT(std::chrono::steady_clock::now() - asked, 2s);
    EXPECT_TRUE(idle.closed_by_server(1s));
}

TEST_P(ServerContract, SigintExits0) {
    const auto server = start();
    EXPECT_EQ(http_get(server->port(), "/hello").status, 200u);
    EXPECT_EQ(server->stop(SIGINT, 10s), 0);
}

// ---- The database stopped and started again ----------------------------------------------------

// A database instance of its own (scripts/db.sh with DB_DIR / DB_PORT), so that stopping it
// disturbs no one else; MODELBENCH_FAULT_DB_DIR / _PORT override where it lives.
class FaultDatabase {
  public:
    explicit FaultDatabase(const ServerKind& server) {
        const char* dir = std::getenv("MODELBENCH_FAULT_DB_DIR");
        const char* port = std::getenv("MODELBENCH_FAULT_DB_PORT");
        dir_ = dir != nullptr ? dir : "var/mariadb-" + server.model;
        port_ = port != nullptr ? port : server.fault_db_port;
    }
    const std::string& port() const { return port_; }

    void run(const std::string& action) const {
        std::string output;
        const std::string command = "DB_DIR='" + dir_ + "' DB_PORT='" + port_ + "' bash '" +
                                    MODELBENCH_SOURCE_DIR + "/scripts/db.sh' " + action;
        ASSERT_EQ(run_command(command, output), 0) << command << "\n" << output;
    }

  private:
    std::string dir_;
    std::string port_;
};

TEST_P(ServerContract, DatabaseStoppedIs503AndTheServerRecoversWhenItIsBack) {
    const FaultDatabase database(GetParam());
    ASSERT_NO_FATAL_FAILURE(database.run("start"));
    struct Running {
        std::string variant;
        std::unique_ptr<ServerProcess> server;
        std::unique_ptr<HttpConnection> kept;  // a keep-alive client across the outage
    };
    std::vector<Running> servers;
    for (const auto& variant : GetParam().db_variants) {
        std::vector<std::string> args = variant;
        args.insert(args.end(), {"--db-host", "127.0.0.1", "--db-port", database.port(),
                                 "--db-connect-timeout", "1"});
        servers.push_back({variant_name(variant), start(args), nullptr});
        servers.back().kept = std::make_unique<HttpConnection>(servers.back().server->port());
    }
    for (auto& running : servers) {
        SCOPED_TRACE(running.variant);
        EXPECT_EQ(running.kept->request("GET", "/html").status, 200u);
    }

    ASSERT_NO_FATAL_FAILURE(database.run("stop"));
    for (auto& running : servers) {
        SCOPED_TRACE(running.variant);
        for (const char* target : {"/html", "/json"}) {
            const HttpReply reply = running.kept->request("GET", target);
            expect_error(reply, 503, model());
            EXPECT_FALSE(reply.header("retry-after").empty());
            expect_error(http_get(running.server->port(), target), 503, model());
        }
    }

    ASSERT_NO_FATAL_FAILURE(database.run("start"));
    for (auto& running : servers) {
        SCOPED_TRACE(running.variant);
        const HttpReply reply = running.kept->request("GET", "/html");
        EXPECT_EQ(reply.status, 200u);
        EXPECT_TRUE(reply.body == expected_html());
        EXPECT_EQ(http_get(running.server->port(), "/json").status, 200u);
        EXPECT_TRUE(running.server->running());
    }
    database.run("stop");
}

INSTANTIATE_TEST_SUITE_P(Servers, ServerContract, ::testing::ValuesIn(server_kinds()),
                         [](const auto& info) { return server_kind_name(info.param); });

}  // namespace
}  // namespace mb::test
