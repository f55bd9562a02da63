#include "servers/blocking/thread_lifecycle.hpp"

namespace mb::blocking {

std::string_view name_of(Lifecycle lifecycle) {
    return lifecycle == Lifecycle::prefork ? "prefork" : "per-connection";
}

std::optional<Lifecycle> parse_lifecycle(std::string_view text) {
    for (const Lifecycle lifecycle : {Lifecycle::per_connection, Lifecycle::prefork}) {
        if (text == name_of(lifecycle)) {
            return lifecycle;
        }
    }
    return std::nullopt;
}

}  // namespace mb::blocking
