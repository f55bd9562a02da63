#include "servers/blocking/native_threads.hpp"

#include "common/event_log.hpp"

#include <link.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <system_error>

namespace mb::blocking {
namespace {

// glibc's default stack cache (stack_cache_maxsize): what StackPool keeps unused at most.
constexpr std::size_t kKeptStackBytes = 40 * 1024 * 1024;
// Beyond the static TLS blocks: glibc's surplus for later dlopen()s, and the thread descriptor.
constexpr std::size_t kTlsMarginBytes = 16 * 1024;

std::size_t page_rounded(std::size_t bytes) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
}

// The static TLS of the objects loaded at start, which glibc places at the top of every thread's
// stack: a few KiB, but about 800 KiB under ThreadSanitizer, which keeps its thread state there.
std::size_t static_tls_bytes() {
    std::size_t bytes = kTlsMarginBytes;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* total) {
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                if (info->dlpi_phdr[i].p_type == PT_TLS) {
                    *static_cast<std::size_t*>(total) +=
                        info->dlpi_phdr[i].p_memsz + info->dlpi_phdr[i].p_align;
                }
            }
            return 0;
        },
        &bytes);
    return bytes;
}

}  // namespace

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
                         const char* consequence, void* stack, std::size_t stack_bytes) {
    int rc;
    if (stack == nullptr) {
        rc = pthread_create(&thread, &attributes_, entry, argument);
    } else {
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        rc = pthread_attr_setstack(&attributes, stack, stack_bytes);
        if (rc == 0) {
            rc = pthread_create(&thread, &attributes, entry, argument);
        }
        pthread_attr_destroy(&attributes);
    }
    if (rc != 0) {
        log_event(std::string("cannot start a worker thread: ") + std::strerror(rc) + "; " +
                  consequence);
    }
    return rc;
}

StackPool::StackPool(std::size_t stack_bytes)
    : bytes_(page_rounded(stack_bytes + static_tls_bytes())),
      guard_bytes_(page_rounded(1)),
      keep_(std::max<std::size_t>(1, kKeptStackBytes / bytes_)) {}

StackPool::~StackPool() {
    for (void* stack : free_) {
        unmap(stack);
    }
}

void* StackPool::take() {
    {
        std::lock_guard lock(mutex_);
        if (!free_.empty()) {
            void* stack = free_.back();  // the most recently used: the likeliest still in cache
            free_.pop_back();
            return stack;
        }
    }
    // Mapped inaccessible, then opened above the guard page, as glibc maps its own stacks.
    void* mapping = ::mmap(nullptr, guard_bytes_ + bytes_, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED) {
        return nullptr;
    }
    char* stack = static_cast<char*>(mapping) + guard_bytes_;
    if (::mprotect(stack, bytes_, PROT_READ | PROT_WRITE) != 0) {
        ::munmap(mapping, guard_bytes_ + bytes_);
        return nullptr;
    }
    return stack;
}

void StackPool::give_back(void* stack) {
    {
        std::lock_guard lock(mutex_);
        if (free_.size() < keep_) {
            free_.push_back(stack);
            return;
        }
    }
    unmap(stack);
}

void StackPool::unmap(void* stack) const {
    ::munmap(static_cast<char*>(stack) - guard_bytes_, guard_bytes_ + bytes_);
}

EndedThread EndedThread::current() { return {pthread_self(), ::gettid()}; }

bool EndedThread::listed() const {
    // The kernel takes a thread off /proc/PID/task and frees its id in one step (release_task),
    // so a signal 0 sent to the id tells as much as a lookup of /proc/self/task/TID, without the
    // path walk and the proc inode that the lookup costs.
    static const pid_t process = ::getpid();
    return ::tgkill(process, tid, 0) == 0;
}

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
