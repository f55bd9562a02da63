// libFuzzer target: raw request bytes through the parser and router both servers use, request
// after request as on a pipelined connection. Any crash or sanitizer report is a bug.
#include "common/http/request_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    while (!bytes.empty()) {
        const mb::ParsedRequest parsed = mb::parse_and_route(bytes);
        if (!std::holds_alternative<mb::Route>(parsed.outcome) || parsed.consumed == 0) {
            break;  // an error closes the connection; incomplete input waits for more
        }
        bytes.remove_prefix(parsed.consumed);
    }
    return 0;
}
