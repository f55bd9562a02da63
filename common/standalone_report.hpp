// Standalone mode (E1a): times a run like Unix `time` (real, user, sys) and prints it.
#pragma once

#include "common/cpu_cost.hpp"

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string_view>

namespace mb {

struct RunTimes {
    double real_s = 0;
    double user_s = 0;
    double sys_s = 0;
};

// Starts measuring at construction; elapsed() reads wall clock and this process's CPU times.
class RunTimer {
  public:
    RunTimer();
    RunTimes elapsed() const;

  private:
    std::chrono::steady_clock::time_point wall_start_;
    double user_start_ = 0;
    double sys_start_ = 0;
};

// "standalone: 300/1000" on stderr at every tenth of the run and at its end.
void report_standalone_progress(unsigned done, unsigned total);

// Prints the report: what ran, then real/user/sys as `time` does, then iterations per second.
// With a cost model set, a line of its settings and the CPU spent on them follows.
void print_standalone_report(std::ostream& out, std::string_view model, unsigned iterations,
                             std::size_t page_bytes, const RunTimes& times, const CpuCost& cost);

}  // namespace mb
