// The per-connection lifecycle, the model's default: a new thread for every accepted connection,
// which ends with it, at most max_workers alive at once. The threads' stacks outlive them
// (StackPool): a new thread runs on the stack of one that ended and was joined.
//
// The acceptor calls wait_for_slot() before each accept(), so at the cap it stops accepting and
// further clients wait in the kernel's listen queue, as with Apache's MaxRequestWorkers. A thread
// holds its slot until the acceptor has joined it and the kernel has removed it, so the cap bounds
// the threads that exist (what /proc/PID/task lists), not merely those still serving.
#pragma once

#include "servers/blocking/native_threads.hpp"
#include "servers/blocking/thread_lifecycle.hpp"

#include <condition_variable>
#include <mutex>
#include <vector>

namespace mb::blocking {

class ConnectionThreads final : public ThreadLifecycle {
  public:
    // Throws std::system_error when the stack size is not accepted.
    ConnectionThreads(unsigned max_workers, std::size_t stack_bytes);
    ~ConnectionThreads() override;
    ConnectionThreads(const ConnectionThreads&) = delete;
    ConnectionThreads& operator=(const ConnectionThreads&) = delete;

    // Blocks while max_workers threads hold a slot.
    bool wait_for_slot() override;
    // Runs work on a new thread; false when the system refuses one.
    bool start(std::function<void()> work) override;
    // True when max_workers threads hold a slot.
    bool all_busy() const override;
    void stop() override;
    std::size_t join_all(std::chrono::steady_clock::time_point deadline) override;
    Stats stats() const override;

  private:
    struct Job;
    static void* thread_main(void* job);
    void finished(EndedThread ended);
    // Joins the threads that said they finished: with wait, all of them, waiting for each to be
    // gone; without, only those already gone, so it never waits. Called with lock held; unlocks
    // while waiting.
    void join_finished(std::unique_lock<std::mutex>& lock, bool wait);
    void give_back_stack(const EndedThread& joined);

    const unsigned max_workers_;
    ThreadStarter starter_;
    StackPool stacks_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t live_ = 0;     // threads holding a slot
    std::size_t serving_ = 0;  // of those, still running their work
    std::size_t peak_ = 0;
    std::uint64_t started_ = 0;
    std::uint64_t start_failures_ = 0;
    std::uint64_t waits_at_cap_ = 0;
    bool stopped_ = false;
    std::vector<EndedThread> finished_;
};

}  // namespace mb::blocking
