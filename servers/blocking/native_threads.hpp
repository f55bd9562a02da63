// What both thread lifecycles need below std::thread: threads with a set stack size (std::thread
// cannot set one), stacks that outlive their threads, and a join that lasts until the kernel no
// longer lists the thread, so that a cap on threads bounds what /proc/PID/task shows, not merely
// the threads still running.
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

    // Starts entry(argument) on a new thread: on a stack of glibc's with the stack size or, when
    // given, on stack, stack_bytes long (StackPool::take()); 0, or pthread_create's error number
    // (logged, with what follows from it: consequence).
    int start(pthread_t& thread, void* (*entry)(void*), void* argument, const char* consequence,
              void* stack = nullptr, std::size_t stack_bytes = 0);

  private:
    pthread_attr_t attributes_;
};

// Thread stacks kept from one thread to the next, for a thread per connection. glibc keeps the
// stacks of ended threads too, but at each thread's exit it gives the kernel back the stack's
// pages below the last 16 KiB (madvise(MADV_DONTNEED)), and in a process whose other threads run
// on other CPUs that flushes their TLBs (an IPI to each; in a paravirtualised guest, a hypercall).
// glibc leaves the stacks it is given alone: a stack from here is taken by a new thread and given
// back once that thread is joined, with its pages as they were. Each is the stack size plus room
// for the static TLS that glibc puts at its top (within the size for a stack of its own), with a
// guard page below it. At most the bytes of glibc's own stack cache (40 MiB) are kept unused;
// more are unmapped when given back. Thread-safe.
class StackPool {
  public:
    explicit StackPool(std::size_t stack_bytes);
    // Unmaps the stacks given back; a stack still taken must belong to no thread any more.
    ~StackPool();
    StackPool(const StackPool&) = delete;
    StackPool& operator=(const StackPool&) = delete;

    // Each stack's usable bytes (the stack size and the TLS room).
    std::size_t bytes() const { return bytes_; }
    // A stack given back earlier, or a new mapping; nullptr when the system has no room for one.
    void* take();
    // After the thread that ran on it was joined.
    void give_back(void* stack);

  private:
    void unmap(void* stack) const;

    const std::size_t bytes_;  // without the guard page
    const std::size_t guard_bytes_;
    const std::size_t keep_;  // how many unused stacks are kept
    std::mutex mutex_;
    std::vector<void*> free_;
};

// A thread that has run its last work and is about to return; it may not be joined yet.
struct EndedThread {
    pthread_t thread;
    pid_t tid;              // the kernel's id of the thread, for /proc/self/task/TID
    void* stack = nullptr;  // its StackPool stack, if it has one: free once it is joined

    static EndedThread current();
    // True while /proc/self/task lists the thread.
    bool listed() const;
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
