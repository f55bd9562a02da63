#include "tests/tools/openloop/options.hpp"

#include "common/command_line.hpp"
#include "common/config.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace mb::openloop {
namespace {

constexpr double kMaxRate = 1'000'000;
constexpr double kMaxSeconds = 3600;

std::string usage(const po::options_description& flags) {
    std::ostringstream out;
    out << "Usage: openloop [options] --url http://HOST[:PORT]/PATH\n"
           "Sends GET requests at --rate per second for --duration seconds, each at its intended\n"
           "time whatever became of the ones before (an open loop), and reports each request's\n"
           "latency from its intended send time (corrected for coordinated omission) and from its\n"
           "actual send time (uncorrected) as JSON.\n\n"
        << flags;
    return out.str();
}

}  // namespace

Target parse_url(const std::string& url) {
    const std::string scheme = "http://";
    if (url.rfind(scheme, 0) != 0)
        throw ConfigError("--url must start with http://: '" + url + "'");
    const std::string rest = url.substr(scheme.size());
    const auto slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    Target target{url, authority, 80, slash == std::string::npos ? "/" : rest.substr(slash)};
    if (authority.empty()) throw ConfigError("--url has no host: '" + url + "'");
    const bool has_port = authority.back() != ']' && authority.find(':') != std::string::npos;
    if (has_port) {
        const ListenAddress address = parse_host_port(authority, "--url");
        if (address.port == 0) throw ConfigError("--url needs a port other than 0");
        target.host = address.host;
        target.port = address.port;
    }
    return target;
}

Options parse_or_exit(int argc, const char* const argv[]) {
    Options options;
    std::string url, arrivals = "uniform", json_file;
    long long max_response_kib = options.max_response_kib;
    double progress_s = 5;
    po::options_description flags("Options");
    // clang-format off
    flags.add_options()
        ("help,h", "print this help and exit")
        ("version", "print the version and exit")
        ("url", po::value<std::string>(&url)->required()->value_name("URL"),
         "http://HOST[:PORT]/PATH to GET (also the one positional argument)")
        ("rate", po::value<double>(&options.rate_per_s)->default_value(options.rate_per_s)
             ->value_name("N"), "requests per second, more than 0 and at most 1000000")
        ("duration", bounded_seconds_flag("duration", options.duration, kMaxSeconds),
         "seconds of arrivals; the run then waits for the requests still out")
        ("arrivals", po::value<std::string>(&arrivals)->default_value(arrivals),
         "uniform (evenly spaced) or poisson (exponential gaps from --seed)")
        ("seed", bounded_flag("seed", options.seed, 0, UINT32_MAX), "the Poisson arrivals' seed")
        ("connections", bounded_flag("connections", options.connections, 0, 10000),
         "a pool of N keep-alive connections, a request waiting for a free one; 0: a new "
         "connection per request (Connection: close)")
        ("max-in-flight", bounded_flag("max-in-flight", options.max_in_flight, 1, 10000),
         "with a new connection per request: connections open at once; more requests wait")
        ("max-pending", bounded_flag("max-pending", options.max_pending, 0, 10000000),
         "requests waiting for a connection; one more is counted as not sent (pending_cap)")
        ("timeout", bounded_seconds_flag("timeout", options.timeout, kMaxSeconds),
         "seconds from a request's intended send time to its whole response")
        ("max-response-kib", po::value<long long>(&max_response_kib)
             ->default_value(max_response_kib)->value_name("N"),
         "a larger response is an error (too_large), 1..1048576")
        ("progress", po::value<double>(&progress_s)->default_value(progress_s)->value_name("S"),
         "seconds between progress lines on stderr; 0: none")
        ("json", po::value<std::string>(&json_file)->value_name("FILE"),
         "write the JSON report to FILE instead of stdout");
    // clang-format on
    po::positional_options_description positional;
    positional.add("url", 1);
    try {
        po::variables_map vm;
        po::store(po::command_line_parser(argc, argv).options(flags).positional(positional).run(),
                  vm);
        if (vm.count("help")) {
            std::cout << usage(flags);
            std::exit(0);
        }
        if (vm.count("version")) {
            std::cout << "openloop " << MODELBENCH_VERSION << "\n";
            std::exit(0);
        }
        po::notify(vm);
        options.target = parse_url(url);
        if (!std::isfinite(options.rate_per_s) || options.rate_per_s <= 0 ||
            options.rate_per_s > kMaxRate) {
            throw ConfigError("--rate must be more than 0 and at most 1000000");
        }
        if (arrivals != "uniform" && arrivals != "poisson") {
            throw ConfigError("--arrivals must be 'uniform' or 'poisson', not '" + arrivals + "'");
        }
        options.arrivals = arrivals == "uniform" ? Arrivals::uniform : Arrivals::poisson;
        if (max_response_kib < 1 || max_response_kib > 1024 * 1024) {
            throw ConfigError("--max-response-kib must be between 1 and 1048576");
        }
        options.max_response_kib = static_cast<unsigned>(max_response_kib);
        if (!std::isfinite(progress_s) || progress_s < 0 || progress_s > kMaxSeconds) {
            throw ConfigError("--progress must be between 0 and 3600 seconds");
        }
        options.progress = std::chrono::milliseconds(std::llround(progress_s * 1000));
        if (vm.count("json")) options.json_file = json_file;
    } catch (const std::exception& e) {  // po::error and ConfigError
        std::cerr << "openloop: " << e.what() << "\n\n" << usage(flags);
        std::exit(2);
    }
    return options;
}

}  // namespace mb::openloop
