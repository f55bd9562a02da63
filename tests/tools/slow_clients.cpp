// slow_clients: holds N connections that each send one request-header byte per interval (a
// "slowloris" client), records when the server closes each one, and meanwhile probes the server
// with ordinary requests on fresh connections to see whether it still answers other clients.
// Prints key=value figures for scripts/stress.sh.
#include <boost/asio.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace po = boost::program_options;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::uint16_t port = 0;
    int connections = 300;
    int interval_ms = 1000;
    double duration_s = 40;
    int probe_interval_ms = 250;
    std::string probe_path = "/hello";
};

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// One slow connection: a header line that never ends, one byte per interval.
class SlowConnection : public std::enable_shared_from_this<SlowConnection> {
  public:
    SlowConnection(asio::io_context& io, const Options& options, Clock::time_point start)
        : socket_(io), timer_(io), options_(options), start_(start) {}

    void start(const tcp::endpoint& server) {
        socket_.async_connect(server, [self = shared_from_this()](boost::system::error_code ec) {
            if (ec) {
                self->closed_at_ = seconds_since(self->start_);
                self->connect_failed_ = true;
                return;
            }
            self->opened_ = true;
            self->write_next();
            self->watch_for_close();
        });
    }

    void stop() {
        boost::system::error_code ec;
        timer_.cancel();
        socket_.close(ec);
    }

    bool opened() const { return opened_; }
    bool connect_failed() const { return connect_failed_; }
    bool closed_by_server() const { return closed_by_server_; }
    double closed_at() const { return closed_at_; }

  private:
    void write_next() {
        static const std::string prefix = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
        const char* data = sent_ < prefix.size() ? &prefix[sent_] : "a";
        asio::async_write(
            socket_, asio::buffer(data, 1),
            [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                if (ec) {
                    self->mark_closed();
                    return;
                }
                ++self->sent_;
                self->timer_.expires_after(std::chrono::milliseconds(self->options_.interval_ms));
                self->timer_.async_wait([self](boost::system::error_code wait_ec) {
                    if (!wait_ec && !self->closed_by_server_) self->write_next();
                });
            });
    }

    void watch_for_close() {
        socket_.async_read_some(
            asio::buffer(discard_),
            [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                if (ec) {
                    self->mark_closed();
                } else {
                    self->watch_for_close();  // e.g. a 408 before the close
                }
            });
    }

    void mark_closed() {
        if (closed_by_server_ || !socket_.is_open()) return;
        closed_by_server_ = true;
        closed_at_ = seconds_since(start_);
        timer_.cancel();
    }

    tcp::socket socket_;
    asio::steady_timer timer_;
    const Options& options_;
    Clock::time_point start_;
    std::size_t sent_ = 0;
    char discard_[512];
    bool opened_ = false;
    bool connect_failed_ = false;
    bool closed_by_server_ = false;
    double closed_at_ = -1;
};

// Ordinary requests on fresh connections, one every probe interval, each timed to its response.
class Prober {
  public:
    Prober(asio::io_context& io, const Options& options, const tcp::endpoint& server)
        : io_(io), timer_(io), options_(options), server_(server) {}

    void start() { schedule(); }
    void stop() {
        stopped_ = true;
        timer_.cancel();
    }

    std::vector<double> latencies_ms;
    int failures = 0;
    int unanswered = 0;  // still waiting when the run ended

    void finish() { unanswered = in_flight_; }

  private:
    void schedule() {
        timer_.expires_after(std::chrono::milliseconds(options_.probe_interval_ms));
        timer_.async_wait([this](boost::system::error_code ec) {
            if (ec || stopped_) return;
            probe();
            schedule();
        });
    }

    void probe() {
        struct Probe {
            tcp::socket socket;
            std::string request;
            std::string response;
            char buffer[4096];
            Clock::time_point sent;
        };
        auto p = std::make_shared<Probe>(Probe{tcp::socket(io_), {}, {}, {}, Clock::now()});
        p->request = "GET " + options_.probe_path +
                     " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        ++in_flight_;
        p->socket.async_connect(server_, [this, p](boost::system::error_code ec) {
            if (ec) return done(p->sent, false);
            asio::async_write(p->socket, asio::buffer(p->request),
                              [this, p](boost::system::error_code write_ec, std::size_t) {
                                  if (write_ec) return done(p->sent, false);
                                  read(p);
                              });
        });
    }

    template <typename ProbePtr>
    void read(ProbePtr p) {
        p->socket.async_read_some(
            asio::buffer(p->buffer), [this, p](boost::system::error_code ec, std::size_t n) {
                if (!ec) {
                    p->response.append(p->buffer, n);
                    return read(p);
                }
                const bool ok = ec == asio::error::eof && p->response.rfind("HTTP/1.1 200", 0) == 0;
                done(p->sent, ok);
            });
    }

