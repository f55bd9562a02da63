#!/usr/bin/python3
"""CTest `warmup`: the engine's warm-up brings a freshly started Apache (prefork, StartServers 5)
to at least the run's concurrency in children (capped by MaxRequestWorkers) before the measured
part of an `ab -c 20` run and of an `ab -c 200` run, and settles: prefork adds children 1, 2, 4
... a second, so a run on a fresh Apache without the warm-up measures its ramp-up. Once the load
stops, prefork stops one idle child a second, so the count once settled may be a few lower.

usage: warmup_test.py SOURCE_DIR   (needs the private MariaDB and Apache with mod_php)
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from modelbench import systems  # noqa: E402
from modelbench.checkout import Checkout  # noqa: E402
from modelbench.engine import processes, server, warmup  # noqa: E402

CONCURRENCIES = (20, 200)
MAX_REQUEST_WORKERS = 150


def children(target):
    """Apache's children: the live apache2 processes of the tree but its parent. prefork stops
    idle children at any moment, so one listed may be gone when asked its name."""
    return sum(1 for _, name in processes.tree(target.pid) if name == "apache2") - 1


def warmed(checkout, concurrency):
    """The problems of a warm-up at concurrency on a freshly started Apache ([] when none)."""
    php = systems.get("php")
    with tempfile.TemporaryDirectory(prefix="warmup.") as work:
        target = server.start("php", php.command(checkout, files_dir=os.path.join(work, "files")),
                              os.path.join(work, "php"), ready_timeout_s=30)
        try:
            before = children(target)
            warm = warmup.warm_up(target, "/html", concurrency)
            warmed_up = children(target)
            warmup.settle(target)
            after = children(target)
        finally:
            code = target.stop()
    wanted = min(concurrency, MAX_REQUEST_WORKERS)
    print(f"warm-up at -c {concurrency}: {warm.seconds} s, slices "
          f"{[(round(s.requests_per_s), s.processes) for s in warm.slices]} (req/s, processes), "
          f"steady {warm.steady}; Apache's children {before} -> {warmed_up}, {after} once settled")
    problems = []
    if before >= wanted:
        problems.append(f"a fresh Apache already had {before} children: nothing to show")
    # Whenever the load pauses, prefork stops an idle child a second beyond MaxSpareServers: the
    # count is read after the last slice, and each slice ends in a pause (seen: 149 and 148 of
    # 150 after three slices at the cap), and settling takes at most SETTLE_MAX_S more.
    reaped = len(warm.slices)
    if warmed_up < wanted - reaped:
        problems.append(f"{warmed_up} children after the warm-up, fewer than the run's {wanted} "
                        f"less the {reaped} prefork may stop in the pauses between slices")
    if after < wanted - reaped - warmup.SETTLE_MAX_S:
        problems.append(f"{after} children once settled, before the run")
    if not warm.steady:
        problems.append("the warm-up ended at its cap, not steady")
    if code != 0:
        problems.append(f"Apache's launcher exited with {code}")
    return [f"-c {concurrency}: {problem}" for problem in problems]


def main():
    checkout = Checkout(os.path.join(sys.argv[1], "build"), sys.argv[1])
    problems = [p for c in CONCURRENCIES for p in warmed(checkout, c)]
    for problem in problems:
        print(f"FAIL: {problem}")
    print("warm-up: every check passed" if not problems else f"{len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
