// delay_proxy: a TCP proxy that adds a round-trip delay, for putting a network between the
// servers and MariaDB on one machine (the kernel here has no netem qdisc). Each client accepted on
// --listen is connected to --target; the bytes of every read are held until half of --rtt-ms has
// passed since they arrived, in each direction, and written on in order, so a request/response
// pair takes the asked round trip more. One thread, one io_context.
#include "common/config.hpp"
#include "tests/tools/delay_proxy/relay.hpp"

#include <sys/prctl.h>
#include <sys/socket.h>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace po = boost::program_options;
using namespace mb::proxy;

namespace {

struct Options {
    mb::ListenAddress listen;
    mb::ListenAddress target;
    RelaySettings relay;
    unsigned max_connections = 1000;
};

// The median lateness of 64 timers of 200 us on this io_context: the first estimate, so that the
// first clients already get their delay right.
Clock::duration measure_timer_lateness(asio::io_context& io) {
    asio::steady_timer timer(io);
    std::vector<Clock::duration> samples;
    std::function<void()> wait_next = [&] {
        const auto due = Clock::now() + std::chrono::microseconds(200);
        timer.expires_at(due);
        timer.async_wait([&, due](boost::system::error_code) {
            samples.push_back(Clock::now() - due);
            if (samples.size() < 64) wait_next();
        });
    };
    wait_next();
    io.run();
    io.restart();
    std::nth_element(samples.begin(), samples.begin() + 32, samples.end());
    return std::max(samples[32], Clock::duration::zero());
}

// Accepts clients up to the connection cap (beyond it they wait in the listen queue) and keeps
// the live relays so that a signal can close them all.
class Proxy {
  public:
    Proxy(asio::io_context& io, const tcp::endpoint& listen, const Options& options)
        : acceptor_(io, listen),
          retry_timer_(io),
          signals_(io, SIGINT, SIGTERM),
          options_(options),
          lateness_(measure_timer_lateness(io)),
          read_buffer_(64 * 1024) {
        signals_.async_wait([this](boost::system::error_code ec, int) {
            if (!ec) stop();
        });
        // The kernel turns its receive stamps on a while after the first socket asks for them
        // (deferred work), so the first segments of a connection could arrive unstamped; the
        // listening socket keeps them on, and accepted sockets inherit the option.
        if (options.relay.one_way_delay > Clock::duration::zero()) {
            const int on = 1;
            ::setsockopt(acceptor_.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
        }
    }

    tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
    const RelayTotals& totals() const { return totals_; }
    const TimerLateness& lateness() const { return lateness_; }

    void accept() {
        if (stopped_ || accepting_ || live_.size() >= options_.max_connections) return;
        accepting_ = true;
        acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
            accepting_ = false;
            if (stopped_) return;
            if (ec) {
                on_accept_error(ec);
                return;
            }
            auto relay =
                std::make_shared<Relay>(std::move(socket), options_.relay, totals_, lateness_,
                                        read_buffer_, [this](Relay* r) { closed(r); });
            live_.insert(relay.get());
            relay->start();
            accept();
        });
    }

  private:
    void on_accept_error(const boost::system::error_code& ec) {
        // Out of descriptors: retrying at once would spin; the cap should prevent it anyway.
        if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space) {
            if (!warned_descriptors_) {
                std::cerr << "delay_proxy: accept: " << ec.message()
                          << " (lower --max-connections or raise ulimit -n)\n";
                warned_descriptors_ = true;
            }
            retry_timer_.expires_after(std::chrono::milliseconds(100));
            retry_timer_.async_wait([this](boost::system::error_code) { accept(); });
            return;
        }
        accept();
    }

    void closed(Relay* relay) {
        live_.erase(relay);
        accept();
    }

    void stop() {
        stopped_ = true;
        boost::system::error_code ignored;
        acceptor_.close(ignored);
        retry_timer_.cancel();
        const std::vector<Relay*> open(live_.begin(), live_.end());
        for (Relay* relay : open) relay->close();
    }

    tcp::acceptor acceptor_;
    asio::steady_timer retry_timer_;
    asio::signal_set signals_;
    const Options& options_;
    TimerLateness lateness_;
    std::vector<char> read_buffer_;
    RelayTotals totals_;
    std::unordered_set<Relay*> live_;
    bool accepting_ = false;
    bool stopped_ = false;
    bool warned_descriptors_ = false;
};

std::string endpoint_text(const tcp::endpoint& endpoint) {
    const auto address = endpoint.address().to_string();
    return (endpoint.address().is_v6() ? "[" + address + "]" : address) + ":" +
           std::to_string(endpoint.port());
}

