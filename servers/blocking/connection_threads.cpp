#include "servers/blocking/connection_threads.hpp"

#include <algorithm>
#include <memory>

namespace mb::blocking {

struct ConnectionThreads::Job {
    ConnectionThreads* owner;
    std::function<void()> work;
    void* stack;  // from stacks_; null: one of glibc's
};

ConnectionThreads::ConnectionThreads(unsigned max_workers, std::size_t stack_bytes)
    : max_workers_(max_workers), starter_(stack_bytes), stacks_(stack_bytes) {}

ConnectionThreads::~ConnectionThreads() {
    std::unique_lock lock(mutex_);
    join_finished(lock, true);
}

bool ConnectionThreads::wait_for_slot() {
    std::unique_lock lock(mutex_);
    bool counted = false;
    for (;;) {
        // Below the cap a new client need not wait for ended threads to be gone: only those
        // already gone are joined. At the cap, every ended thread is waited for.
        join_finished(lock, live_ >= max_workers_);
        if (stopped_) {
            return false;
        }
        if (live_ < max_workers_) {
            return true;
        }
        if (!counted) {
            ++waits_at_cap_;
            counted = true;
        }
        changed_.wait(lock, [this] { return !finished_.empty() || stopped_; });
    }
}

void ConnectionThreads::stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
}

bool ConnectionThreads::all_busy() const {
    std::lock_guard lock(mutex_);
    return live_ >= max_workers_;
}

bool ConnectionThreads::start(std::function<void()> work) {
    auto job = std::make_unique<Job>(Job{this, std::move(work), stacks_.take()});
    {
        std::lock_guard lock(mutex_);
        ++live_;
        ++serving_;
        peak_ = std::max(peak_, live_);
    }
    pthread_t thread;
    const int rc = starter_.start(thread, &thread_main, job.get(), "answering 503", job->stack,
                                  stacks_.bytes());
    std::lock_guard lock(mutex_);
    if (rc != 0) {
        if (job->stack != nullptr) {
            stacks_.give_back(job->stack);
        }
        --live_;
        --serving_;
        ++start_failures_;
        return false;
    }
    ++started_;
    job.release();  // the thread owns it now
    return true;
}

void* ConnectionThreads::thread_main(void* raw_job) {
    const std::unique_ptr<Job> job(static_cast<Job*>(raw_job));
    run_logging_failure(job->work);
    EndedThread ended = EndedThread::current();
    ended.stack = job->stack;
    job->owner->finished(ended);
    return nullptr;
}

void ConnectionThreads::finished(EndedThread ended) {
    std::lock_guard lock(mutex_);
    --serving_;
    finished_.push_back(ended);
    changed_.notify_all();
}

void ConnectionThreads::join_finished(std::unique_lock<std::mutex>& lock, bool wait) {
    std::vector<EndedThread> ending;
    if (wait) {
        ending.swap(finished_);
    } else {
        // A thread the kernel no longer lists has cleared its tid too: joining it is immediate.
        // The kernel is asked (a tgkill each) far below the cap as well: one joined as soon as
        // it cleared its tid can stay listed on a busy machine while the acceptor starts the
        // cap's worth of others (seen: 21 threads beside a cap of 20 during a parallel build).
        const auto gone = std::partition(finished_.begin(), finished_.end(),
                                         [](const EndedThread& ended) { return ended.listed(); });
        ending.assign(gone, finished_.end());
        finished_.erase(gone, finished_.end());
    }
    const std::size_t joined = join_unlocked(lock, ending);  // relocked: live_ may have moved
    for (const EndedThread& ended : ending) {
        give_back_stack(ended);
    }
    live_ -= joined;
}

void ConnectionThreads::give_back_stack(const EndedThread& joined) {
    if (joined.stack != nullptr) {
        stacks_.give_back(joined.stack);
    }
}

std::size_t ConnectionThreads::join_all(std::chrono::steady_clock::time_point deadline) {
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

ThreadLifecycle::Stats ConnectionThreads::stats() const {
    std::lock_guard lock(mutex_);
    return Stats{.serving = serving_,
                 .idle = 0,
                 .threads = live_,
                 .peak = peak_,
                 .started = started_,
                 .start_failures = start_failures_,
                 .waits_at_cap = waits_at_cap_};
}

}  // namespace mb::blocking
