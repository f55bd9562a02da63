// The prefork lifecycle: Apache prefork's worker lifecycle, with threads for its processes.
// StartServers threads are started before the first client; each serves one connection after
// another, waiting for the next one in between. Once per maintenance round (Apache's parent: once
// a second) the idle threads are counted, as prefork's perform_idle_server_maintenance() does:
// - more than MaxSpareServers idle: one of them is retired (prefork kills one per round);
// - fewer than MinSpareServers idle: the spawn rate's worth of new threads is started (1, then 2,
//   4 ... up to 32 per round while the rounds keep finding too few; not only the shortfall), as
//   long as max_workers (MaxRequestWorkers) allows;
// - otherwise the spawn rate falls back to 1.
// A thread counts as idle from its start on, as prefork counts a starting child. New threads
// appear only in these rounds: a connection never starts one, so when every thread is busy the
// acceptor does not accept and clients wait in the listen queue, below the cap too, until a
// thread is free or the next round has started more.
#pragma once

#include "servers/blocking/native_threads.hpp"
#include "servers/blocking/thread_lifecycle.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace mb::blocking {

// Debian's apache2 mpm_prefork.conf, which are also Apache's compiled-in defaults.
struct PreforkRules {
    unsigned start_servers = 5;  // StartServers: threads started before the first client
    unsigned min_spare = 5;      // MinSpareServers: fewer idle threads, and more are started
    unsigned max_spare = 10;     // MaxSpareServers: more idle threads, and one is retired
};

class PreforkThreads final : public ThreadLifecycle {
  public:
    // prefork's MAX_SPAWN_RATE: the most threads one round starts.
    static constexpr unsigned kMaxSpawnRate = 32;

    // Starts the rules' start_servers threads (at most max_workers); throws std::system_error
    // when the stack size is not accepted or none of them could start. maintenance_interval:
    // the time between rounds, each run by a maintenance thread; zero starts none, and the
    // owner runs the rounds with maintain() (the unit tests do, to see each round).
    PreforkThreads(const PreforkRules& rules, unsigned max_workers, std::size_t stack_bytes,
                   std::chrono::milliseconds maintenance_interval);
    ~PreforkThreads() override;
    PreforkThreads(const PreforkThreads&) = delete;
    PreforkThreads& operator=(const PreforkThreads&) = delete;

    // Blocks while no thread is idle.
    bool wait_for_slot() override;
    // Hands work to an idle thread; false only when none is left (after stop()).
    bool start(std::function<void()> work) override;
    // True when no thread is idle.
    bool all_busy() const override;
    void stop() override;
    std::size_t join_all(std::chrono::steady_clock::time_point deadline) override;
    Stats stats() const override;

    // One maintenance round (see above); joins the threads retired before it.
    void maintain();
    // The threads the next round would start if it found too few idle ones.
    unsigned spawn_rate() const;

  private:
    static void* thread_main(void* owner);
    // A thread's life: take the next connection, serve it, be idle again; until retired or
    // stopped.
    void serve_connections();
    void maintain(std::unique_lock<std::mutex>& lock);
    void maintenance_loop();
    // Starts up to count threads, as idle ones; stops at the first the system refuses. Called
    // with the lock held.
    void spawn(std::size_t count);
    // Stops, then waits for every thread to end, however long their connections take.
    void stop_and_join();
    // Joins the threads that have ended, waiting until each is gone. Called with lock held;
    // unlocks while waiting.
    void join_finished(std::unique_lock<std::mutex>& lock);

    const PreforkRules rules_;
    const unsigned max_workers_;
    const std::chrono::milliseconds maintenance_interval_;
    ThreadStarter starter_;
    mutable std::mutex mutex_;
    std::condition_variable work_ready_;  // idle threads wait here for a connection
    std::condition_variable changed_;     // a thread became idle or ended; or stop
    std::condition_variable stopping_;    // wakes the maintenance thread for the stop
    // Connections handed to idle threads, not yet taken. Each was counted off idle_ when handed,
    // so the threads waiting are always idle_ + retiring_ + connections_.size().
    std::deque<std::function<void()>> connections_;
    std::size_t threads_ = 0;   // threads holding a slot: idle, serving, or ended not joined
    std::size_t idle_ = 0;      // threads free to take a connection
    std::size_t serving_ = 0;   // threads running a connection
    std::size_t retiring_ = 0;  // idle threads told to end, not yet ended
    std::size_t peak_ = 0;
    std::uint64_t started_ = 0;
    std::uint64_t start_failures_ = 0;
    std::uint64_t waits_at_cap_ = 0;
    unsigned spawn_rate_ = 1;
    bool cap_reported_ = false;
    bool stopped_ = false;
    std::vector<EndedThread> finished_;
    std::thread maintainer_;
};

}  // namespace mb::blocking