    void done(Clock::time_point sent, bool ok) {
        --in_flight_;
        if (stopped_) {
            return;  // answered after the run ended: already counted as unanswered
        }
        if (ok) {
            latencies_ms.push_back(
                std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        } else {
            ++failures;
        }
    }

    asio::io_context& io_;
    asio::steady_timer timer_;
    const Options& options_;
    tcp::endpoint server_;
    bool stopped_ = false;
    int in_flight_ = 0;
};

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const auto index = static_cast<std::size_t>(p / 100.0 * (values.size() - 1) + 0.5);
    return values[std::min(index, values.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    unsigned port = 0;
    po::options_description desc(
        "Usage: slow_clients --port PORT [options]\n"
        "Holds slow connections (one header byte per interval) against 127.0.0.1:PORT and probes\n"
        "the server with ordinary requests meanwhile; prints key=value figures.\n\nOptions");
    // clang-format off
    desc.add_options()
        ("help,h", "print this help")
        ("port", po::value<unsigned>(&port)->required(), "server port on 127.0.0.1")
        ("connections", po::value<int>(&options.connections)->default_value(300), "slow connections")
        ("interval-ms", po::value<int>(&options.interval_ms)->default_value(1000), "ms between bytes")
        ("duration", po::value<double>(&options.duration_s)->default_value(40),
         "seconds to run at most (ends earlier once the server closed every slow connection)")
        ("probe-interval-ms", po::value<int>(&options.probe_interval_ms)->default_value(250),
         "ms between probe requests")
        ("probe-path", po::value<std::string>(&options.probe_path)->default_value("/hello"),
         "path the probes request");
    // clang-format on
    try {
        po::variables_map vm;
        po::store(po::parse_command_line(argc, argv, desc), vm);
        if (vm.count("help")) {
            std::cout << desc;
            return 0;
        }
        po::notify(vm);
        if (port == 0 || port > 65535 || options.connections < 1 || options.connections > 20000 ||
            options.interval_ms < 1 || options.duration_s <= 0 || options.duration_s > 3600 ||
            options.probe_interval_ms < 1) {
            throw po::error("a value is out of range");
        }
        options.port = static_cast<std::uint16_t>(port);
    } catch (const po::error& e) {
        std::cerr << "slow_clients: " << e.what() << "\n\n" << desc;
        return 2;
    }

    asio::io_context io;
    const tcp::endpoint server(asio::ip::make_address("127.0.0.1"), options.port);
    const auto start = Clock::now();
    std::vector<std::shared_ptr<SlowConnection>> slow;
    for (int i = 0; i < options.connections; ++i) {
        slow.push_back(std::make_shared<SlowConnection>(io, options, start));
        slow.back()->start(server);
    }
    Prober prober(io, options, server);
    prober.start();

    // End at the deadline, or one second after the server closed the last slow connection.
    asio::steady_timer check(io);
    double all_closed_at = -1;
    std::function<void()> watch = [&] {
        check.expires_after(std::chrono::milliseconds(200));
        check.async_wait([&](boost::system::error_code) {
            const bool all_closed = std::all_of(slow.begin(), slow.end(), [](const auto& c) {
                return c->closed_by_server() || c->connect_failed();
            });
            if (all_closed && all_closed_at < 0) all_closed_at = seconds_since(start);
            if (seconds_since(start) >= options.duration_s ||
                (all_closed_at >= 0 && seconds_since(start) >= all_closed_at + 1)) {
                prober.finish();
                prober.stop();
                for (auto& c : slow) c->stop();
                return;
            }
            watch();
        });
    };
    watch();
    io.run();

    int opened = 0, connect_failed = 0, closed = 0;
    double first_close = -1, last_close = -1;
    for (const auto& c : slow) {
        opened += c->opened();
        connect_failed += c->connect_failed();
        if (c->closed_by_server()) {
            ++closed;
            first_close = first_close < 0 ? c->closed_at() : std::min(first_close, c->closed_at());
            last_close = std::max(last_close, c->closed_at());
        }
    }
    std::printf("slow_connections=%d\nopened=%d\nconnect_failed=%d\nclosed_by_server=%d\n",
                options.connections, opened, connect_failed, closed);
    std::printf("first_close_s=%.2f\nlast_close_s=%.2f\n", first_close, last_close);
    std::printf("probes_answered=%zu\nprobe_failures=%d\nprobes_unanswered=%d\n",
                prober.latencies_ms.size(), prober.failures, prober.unanswered);
    std::printf("probe_p50_ms=%.1f\nprobe_p99_ms=%.1f\nprobe_max_ms=%.1f\n",
                percentile(prober.latencies_ms, 50), percentile(prober.latencies_ms, 99),
                percentile(prober.latencies_ms, 100));
    std::printf("elapsed_s=%.1f\n", seconds_since(start));
    return 0;
}
