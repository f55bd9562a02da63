// The access log line: Apache's Common Log Format, with the request line (which comes from the
// network, and may be anything the parser refused) escaped so that it cannot break the line.
#include "common/access_log.hpp"

#include <gtest/gtest.h>

namespace mb {
namespace {

using namespace std::string_literals;

constexpr std::time_t kNewYear2027 = 1798761600;  // 2027-01-01 00:00:00 UTC

TEST(AccessLog, CommonLogFormat) {
    EXPECT_EQ(AccessLog::format("127.0.0.1", "GET /html HTTP/1.0", 200, 32581, kNewYear2027),
              "127.0.0.1 - - [01/Jan/2027:00:00:00 +0000] \"GET /html HTTP/1.0\" 200 32581\n");
    // No peer, no body: "-", as Apache writes them.
    EXPECT_EQ(AccessLog::format("", "HEAD / HTTP/1.1", 200, 0, kNewYear2027),
              "- - - [01/Jan/2027:00:00:00 +0000] \"HEAD / HTTP/1.1\" 200 -\n");
}

TEST(AccessLog, QuotesBackslashesAndControlBytesAreEscaped) {
    const std::string hostile = "GET /\"a\\b\r\n\x01\x7f\0x HTTP/1.1"s;
    const std::string line = AccessLog::format("127.0.0.1", hostile, 400, 10, kNewYear2027);
    EXPECT_NE(line.find("\"GET /\\x22a\\x5cb\\x0d\\x0a\\x01\\x7f\\x00x HTTP/1.1\" 400 10\n"),
              std::string::npos)
        << line;
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
}

}  // namespace
}  // namespace mb
