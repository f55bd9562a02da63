#include "servers/blocking/worker_threads.hpp"

#include "common/event_log.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

namespace mb::blocking {

struct WorkerThreads::Job {
    WorkerThreads* owner;
    std::function<void()> work;
};

WorkerThreads::WorkerThreads(unsigned max_workers, std::size_t stack_bytes)
    : max_workers_(max_workers) {
    pthread_attr_init(&attributes_);
    if (const int rc = pthread_attr_setstacksize(&attributes_, stack_bytes); rc != 0) {
        pthread_attr_destroy(&attributes_);
        throw std::system_error(rc, std::generic_category(),
                                "worker stack size of " + std::to_string(stack_bytes) + " bytes");
    }
}

WorkerThreads::~WorkerThreads() {
    std::unique_lock lock(mutex_);
    join_finished(lock, true);
    pthread_attr_destroy(&attributes_);
}

bool WorkerThreads::wait_for_slot() {
    std::unique_lock lock(mutex_);
    bool counted = false;
    for (;;) {
        // Below the cap a new client need not wait for ended threads to be gone: only those
        // already gone are joined. At the cap, every ended thread is waited for.
        join_finished(lock, live_ >= max_workers_);
        if (released_) {
            return false;
        }
        if (live_ < max_workers_) {
            return true;
        }
        if (!counted) {
            ++waits_at_cap_;
            counted = true;
        }
        changed_.wait(lock, [this] { return !finished_.empty() || released_; });
    }
}

void WorkerThreads::release_waiters() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
}

bool WorkerThreads::at_cap() const {
    std::lock_guard lock(mutex_);
    return live_ >= max_workers_;
}

bool WorkerThreads::start(std::function<void()> work) {
    auto job = std::make_unique<Job>(Job{this, std::move(work)});
    {
        std::lock_guard lock(mutex_);
        ++live_;
        ++serving_;
        peak_ = std::max(peak_, live_);
    }
    pthread_t thread;
    if (const int rc = pthread_create(&thread, &attributes_, &thread_main, job.get()); rc != 0) {
        log_event(std::string("cannot start a worker thread: ") + std::strerror(rc) +
                  "; answering 503");
        std::lock_guard lock(mutex_);
        --live_;
        --serving_;
        return false;
    }
    job.release();  // the thread owns it now
    return true;
}

void* WorkerThreads::thread_main(void* raw_job) {
    const std::unique_ptr<Job> job(static_cast<Job*>(raw_job));
    try {
        job->work();
    } catch (const std::exception& e) {
        log_event(std::string("worker failed: ") + e.what());
    }
    job->owner->finished(Ended{pthread_self(), ::gettid()});
    return nullptr;
}

void WorkerThreads::finished(Ended ended) {
    std::lock_guard lock(mutex_);
    --serving_;
    finished_.push_back(ended);
    changed_.notify_all();
}

bool WorkerThreads::listed(pid_t tid) {
    constexpr std::string_view prefix = "/proc/self/task/";
    char task[48];
    std::memcpy(task, prefix.data(), prefix.size());
    *std::to_chars(task + prefix.size(), task + sizeof task - 1, tid).ptr = '\0';
    return ::access(task, F_OK) == 0;
}

void WorkerThreads::join_finished(std::unique_lock<std::mutex>& lock, bool wait) {
    if (!wait && 2 * live_ <= max_workers_) {
        // Far below the cap, a joined thread that /proc still lists for a moment cannot make it
        // list more than the cap: join those that have cleared their tid, without asking /proc
        // (a path lookup there cost more than the rest of the acceptor's work per connection).
        const auto joined = std::remove_if(
            finished_.begin(), finished_.end(),
            [](const Ended& ended) { return pthread_tryjoin_np(ended.thread, nullptr) == 0; });
        live_ -= static_cast<std::size_t>(finished_.end() - joined);
        finished_.erase(joined, finished_.end());
        return;
    }
    std::vector<Ended> ending;
    if (wait) {
        ending.swap(finished_);
    } else {
        // A thread the kernel no longer lists has cleared its tid too: joining it is immediate.
        const auto gone = std::partition(finished_.begin(), finished_.end(),
                                         [](const Ended& ended) { return listed(ended.tid); });
        ending.assign(gone, finished_.end());
        finished_.erase(gone, finished_.end());
    }
    if (ending.empty()) {
        return;
    }
    lock.unlock();
    for (const Ended& ended : ending) {
        pthread_join(ended.thread, nullptr);
        // pthread_join returns once the kernel cleared the thread's tid, a moment before it
        // unlists the thread; under load a new thread started in that moment would briefly make
        // one more than the cap in /proc/PID/task. The wait is almost always zero rounds.
        while (listed(ended.tid)) {
            sched_yield();
        }
    }
    lock.lock();
    live_ -= ending.size();
}

std::size_t WorkerThreads::join_all(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    for (;;) {
        join_finished(lock, true);
        if (live_ == 0) {
            return 0;
        }
        if (!changed_.wait_until(lock, deadline, [this] { return !finished_.empty(); })) {
            return live_;
        }
    }
}

WorkerThreads::Stats WorkerThreads::stats() const {
    std::lock_guard lock(mutex_);
    return Stats{serving_, live_, peak_, waits_at_cap_};
}

}  // namespace mb::blocking
