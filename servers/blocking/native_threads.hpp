// What both thread lifecycles need below std::thread: threads with a set stack size (std::thread
// cannot set one), and a join that lasts until the kernel no longer lists the thread, so that a
// cap on threads bounds what /proc/PID/task shows, not merely the threads still running.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

namespace mb::blocking {

class ThreadStarter {
  public:
    // Throws std::system_error when the stack size is not accepted.
    explicit ThreadStarter(std::size_t stack_bytes);
    ~ThreadStarter();
    ThreadStarter(const ThreadStarter&) = delete;
    ThreadStarter& operator=(const ThreadStarter&) = delete;

    // Starts entry(argument) on a new thread with the stack size; 0, or pthread_create's error
    // number (logged, with what follows from it: consequence).
    int start(pthread_t& thread, void* (*entry)(void*), void* argument, const char* consequence);

  private:
    pthread_attr_t attributes_;
};

// A thread that has run its last work and is about to return; it may not be joined yet.
struct EndedThread {
    pthread_t thread;
    pid_t tid;  // the kernel's id of the thread, for /proc/self/task/TID

    static EndedThread current();
    // True while /proc/self/task lists the thread.
    bool listed() const;
    // Joins it if it has already cleared its tid, without waiting.
    bool try_join() const;
    // Joins it, then waits until the kernel no longer lists it.
    void join() const;
};

// Joins each of ending (EndedThread::join) with lock released; returns how many.
std::size_t join_unlocked(std::unique_lock<std::mutex>& lock,
                          const std::vector<EndedThread>& ending);

// Runs one connection's work on a lifecycle's thread: an exception is logged, never the end of
// the process.
void run_logging_failure(const std::function<void()>& work);

}  // namespace mb::blocking
