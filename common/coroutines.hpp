// The coroutine vocabulary of the async server and the non-blocking database connection: Asio
// names used everywhere, and when_both(), which runs two awaitables at once on the calling
// coroutine's executor (Boost 1.74 predates asio::experimental::awaitable_operators).
#pragma once

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <memory>
#include <optional>
#include <utility>

namespace mb {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using error_code = boost::system::error_code;

// An awaitable completion that stores the error in ec instead of throwing.
inline auto into(error_code& ec) { return asio::redirect_error(use_awaitable, ec); }

namespace detail {

// Both results (or the first exception), delivered once both coroutines have finished.
template <typename A, typename B, typename Handler>
struct Join {
    explicit Join(Handler h) : handler(std::move(h)) {}

    void complete(std::exception_ptr e) {
        if (e && !error) {
            error = e;
        }
        if (--pending == 0) {
            if (error) {
                std::move(handler)(error, std::pair<A, B>{});
            } else {
                std::move(handler)(nullptr, std::pair<A, B>{std::move(*a), std::move(*b)});
            }
        }
    }

    Handler handler;
    std::optional<A> a;
    std::optional<B> b;
    std::exception_ptr error;
    int pending = 2;
};

}  // namespace detail

// Starts a and b concurrently and resumes when both have finished: with both results, or by
// rethrowing the first exception. Waiting for both even after a failure means neither can
// outlive what the caller lent it.
template <typename A, typename B>
awaitable<std::pair<A, B>> when_both(awaitable<A> a, awaitable<B> b) {
    auto executor = co_await asio::this_coro::executor;
    auto initiate = [executor](auto handler, awaitable<A> first, awaitable<B> second) {
        using State = detail::Join<A, B, decltype(handler)>;
        auto join = std::make_shared<State>(std::move(handler));
        asio::co_spawn(executor, std::move(first), [join](std::exception_ptr e, A value) {
            if (!e) {
                join->a.emplace(std::move(value));
            }
            join->complete(e);
        });
        asio::co_spawn(executor, std::move(second), [join](std::exception_ptr e, B value) {
            if (!e) {
                join->b.emplace(std::move(value));
            }
            join->complete(e);
        });
    };
    co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&,
                                            void(std::exception_ptr, std::pair<A, B>)>(
        std::move(initiate), use_awaitable, std::move(a), std::move(b));
}

}  // namespace mb
