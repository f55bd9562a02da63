// The thread-per-connection part of the model: a new thread for every accepted connection, at
// most max_workers alive at once, each with a fixed stack size (std::thread cannot set one).
//
// The acceptor calls wait_for_slot() before each accept(), so at the cap it stops accepting and
// further clients wait in the kernel's listen queue, as with Apache's MaxRequestWorkers. A worker
// holds its slot until the acceptor has joined it and, from half the cap on, until the kernel has
// removed it too, so the cap bounds the threads that exist (what /proc/PID/task lists), not merely
// those still serving.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace mb::blocking {

class WorkerThreads {
  public:
    // Throws std::system_error when the stack size is not accepted.
    WorkerThreads(unsigned max_workers, std::size_t stack_bytes);
    ~WorkerThreads();
    WorkerThreads(const WorkerThreads&) = delete;
    WorkerThreads& operator=(const WorkerThreads&) = delete;

    // Blocks while max_workers threads are alive. False once release_waiters() was called.
    bool wait_for_slot();
    void release_waiters();

    // True when max_workers threads hold a slot: a new client would wait in the listen queue.
    bool at_cap() const;

    // Runs work on a new thread. False (with the reason logged) when the system refuses one.
    bool start(std::function<void()> work);

    // Joins workers as they end, until none is left or deadline passes; returns how many remain.
    std::size_t join_all(std::chrono::steady_clock::time_point deadline);

    struct Stats {
        std::size_t serving = 0;  // threads still running their connection
        std::size_t threads = 0;  // threads holding a slot: serving, or ended but not yet joined
        std::size_t peak = 0;     // most threads holding a slot at once
        std::uint64_t waits_at_cap = 0;  // times the acceptor found all slots taken
    };
    Stats stats() const;

  private:
    struct Job;
    struct Ended {
        pthread_t thread;
        pid_t tid;  // the kernel's id of the thread, for /proc/self/task/TID
    };
    static void* thread_main(void* job);
    void finished(Ended ended);
    // Joins the threads that said they finished: with wait, all of them, waiting for each to be
    // gone; without, only those already gone (below half the cap: those already joinable), so
    // it never waits. Called with lock held; unlocks while waiting.
    void join_finished(std::unique_lock<std::mutex>& lock, bool wait);
    // True while /proc/self/task lists the thread.
    static bool listed(pid_t tid);

    const unsigned max_workers_;
    pthread_attr_t attributes_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t live_ = 0;     // threads holding a slot
    std::size_t serving_ = 0;  // of those, still running their work
    std::size_t peak_ = 0;
    std::uint64_t waits_at_cap_ = 0;
    bool released_ = false;
    std::vector<Ended> finished_;
};

}  // namespace mb::blocking