// Throws mb::ConfigError for a bad value; false after --help.
bool parse(int argc, char** argv, const po::options_description& desc, po::variables_map& vm,
           Options& options) {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    if (vm.count("help")) return false;
    po::notify(vm);
    options.listen = mb::parse_host_port(vm["listen"].as<std::string>(), "--listen");
    options.target = mb::parse_host_port(vm["target"].as<std::string>(), "--target");
    if (options.target.port == 0) throw mb::ConfigError("--target needs a port other than 0");
    const double rtt_ms = vm["rtt-ms"].as<double>();
    if (!std::isfinite(rtt_ms) || rtt_ms < 0 || rtt_ms > 10000) {
        throw mb::ConfigError("--rtt-ms must be between 0 and 10000");
    }
    options.relay.one_way_delay = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::milli>(rtt_ms / 2));
    const long long queue_kib = vm["queue-limit-kib"].as<long long>();
    if (queue_kib < 1 || queue_kib > 1024 * 1024) {
        throw mb::ConfigError("--queue-limit-kib must be between 1 and 1048576");
    }
    options.relay.queue_limit = static_cast<std::size_t>(queue_kib) * 1024;
    const long long max_connections = vm["max-connections"].as<long long>();
    if (max_connections < 1 || max_connections > 100000) {
        throw mb::ConfigError("--max-connections must be between 1 and 100000");
    }
    options.max_connections = static_cast<unsigned>(max_connections);
    const double connect_timeout = vm["connect-timeout"].as<double>();
    if (!std::isfinite(connect_timeout) || connect_timeout <= 0 || connect_timeout > 600) {
        throw mb::ConfigError("--connect-timeout must be more than 0 and at most 600 seconds");
    }
    options.relay.connect_timeout = std::chrono::milliseconds(std::llround(connect_timeout * 1000));
    options.relay.handshake_delay = vm.count("no-handshake-delay") == 0;
    return true;
}

tcp::endpoint resolve(asio::io_context& io, const mb::ListenAddress& address, const char* flag) {
    boost::system::error_code ec;
    tcp::resolver resolver(io);
    const auto results = resolver.resolve(address.host, std::to_string(address.port), ec);
    if (ec || results.empty()) {
        throw mb::ConfigError(std::string(flag) + ": cannot resolve '" + address.host +
                              "': " + ec.message());
    }
    return results.begin()->endpoint();
}

}  // namespace

int main(int argc, char** argv) {
    po::options_description desc(
        "Usage: delay_proxy --target HOST:PORT [--listen HOST:PORT] [--rtt-ms MS] [options]\n"
        "Relays each client accepted on --listen to --target and holds every segment for half of\n"
        "--rtt-ms in each direction, in order: a request/response pair takes --rtt-ms more.\n"
        "Prints 'listening on HOST:PORT' once ready; SIGINT or SIGTERM closes everything and\n"
        "prints the totals.\n\nOptions");
    // clang-format off
    desc.add_options()
        ("help,h", "print this help")
        ("target", po::value<std::string>()->required()->value_name("HOST:PORT"),
         "where to relay each client (e.g. MariaDB's 127.0.0.1:3307)")
        ("listen", po::value<std::string>()->default_value("127.0.0.1:0")->value_name("HOST:PORT"),
         "where to accept clients; port 0 picks a free one")
        ("rtt-ms", po::value<double>()->default_value(0)->value_name("MS"),
         "round trip added, 0..10000 (fractions work: 0.2); 0 forwards at once")
        ("no-handshake-delay",
         "open the target connection at once instead of 1.5 round trips after the accept (a TCP "
         "handshake across the link)")
        ("queue-limit-kib", po::value<long long>()->default_value(1024)->value_name("N"),
         "bytes held per direction and connection, in KiB; past it that side is not read")
        ("max-connections", po::value<long long>()->default_value(1000)->value_name("N"),
         "connections relayed at once; more wait in the listen queue")
        ("connect-timeout", po::value<double>()->default_value(5)->value_name("S"),
         "seconds to wait for the target's answer to a connect");
    // clang-format on
    Options options;
    asio::io_context io(1);
    tcp::endpoint listen;
    try {
        po::variables_map vm;
        if (!parse(argc, argv, desc, vm, options)) {
            std::cout << desc;
            return 0;
        }
        listen = resolve(io, options.listen, "--listen");
        options.relay.target = resolve(io, options.target, "--target");
    } catch (const std::exception& e) {  // po::error and mb::ConfigError
        std::cerr << "delay_proxy: " << e.what() << "\n\n" << desc;
        return 2;
    }
    // The kernel may fire a timer up to 50 us late by default (timer slack), a fifth of a 0.25 ms
    // one-way delay; the least slack keeps the delay what was asked.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    std::unique_ptr<Proxy> proxy;
    try {
        proxy = std::make_unique<Proxy>(io, listen, options);
    } catch (const boost::system::system_error& e) {
        std::cerr << "delay_proxy: cannot listen on " << endpoint_text(listen) << ": "
                  << e.code().message() << "\n";
        return 1;
    }
    proxy->accept();
    std::cout << "listening on " << endpoint_text(proxy->local_endpoint()) << std::endl;
    io.run();
    const auto& totals = proxy->totals();
    std::printf(
        "delay_proxy: stopped; %llu connections (%llu target connects failed), %llu bytes to the "
        "target, %llu bytes to clients; timers armed %.1f us early\n",
        static_cast<unsigned long long>(totals.connections),
        static_cast<unsigned long long>(totals.connect_failures),
        static_cast<unsigned long long>(totals.bytes_to_target),
        static_cast<unsigned long long>(totals.bytes_to_client),
        std::chrono::duration<double, std::micro>(proxy->lateness().estimate()).count());
    return 0;
}
