#include "servers/blocking/native_threads.hpp"

#include "common/event_log.hpp"

#include <sched.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <system_error>

namespace mb::blocking {

ThreadStarter::ThreadStarter(std::size_t stack_bytes) {
    pthread_attr_init(&attributes_);
    if (const int rc = pthread_attr_setstacksize(&attributes_, stack_bytes); rc != 0) {
        pthread_attr_destroy(&attributes_);
        throw std::system_error(rc, std::generic_category(),
                                "worker stack size of " + std::to_string(stack_bytes) + " bytes");
    }
}

ThreadStarter::~ThreadStarter() { pthread_attr_destroy(&attributes_); }

int ThreadStarter::start(pthread_t& thread, void* (*entry)(void*), void* argument,
                         const char* consequence) {
    const int rc = pthread_create(&thread, &attributes_, entry, argument);
    if (rc != 0) {
        log_event(std::string("cannot start a worker thread: ") + std::strerror(rc) + "; " +
                  consequence);
    }
    return rc;
}

EndedThread EndedThread::current() { return {pthread_self(), ::gettid()}; }

bool EndedThread::listed() const {
    constexpr std::string_view prefix = "/proc/self/task/";
    char task[48];
    std::memcpy(task, prefix.data(), prefix.size());
    *std::to_chars(task + prefix.size(), task + sizeof task - 1, tid).ptr = '\0';
    return ::access(task, F_OK) == 0;
}

bool EndedThread::try_join() const { return pthread_tryjoin_np(thread, nullptr) == 0; }

void EndedThread::join() const {
    pthread_join(thread, nullptr);
    // pthread_join returns once the kernel cleared the thread's tid, a moment before it unlists
    // the thread; under load a new thread started in that moment would briefly make one more
    // than the cap in /proc/PID/task. The wait is almost always zero rounds.
    while (listed()) {
        sched_yield();
    }
}

std::size_t join_unlocked(std::unique_lock<std::mutex>& lock,
                          const std::vector<EndedThread>& ending) {
    if (ending.empty()) {
        return 0;
    }
    lock.unlock();
    for (const EndedThread& ended : ending) {
        ended.join();
    }
    lock.lock();
    return ending.size();
}

void run_logging_failure(const std::function<void()>& work) {
    try {
        work();
    } catch (const std::exception& e) {
        log_event(std::string("worker failed: ") + e.what());
    }
}

}  // namespace mb::blocking
