// The servers every shared integration test runs against: one entry per model. A new server
// joins every shared suite with one line in server_kinds().
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mb::test {

struct ServerKind {
    std::string model;              // "blocking" | "async"
    std::string binary;             // file name in the build's bin/
    std::vector<std::string> args;  // given to every start
    // The ways this server can use the database; tests that touch the database run each.
    std::vector<std::vector<std::string>> db_variants;
    // The port of the MariaDB instance the outage test stops (var/mariadb-<model>): one per
    // server, so that the suite's instances may run side by side (ctest -j).
    std::string fault_db_port;
};

// gtest prints a test's parameter on failure: the model says which server it was.
inline void PrintTo(const ServerKind& kind, std::ostream* out) { *out << kind.model; }

inline std::vector<ServerKind> server_kinds() {
    return {
        {"blocking",
         "blocking-server",
         {},
         {{"--db-connection", "per-request"},
          {"--db-connection", "persistent"},
          {"--lifecycle", "prefork", "--db-connection", "persistent"}},
         "3311"},
        {"async", "async-server", {}, {{}}, "3312"},
    };
}

// For INSTANTIATE_TEST_SUITE_P: names the test instance after the model.
inline std::string server_kind_name(const ServerKind& kind) { return kind.model; }

}  // namespace mb::test
