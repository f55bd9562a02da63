// The shutdown latch every blocked thread can wait on: once raised, its descriptor stays readable,
// so each poll() that includes it returns at once, however many threads are waiting.
#pragma once

#include <atomic>

namespace mb::blocking {

class StopSignal {
  public:
    StopSignal();  // throws std::system_error
    ~StopSignal();
    StopSignal(const StopSignal&) = delete;
    StopSignal& operator=(const StopSignal&) = delete;

    void raise();
    bool raised() const { return raised_.load(std::memory_order_acquire); }
    // Readable once raised; add it to a poll() set with POLLIN.
    int fd() const { return fd_; }

  private:
    int fd_ = -1;
    std::atomic<bool> raised_{false};
};

}  // namespace mb::blocking
