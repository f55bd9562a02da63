"""A host whose speed drifts, made on purpose: runs a command, and the private MariaDB beside it,
in a CPU cgroup of their own whose quota alternates between unlimited and one CPU every 10 to 30
seconds (a random draw each time), then puts the database back where it was, removes the group
and prints how often the group was throttled. cgroup v1 (`cpu.cfs_quota_us`) or v2 (`cpu.max`);
needs root. Exits with the command's status, 77 where no CPU cgroup can be made here.

  drifting_host.py [--seed N] [--db-pid PID] -- COMMAND [ARGS...]

As a module: `drifting(command, db_pid, seed)` -> (the command's status, the group's counters).
"""

import argparse
import os
import random
import subprocess
import sys
import threading
import time

V1 = "/sys/fs/cgroup/cpu"
V2 = "/sys/fs/cgroup"
PERIOD_US = 100_000
SWITCH_S = (10, 30)
SKIP = 77


class Unavailable(Exception):
    pass


class CpuGroup:
    """A CPU cgroup made for one command: its quota set to one CPU or none, processes moved in,
    and on close everything moved back and the group removed."""

    def __init__(self, name):
        if os.geteuid() != 0:
            raise Unavailable("making a cgroup needs root")
        if os.path.exists(os.path.join(V1, "cpu.cfs_quota_us")):
            self.root, self.v2 = V1, False
        elif "cpu" in open_text(os.path.join(V2, "cgroup.controllers")).split():
            self.root, self.v2 = V2, True
            with open(os.path.join(V2, "cgroup.subtree_control"), "w") as f:
                f.write("+cpu")
        else:
            raise Unavailable("no CPU cgroup controller is mounted")
        self.path = os.path.join(self.root, name)
        os.mkdir(self.path)
        self.moved = {}  # pid -> the cgroup it came from

    def quota(self, cpus):
        """cpus CPUs' worth of time per period; None: unlimited."""
        if self.v2:
            write(os.path.join(self.path, "cpu.max"),
                  "max" if cpus is None else f"{int(cpus * PERIOD_US)} {PERIOD_US}")
        else:
            write(os.path.join(self.path, "cpu.cfs_period_us"), str(PERIOD_US))
            write(os.path.join(self.path, "cpu.cfs_quota_us"),
                  "-1" if cpus is None else str(int(cpus * PERIOD_US)))

    def move_in(self, pid):
        self.moved[pid] = own_group(pid, self.v2)
        write(os.path.join(self.path, "cgroup.procs"), str(pid))

    def counters(self):
        """{nr_periods, nr_throttled, throttled_s} of the group so far."""
        stat = dict(line.split() for line in open_text(os.path.join(self.path, "cpu.stat"))
                    .splitlines() if len(line.split()) == 2)
        throttled = int(stat.get("throttled_usec", 0)) / 1e6 if self.v2 else \
            int(stat.get("throttled_time", 0)) / 1e9
        return {"nr_periods": int(stat.get("nr_periods", 0)),
                "nr_throttled": int(stat.get("nr_throttled", 0)),
                "throttled_s": round(throttled, 1)}

    def close(self):
        self.quota(None)
        for pid, origin in self.moved.items():
            try:
                write(os.path.join(self.root, origin.lstrip("/"), "cgroup.procs"), str(pid))
            except OSError:
                pass  # it has ended
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.1)  # its last processes are still leaving


def open_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def own_group(pid, v2):
    """The cgroup of pid under the CPU controller's hierarchy ('/' for the root)."""
    for line in open_text(f"/proc/{pid}/cgroup").splitlines():
        _, controllers, path = line.split(":", 2)
        if (v2 and controllers == "") or (not v2 and "cpu" in controllers.split(",")):
            return path
    return "/"


def drifting(command, db_pid=None, seed=None, log=print):
    """Runs command in a group whose quota drifts; (its exit status, the group's counters)."""
    rng = random.Random(seed)
    group = CpuGroup(f"modelbench-drift-{os.getpid()}")
    stop = threading.Event()
    switches = []

    def toggle():
        limited = rng.random() < 0.5
        while not stop.is_set():
            group.quota(1 if limited else None)
            switches.append((round(time.monotonic(), 1), 1 if limited else None))
            limited = not limited
            stop.wait(rng.uniform(*SWITCH_S))

    try:
        if db_pid:
            group.move_in(db_pid)
        process = subprocess.Popen(command, preexec_fn=lambda: write(
            os.path.join(group.path, "cgroup.procs"), str(os.getpid())))
        toggler = threading.Thread(target=toggle, daemon=True)
        toggler.start()
        try:
            status = process.wait()
        except BaseException:
            process.terminate()
            process.wait()
            raise
        finally:
            stop.set()
            toggler.join()
        counters = group.counters()
        counters["switches"] = len(switches)
        log(f"drifting_host: the quota switched {len(switches)} times; the group was throttled "
            f"in {counters['nr_throttled']} of {counters['nr_periods']} periods, "
            f"{counters['throttled_s']} s in all")
        return status, counters
    finally:
        group.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="the seed of the switching times")
    parser.add_argument("--db-pid", type=int, help="a process to move into the group too "
                        "(the private MariaDB)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    try:
        status, _ = drifting(command, args.db_pid, args.seed)
    except Unavailable as error:
        print(f"drifting_host: {error}", file=sys.stderr)
        return SKIP
    return status


if __name__ == "__main__":
    sys.exit(main())
