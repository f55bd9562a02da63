// The servers every shared integration test runs against: one entry per model.
#pragma once

#include <string>
#include <vector>

namespace mb::test {

struct ServerKind {
    std::string model;   // "blocking" | "async"
    std::string binary;  // file name in the build's bin/
};

inline std::vector<ServerKind> server_kinds() {
    return {{"blocking", "blocking-server"}, {"async", "async-server"}};
}

// For INSTANTIATE_TEST_SUITE_P: names the test instance after the model.
inline std::string server_kind_name(const ServerKind& kind) { return kind.model; }

}  // namespace mb::test
