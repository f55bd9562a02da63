// How the blocking server's connections get their threads: the one shape the acceptor uses,
// whatever the lifecycle behind it. Before each accept() the acceptor waits for a thread that can
// take a connection; while none can, it does not accept, and clients wait in the kernel's listen
// queue, as they wait for Apache's workers. Two lifecycles:
// - per-connection (ConnectionThreads, the default): a new thread for every connection, which
//   ends with it; at most --max-workers at once.
// - prefork (PreforkThreads): Apache prefork's pre-started threads, reused from one connection to
//   the next, their number kept between the spare bounds, at most --max-workers.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace mb::blocking {

enum class Lifecycle { per_connection, prefork };

std::string_view name_of(Lifecycle lifecycle);
std::optional<Lifecycle> parse_lifecycle(std::string_view text);

class ThreadLifecycle {
  public:
    virtual ~ThreadLifecycle() = default;

    // Blocks until a thread can take a connection; false once stop() was called.
    virtual bool wait_for_slot() = 0;
    // Runs work (one client connection) on a thread of its own. False (with the reason logged)
    // when none can take it: the caller answers 503.
    virtual bool start(std::function<void()> work) = 0;

    // True when no thread can take a new connection now: a new client waits in the listen queue.
    virtual bool all_busy() const = 0;

    // Stops taking connections: wait_for_slot() returns false from now on, threads end once their
    // connection has ended (those waiting for one, at once).
    virtual void stop() = 0;
    // After stop(): joins threads as they end, until none is left or deadline passes; returns how
    // many remain.
    virtual std::size_t join_all(std::chrono::steady_clock::time_point deadline) = 0;

    struct Stats {
        std::size_t serving = 0;    // threads running a connection
        std::size_t idle = 0;       // threads waiting for a connection (prefork)
        std::size_t threads = 0;    // threads holding a slot: serving, idle, or ended not joined
        std::size_t peak = 0;       // most threads holding a slot at once
        std::uint64_t started = 0;  // threads started since the start
        std::uint64_t start_failures = 0;  // thread starts the system refused
        std::uint64_t waits_at_cap = 0;    // times the acceptor found no thread free
    };
    virtual Stats stats() const = 0;
};

}  // namespace mb::blocking
