"""The foreground part of scripts/serve.sh: runs one server until Ctrl-C, passes its output
through, and once it listens prints its URL and ready-to-paste ab and siege command lines for
every endpoint. The exit status is the server's.

  python3 -m modelbench.serve MODEL --build-dir DIR [-- server flags...]
"""

import argparse
import shlex
import signal
import sys

from modelbench import targets
from modelbench.checkout import Checkout


def commands(kind, url, siegerc):
    """The ab and siege lines for every endpoint the kind of server has."""
    siege = f"siege -R {shlex.quote(siegerc)}"
    text = f"""
{kind.name} server ready at {url}/  (Ctrl-C stops it). From another terminal:

# E1b /html: two queries, both tables rendered (31.8 KiB)
ab -c 1 -n 500 {url}/html
ab -c 20 -n 2000 {url}/html
ab -c 200 -n 20000 {url}/html
{siege} -c 200 -d 1 -t 60S {url}/html

# siege 4.0.7 sometimes hangs after "Lifting the server siege..." (JoeDog/siege#4, a glibc
# thread-cancellation bug): then only kill -9 stops it, and it prints no summary.

# E4 /json: the orders table as JSON (14 KB)
ab -c 200 -n 20000 {url}/json
{siege} -c 500 -d 1 -t 60S {url}/json

# E2 /hello: 16 bytes
ab -c 200 -n 100000 {url}/hello
{siege} -b -c 200 -t 30S {url}/hello

# E3 /factorial: n! for a random n in 10..40 (-l: accept the varying length)
ab -n 1000 -c 5 {url}/factorial
ab -l -n 1000 -c 5 {url}/factorial
{siege} -c 5 -d 1 -t 30S {url}/factorial

# E4 /tasks: the deferred task; watch this terminal for the task lines
ab -c 10 -n 10 '{url}/tasks?delay_ms=2000'
{siege} -c 10 -d 1 -t 20S '{url}/tasks?delay_ms=2000'
"""
    if kind.status:
        text += f"""
# counters
curl -s {url}/status
"""
    return text


def exposure(model, target):
    """What a listening address beyond the loopback means: how another machine reaches it, and
    that these servers are benchmark targets only."""
    if target.process.address.startswith("127.") or target.process.address.startswith("[::1]"):
        return (f"# Listening on the loopback only. For a load generator on another machine: "
                f"--listen 0.0.0.0:{target.port} (or one address of this machine).")
    return f"""# Listening on {target.process.address}: other machines reach it, e.g. from the load
# generator: scripts/reproduce.sh --target {model}=http://THIS_HOST:{target.port}
# WARNING: a benchmark target, not an internet-facing service (no TLS, no authentication,
# /status open to all): keep it on a private network, and stop it when the runs are over."""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=targets.KINDS)
    parser.add_argument("--build-dir", required=True)
    # Everything after "--" is the server's, passed through untouched.
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args, flags = parser.parse_args(argv[:split]), argv[split + 1:]
    checkout = Checkout(args.build_dir)
    # Ctrl-C reaches the server too (one process group): it stops, and this waits for it. A
    # handler, unlike SIG_IGN, is not inherited by the server.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    command = [targets.KINDS[args.model].program(checkout), *flags]
    try:
        target = targets.start(args.model, command, echo=True)
    except targets.TargetError as error:
        print(f"serve.sh: {error}", file=sys.stderr)
        return 1
    print(commands(targets.KINDS[args.model], target.base_url, checkout.script("siegerc")),
          flush=True)
    print(exposure(args.model, target), flush=True)
    return target.process.wait()


if __name__ == "__main__":
    sys.exit(main())
