// openloop: an open-loop HTTP load generator corrected for coordinated omission. GET requests
// leave at a set rate whatever became of the ones before, and each one's latency is measured
// from the time it should have been sent as well as from the time it was; the JSON report's
// fields are described in report.hpp. One thread, one io_context.
#include "tests/tools/openloop/generator.hpp"
#include "tests/tools/openloop/options.hpp"
#include "tests/tools/openloop/report.hpp"

#include <sys/prctl.h>

#include <fstream>
#include <iostream>

using namespace mb::openloop;

int main(int argc, char** argv) {
    const Options options = parse_or_exit(argc, argv);
    boost::asio::io_context io(1);
    boost::system::error_code ec;
    tcp::resolver resolver(io);
    const auto resolved =
        resolver.resolve(options.target.host, std::to_string(options.target.port), ec);
    if (ec || resolved.empty()) {
        std::cerr << "openloop: cannot resolve '" << options.target.host << "': " << ec.message()
                  << "\n";
        return 1;
    }
    // The kernel may fire a timer up to 50 us late by default (timer slack): the least slack
    // keeps the actual sends close to the schedule.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    Generator generator(io, options, resolved.begin()->endpoint());
    const Results results = generator.run();
    const std::string document = to_json(options, results).dump(1) + "\n";
    if (options.json_file) {
        std::ofstream out(*options.json_file);
        out << document;
        if (!out.flush()) {
            std::cerr << "openloop: cannot write " << *options.json_file << "\n";
            return 1;
        }
    } else {
        std::cout << document;
    }
    std::cerr << summary_line(results) << std::endl;
    return 0;
}
