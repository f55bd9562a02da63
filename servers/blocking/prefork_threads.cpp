#include "servers/blocking/prefork_threads.hpp"

#include "common/event_log.hpp"

#include <algorithm>
#include <string>
#include <system_error>

namespace mb::blocking {

PreforkThreads::PreforkThreads(const PreforkRules& rules, unsigned max_workers,
                               std::size_t stack_bytes,
                               std::chrono::milliseconds maintenance_interval)
    : rules_(rules),
      max_workers_(max_workers),
      maintenance_interval_(maintenance_interval),
      starter_(stack_bytes) {
    {
        std::lock_guard lock(mutex_);
        spawn(std::min(rules_.start_servers, max_workers_));
        if (started_ == 0 && rules_.start_servers > 0) {
            throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                    "none of the " + std::to_string(rules_.start_servers) +
                                        " pre-started threads could start");
        }
    }
    if (maintenance_interval_.count() > 0) {
        try {
            maintainer_ = std::thread([this] { maintenance_loop(); });
        } catch (...) {
            // No destructor runs for a constructor that throws: end the threads that use this.
            stop_and_join();
            throw;
        }
    }
}

PreforkThreads::~PreforkThreads() { stop_and_join(); }

void PreforkThreads::stop_and_join() {
    stop();
    while (join_all(std::chrono::steady_clock::now() + std::chrono::seconds(1)) != 0) {
    }
}

void* PreforkThreads::thread_main(void* owner) {
    static_cast<PreforkThreads*>(owner)->serve_connections();
    return nullptr;
}

void PreforkThreads::serve_connections() {
    std::unique_lock lock(mutex_);
    for (;;) {
        work_ready_.wait(lock,
                         [this] { return !connections_.empty() || retiring_ > 0 || stopped_; });
        if (connections_.empty()) {
            // Retired (maintain() already counted it off idle_), or stopped while idle.
            if (retiring_ > 0) {
                --retiring_;
            } else {
                --idle_;
            }
            break;
        }
        std::function<void()> work = std::move(connections_.front());
        connections_.pop_front();
        ++serving_;
        lock.unlock();
        run_logging_failure(work);
        work = nullptr;  // what the connection held goes before the thread is idle again
        lock.lock();
        --serving_;
        if (stopped_) {
            break;
        }
        ++idle_;
        changed_.notify_all();
    }
    finished_.push_back(EndedThread::current());
    changed_.notify_all();
}

bool PreforkThreads::wait_for_slot() {
    std::unique_lock lock(mutex_);
    if (idle_ == 0 && !stopped_) {
        ++waits_at_cap_;
    }
    changed_.wait(lock, [this] { return idle_ > 0 || stopped_; });
    return !stopped_;
}

bool PreforkThreads::start(std::function<void()> work) {
    std::lock_guard lock(mutex_);
    // Only the acceptor takes idle threads, and wait_for_slot() found one; only a stop in
    // between can have ended it.
    if (idle_ == 0) {
        log_event("no idle thread left (stopping); answering 503");
        return false;
    }
    --idle_;
    connections_.push_back(std::move(work));
    work_ready_.notify_one();
    return true;
}

bool PreforkThreads::all_busy() const {
    std::lock_guard lock(mutex_);
    return idle_ == 0;
}

void PreforkThreads::stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    work_ready_.notify_all();
    changed_.notify_all();
    stopping_.notify_all();
}

std::size_t PreforkThreads::join_all(std::chrono::steady_clock::time_point deadline) {
    if (maintainer_.joinable()) {
        maintainer_.join();  // it ends at once after stop()
    }
    std::unique_lock lock(mutex_);
    for (;;) {
        join_finished(lock);
        if (threads_ == 0) {
            return 0;
        }
        if (!changed_.wait_until(lock, deadline, [this] { return !finished_.empty(); })) {
            return threads_;
        }
    }
}

ThreadLifecycle::Stats PreforkThreads::stats() const {
    std::lock_guard lock(mutex_);
    return Stats{.serving = serving_,
                 .idle = idle_,
                 .threads = threads_,
                 .peak = peak_,
                 .started = started_,
                 .start_failures = start_failures_,
                 .waits_at_cap = waits_at_cap_};
}

void PreforkThreads::maintain() {
    std::unique_lock lock(mutex_);
    maintain(lock);
}

unsigned PreforkThreads::spawn_rate() const {
    std::lock_guard lock(mutex_);
    return spawn_rate_;
}

void PreforkThreads::maintenance_loop() {
    std::unique_lock lock(mutex_);
    // Apache's parent waits a second between rounds, however long a round took.
    while (!stopping_.wait_for(lock, maintenance_interval_, [this] { return stopped_; })) {
        maintain(lock);
    }
}

void PreforkThreads::maintain(std::unique_lock<std::mutex>& lock) {
    join_finished(lock);
    if (stopped_) {
        return;
    }
    if (idle_ > rules_.max_spare) {
        // Prefork tells one child over its pipe of death to leave; here any idle thread, which
        // takes a connection handed to it first.
        --idle_;
        ++retiring_;
        work_ready_.notify_one();
        spawn_rate_ = 1;
        return;
    }
    if (idle_ >= rules_.min_spare) {
        spawn_rate_ = 1;
        return;
    }
    if (threads_ >= max_workers_) {
        if (!cap_reported_) {
            log_event("reached --max-workers (" + std::to_string(max_workers_) +
                      " threads); clients wait in the listen queue");
            cap_reported_ = true;
        }
        spawn_rate_ = 1;
        return;
    }
    spawn(std::min<std::size_t>(spawn_rate_, max_workers_ - threads_));
    spawn_rate_ = std::min(2 * spawn_rate_, kMaxSpawnRate);
}

void PreforkThreads::spawn(std::size_t count) {
    std::size_t spawned = 0;
    for (; spawned < count; ++spawned) {
        pthread_t thread;
        if (starter_.start(thread, &thread_main, this,
                           "clients wait in the listen queue for a thread") != 0) {
            ++start_failures_;
            break;
        }
    }
    threads_ += spawned;
    idle_ += spawned;
    started_ += spawned;
    peak_ = std::max(peak_, threads_);
    if (spawned > 0) {
        changed_.notify_all();
    }
}

void PreforkThreads::join_finished(std::unique_lock<std::mutex>& lock) {
    std::vector<EndedThread> ending;
    ending.swap(finished_);
    const std::size_t joined = join_unlocked(lock, ending);  // relocked: threads_ may have moved
    threads_ -= joined;
}

}  // namespace mb::blocking
