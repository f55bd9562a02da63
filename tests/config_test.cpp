#include "common/command_line.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace mb {
namespace {

CommandLine::Action parse(CommandLine& cl, std::vector<const char*> args,
                          std::map<std::string, std::string> env = {}) {
    args.insert(args.begin(), "test-server");
    return cl.parse(static_cast<int>(args.size()), args.data(),
                    [&env](const std::string& name) -> std::optional<std::string> {
                        auto it = env.find(name);
                        if (it == env.end()) return std::nullopt;
                        return it->second;
                    });
}

std::string error_of(std::vector<const char*> args, std::map<std::string, std::string> env = {}) {
    CommandLine cl{"test-server", "for tests", 8081};
    try {
        parse(cl, std::move(args), std::move(env));
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(Config, DefaultsPointAtThePrivateDatabase) {
    CommandLine cl{"test-server", "for tests", 8081};
    EXPECT_EQ(parse(cl, {}), CommandLine::Action::run);
    EXPECT_EQ(cl.http.listen.host, "127.0.0.1");
    EXPECT_EQ(cl.http.listen.port, 8081);
    EXPECT_EQ(cl.http.backlog, 511);
    EXPECT_TRUE(cl.http.keepalive);
    EXPECT_EQ(cl.http.keepalive_timeout.count(), 5000);
    EXPECT_EQ(cl.http.io_timeout.count(), 30000);
    EXPECT_EQ(cl.db.host, "127.0.0.1");
    EXPECT_EQ(cl.db.port, 3307);
    EXPECT_EQ(cl.db.database, "sampledb");
    EXPECT_EQ(cl.db.user, "bench");
    EXPECT_TRUE(cl.db.socket.empty());
    EXPECT_FALSE(cl.standalone.has_value());
}

TEST(Config, FlagsAreParsed) {
    CommandLine cl{"test-server", "for tests", 8081};
    parse(cl, {"--listen", "0.0.0.0:9000", "--keepalive", "off", "--keepalive-timeout", "0.5",
               "--timeout", "2", "--db-socket", "/tmp/x.sock", "--db-timeout", "1.5",
               "--standalone", "20"});
    EXPECT_EQ(cl.http.listen.host, "0.0.0.0");
    EXPECT_EQ(cl.http.listen.port, 9000);
    EXPECT_FALSE(cl.http.keepalive);
    EXPECT_EQ(cl.http.keepalive_timeout.count(), 500);
    EXPECT_EQ(cl.http.io_timeout.count(), 2000);
    EXPECT_EQ(cl.db.socket, "/tmp/x.sock");
    EXPECT_EQ(cl.db.query_timeout.count(), 1500);
    ASSERT_TRUE(cl.standalone.has_value());
    EXPECT_EQ(*cl.standalone, 20u);
}

TEST(Config, StandaloneDefaultsTo1000) {
    CommandLine cl{"test-server", "for tests", 8081};
    parse(cl, {"--standalone"});
    ASSERT_TRUE(cl.standalone.has_value());
    EXPECT_EQ(*cl.standalone, 1000u);
}

TEST(Config, EnvironmentIsTheFallback) {
    CommandLine cl{"test-server", "for tests", 8081};
    parse(cl, {},
          {{"MYSQL_HOST", "10.1.2.3"},
           {"MYSQL_TCP_PORT", "3999"},
           {"MYSQL_UNIX_PORT", "/run/db.sock"},
           {"MYSQL_PWD", "secret"},
           {"MYSQL_USER", "reader"},
           {"MYSQL_DATABASE", "otherdb"}});
    EXPECT_EQ(cl.db.host, "10.1.2.3");
    EXPECT_EQ(cl.db.port, 3999);
    EXPECT_EQ(cl.db.socket, "/run/db.sock");
    EXPECT_EQ(cl.db.password, "secret");
    EXPECT_EQ(cl.db.user, "reader");
    EXPECT_EQ(cl.db.database, "otherdb");
}

TEST(Config, FlagsBeatTheEnvironment) {
    CommandLine cl{"test-server", "for tests", 8081};
    parse(cl, {"--db-host", "127.0.0.2", "--db-port", "4000", "--db-password", "flag"},
          {{"MYSQL_HOST", "10.1.2.3"}, {"MYSQL_TCP_PORT", "3999"}, {"MYSQL_PWD", "env"}});
    EXPECT_EQ(cl.db.host, "127.0.0.2");
    EXPECT_EQ(cl.db.port, 4000);
    EXPECT_EQ(cl.db.password, "flag");
}

TEST(Config, HelpAndVersionAreActions) {
    CommandLine cl{"test-server", "for tests", 8081};
    EXPECT_EQ(parse(cl, {"--help"}), CommandLine::Action::help);
    EXPECT_EQ(parse(cl, {"--version"}), CommandLine::Action::version);
    EXPECT_NE(cl.usage().find("--db-timeout"), std::string::npos);
    EXPECT_NE(cl.usage().find("MYSQL_UNIX_PORT"), std::string::npos);
    EXPECT_NE(cl.version().find(MODELBENCH_VERSION), std::string::npos);
}

TEST(Config, BadValuesAreRejectedWithAMessage) {
    EXPECT_NE(error_of({"--no-such-flag"}).find("no-such-flag"), std::string::npos);
    EXPECT_NE(error_of({"--listen", "8081"}).find("HOST:PORT"), std::string::npos);
    EXPECT_NE(error_of({"--listen", "127.0.0.1:99999"}).find("port"), std::string::npos);
    EXPECT_NE(error_of({"--keepalive", "maybe"}).find("'on' or 'off'"), std::string::npos);
    EXPECT_NE(error_of({"--timeout", "0"}).find("--timeout"), std::string::npos);
    EXPECT_NE(error_of({"--timeout", "abc"}).find("timeout"), std::string::npos);
    EXPECT_NE(error_of({"--db-port", "-1"}).find("--db-port"), std::string::npos);
    EXPECT_NE(error_of({"--db-port", "0"}).find("--db-port"), std::string::npos);
    EXPECT_NE(error_of({"--backlog", "0"}).find("--backlog"), std::string::npos);
    EXPECT_NE(error_of({"--standalone", "0"}).find("--standalone"), std::string::npos);
    EXPECT_NE(error_of({"--standalone=-5"}).find("--standalone"), std::string::npos);
    // A bad value from the environment is as much an error as a bad flag.
    EXPECT_NE(error_of({}, {{"MYSQL_TCP_PORT", "not-a-port"}}).find("--db-port"),
              std::string::npos);
}

TEST(Config, ListenUrlBracketsIpv6) {
    EXPECT_EQ(listen_url({"127.0.0.1", 8082}), "http://127.0.0.1:8082/");
    EXPECT_EQ(listen_url({"::1", 80}), "http://[::1]:80/");
    EXPECT_EQ(listen_url(parse_listen_address("[::]:0")), "http://[::]:0/");
}

TEST(Config, HostPortErrorsNameTheFlag) {
    const auto target = parse_host_port("[::1]:3307", "--target");
    EXPECT_EQ(target.host, "::1");
    EXPECT_EQ(target.port, 3307);
    for (const char* bad : {"127.0.0.1", ":3307", "127.0.0.1:x", "127.0.0.1:65536"}) {
        try {
            parse_host_port(bad, "--target");
            ADD_FAILURE() << bad << " was accepted";
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("--target: ", 0), 0u) << e.what();
        }
    }
}

TEST(Config, BoundedModelFlagsAreRangeChecked) {
    unsigned pool = 10;
    const auto with_pool = [&pool](std::vector<const char*> args) {
        CommandLine cl{"test-server", "for tests", 8081};
        cl.model_options().add_options()("db-pool", bounded_flag("db-pool", pool, 1, 1000), "");
        parse(cl, std::move(args));
    };
    with_pool({});
    EXPECT_EQ(pool, 10u);  // the default is the target's value
    with_pool({"--db-pool", "1000"});
    EXPECT_EQ(pool, 1000u);
    for (const char* bad : {"0", "1001", "-1"}) {
        try {
            with_pool({"--db-pool", bad});
            ADD_FAILURE() << "--db-pool " << bad << " was accepted";
        } catch (const ConfigError& e) {
            EXPECT_STREQ(e.what(), "--db-pool must be between 1 and 1000");
        }
    }
    EXPECT_EQ(pool, 1000u);
}

}  // namespace
}  // namespace mb
