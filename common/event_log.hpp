// The servers' lines on stderr (events, the /tasks demo's task lines), written so that they never
// block: a server must not stall because whoever holds the other end of its stderr stopped
// reading (a full pipe blocks write(2)). A line that cannot be written at once is dropped and
// counted (/status: log.dropped_lines). Lines are at most PIPE_BUF bytes, so a pipe takes each
// whole or not at all, and lines of threads and processes sharing it never interleave.
#pragma once

#include <cstdint>
#include <string_view>

namespace mb {

// "<program>[<pid>]: " starts every event line from now on. Call before serving.
void set_event_log_program(std::string_view program);

// One operational message: "<program>[<pid>]: <message>\n".
void log_event(std::string_view message);
// One line as it is (a newline is added when missing).
void log_line(std::string_view line);

// Lines dropped because stderr could not take them at once, since the process started.
std::uint64_t dropped_log_lines();

}  // namespace mb
