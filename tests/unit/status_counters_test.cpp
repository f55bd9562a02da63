// StatusCounters: what /status reports of the requests and connections.
#include "common/status_counters.hpp"

#include <gtest/gtest.h>

namespace mb {
namespace {

TEST(StatusCounters, CountRequestsByStatusClassAndInFlight) {
    StatusCounters counters;
    for (int i = 0; i < 3; ++i) {
        counters.request_started();
    }
    counters.request_finished(200);
    counters.request_finished(404);
    auto status = counters.to_json();
    EXPECT_EQ(status["requests"]["in_flight"], 1);
    EXPECT_EQ(status["requests"]["total"], 2);
    EXPECT_EQ(status["requests"]["2xx"], 1);
    EXPECT_EQ(status["requests"]["4xx"], 1);
    EXPECT_EQ(status["requests"]["5xx"], 0);

    counters.request_finished(503);
    counters.connections_accepted += 5;
    counters.db_timeouts += 2;
    status = counters.to_json();
    EXPECT_EQ(status["requests"]["in_flight"], 0);
    EXPECT_EQ(status["requests"]["5xx"], 1);
    EXPECT_EQ(status["connections"]["accepted"], 5);
    EXPECT_EQ(status["database"]["timeouts"], 2);
    EXPECT_GE(status["uptime_s"].get<double>(), 0.0);
    EXPECT_TRUE(status["log"].contains("dropped_lines"));
}

TEST(StatusCounters, AStatusOutsideTheClassesCountsInTheTotalOnly) {
    StatusCounters counters;
    counters.request_started();
    counters.request_finished(999);
    const auto status = counters.to_json();
    EXPECT_EQ(status["requests"]["total"], 1);
    for (const char* cls : {"1xx", "2xx", "3xx", "4xx", "5xx"}) {
        EXPECT_EQ(status["requests"][cls], 0) << cls;
    }
}

}  // namespace
}  // namespace mb
