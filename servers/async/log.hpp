// Operational messages on stderr, one write per line, tagged with the process id so that the
// lines of cluster workers can be told apart.
#pragma once

#include <string_view>

namespace mb::async {

void log_event(std::string_view message);

}  // namespace mb::async
