#include "common/config.hpp"

#include <exception>

namespace mb {

std::uint16_t parse_port(const std::string& text, const std::string& what) {
    std::size_t used = 0;
    unsigned long value = 0;
    try {
        value = std::stoul(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || value > 65535) {
        throw ConfigError(what + ": '" + text + "' is not a port number (0..65535)");
    }
    return static_cast<std::uint16_t>(value);
}

ListenAddress parse_host_port(const std::string& text, const std::string& flag) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) {
        throw ConfigError(flag + ": '" + text + "' is not HOST:PORT (e.g. 127.0.0.1:8081)");
    }
    ListenAddress address;
    address.host = text.substr(0, colon);
    if (address.host.size() > 2 && address.host.front() == '[' && address.host.back() == ']') {
        address.host = address.host.substr(1, address.host.size() - 2);
    }
    address.port = parse_port(text.substr(colon + 1), flag);
    return address;
}

ListenAddress parse_listen_address(const std::string& text) {
    return parse_host_port(text, "--listen");
}

std::string listen_url(const ListenAddress& address) {
    const bool ipv6 = address.host.find(':') != std::string::npos;
    return "http://" + (ipv6 ? "[" + address.host + "]" : address.host) + ":" +
           std::to_string(address.port) + "/";
}

}  // namespace mb
