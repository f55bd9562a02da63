"""A network namespace joined to this host by a veth pair: a second "machine" on one box, with
an IP stack, ports and TCP settings of its own. E10's load tool runs in one whose ephemeral ports
are narrowed (client_namespace: the server listens on Link.host, the tool runs behind
Link.prefix and connects from Link.inside); the network tests run a server in one through
scripts/lib/netns.sh, this module's command line (main).

Namespace N is `modelbenchN`, SUBNET.N.1/24 on the host's side of the pair and SUBNET.N.2/24
inside (lo up too), N the first free number. Everything is removed when its block or command
ends, fails or is interrupted: processes still inside are stopped, then the namespace and the
pair deleted. One whose owner was killed (SIGKILL) is removed by the next one made. Needs root
and iproute2 (Unavailable otherwise, which fails a run with its reason and makes the command
line exit 77, which tests take as "skip")."""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

CLIENT_SUBNET = "10.78"  # E10's client namespaces
TESTS_SUBNET = "10.77"  # the command line's, unless NETNS_SUBNET=10.X says otherwise
NAME = "modelbench{}"
STATE = "/run/modelbench-netns"  # N.owner: the pid and start time of namespace N's owner
TIMEOUT_S = 10
STOP_S = 2  # for processes inside to end on SIGTERM before SIGKILL
UNAVAILABLE = 77
USAGE = f"""\
Usage: scripts/lib/netns.sh check | exec COMMAND [ARGS...] | with COMMAND [ARGS...]
  check  exit 0 when namespaces can be made here; else say why and exit 77
  exec   make a namespace, run COMMAND inside it, then remove everything
  with   the same, but COMMAND runs on this host with NETNS_NAME, NETNS_HOST_ADDR and
         NETNS_NS_ADDR in its environment (start processes inside with
         `ip netns exec "$NETNS_NAME" ...`)
The pair gets {TESTS_SUBNET}.N.1/24 on the host's side and {TESTS_SUBNET}.N.2/24 inside, N the
first free number (NETNS_SUBNET=10.X for another block). Exit status: COMMAND's; 77 when no
namespace could be made; 2 on bad usage. Needs root and iproute2."""


class Unavailable(OSError):
    """No namespace can be made here, and why."""


@dataclass(frozen=True)
class Link:
    name: str
    host: str  # this host's address on the pair
    inside: str  # the namespace's

    @property
    def prefix(self):
        """A command's prefix that runs it inside."""
        return ("ip", "netns", "exec", self.name)


def _run(command):
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)


def _ip(*args, inside=None):
    command = [*(("ip", "netns", "exec", inside) if inside else ()), "ip", *args]
    out = _run(command)
    if out.returncode != 0:
        raise Unavailable(f"{' '.join(command)}: {out.stderr.strip() or out.returncode}")
    return out.stdout


def _start_time(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[19]


def _owner_alive(path):
    try:
        with open(path) as f:
            pid, start = f.read().split()
        return _start_time(int(pid)) == start
    except (OSError, ValueError):
        return False


def _stop_inside(name):
    def inside():
        return [int(pid) for pid in _run(["ip", "netns", "pids", name]).stdout.split()]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = inside()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + STOP_S
        while pids and time.monotonic() < deadline:
            time.sleep(0.1)
            pids = inside()
        if not pids:
            return


def _remove(number):
    name = NAME.format(number)
    _stop_inside(name)
    for command in (["ip", "link", "del", f"{name}h"], ["ip", "netns", "del", name]):
        _run(command)
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(STATE, f"{number}.owner"))


def _remove_orphans():
    for entry in os.listdir(STATE):
        number, _, suffix = entry.partition(".")
        if suffix == "owner" and number.isdigit() and not _owner_alive(os.path.join(STATE, entry)):
            print(f"netns: removing {NAME.format(number)}, left behind by a run that was killed",
                  file=sys.stderr)
            _remove(int(number))


def _check_available():
    if os.geteuid() != 0:
        raise Unavailable("a network namespace needs root")
    if shutil.which("ip") is None:
        raise Unavailable("'ip' not found (apt-get install iproute2)")


@contextlib.contextmanager
def namespace(subnet, sysctls=None):
    """A Link to a new namespace on subnet ("10.X"), whose sysctls ({name: value}) are set
    inside."""
    _check_available()
    os.makedirs(STATE, exist_ok=True)
    _remove_orphans()
    used = _run(["ip", "-4", "-o", "addr", "show"]).stdout
    for number in range(1, 255):
        # A block some interface of this host already uses is not ours to take; `ip netns add`
        # claims a number, so two runs never share one.
        if f" {subnet}.{number}." not in used and \
                _run(["ip", "netns", "add", NAME.format(number)]).returncode == 0:
            break
    else:
        raise Unavailable(f"no free namespace {NAME.format('N')} on {subnet}.N.0/24")
    try:
        with open(os.path.join(STATE, f"{number}.owner"), "w") as f:
            f.write(f"{os.getpid()} {_start_time(os.getpid())}")
        yield _joined(number, subnet, sysctls or {})
    finally:
        _remove(number)


def client_namespace(sysctls):
    """E10's: a namespace for the load tool on CLIENT_SUBNET."""
    return namespace(CLIENT_SUBNET, sysctls)


def _joined(number, subnet, sysctls):
    """Namespace number's Link, its pair made and its sysctls set."""
    name = NAME.format(number)
    link = Link(name, f"{subnet}.{number}.1", f"{subnet}.{number}.2")
    _ip("link", "add", f"{name}h", "type", "veth", "peer", "name", f"{name}n", "netns", name)
    _ip("addr", "add", f"{link.host}/24", "dev", f"{name}h")
    _ip("link", "set", f"{name}h", "up")
    _ip("addr", "add", f"{link.inside}/24", "dev", f"{name}n", inside=name)
    _ip("link", "set", f"{name}n", "up", inside=name)
    _ip("link", "set", "lo", "up", inside=name)
    for key, value in sysctls.items():
        out = _run([*link.prefix, "sysctl", "-q", "-w", f"{key}={value}"])
        if out.returncode != 0:
            raise Unavailable(f"sysctl {key}={value} in {name}: {out.stderr.strip()}")
    return link


def _interrupted(signum, _frame):
    raise SystemExit(128 + signum)


def _run_command(mode, command, subnet):
    """Command's exit status, run inside a new namespace (exec) or beside it (with)."""
    with namespace(subnet) as link:
        env = dict(os.environ, NETNS_NAME=link.name, NETNS_HOST_ADDR=link.host,
                   NETNS_NS_ADDR=link.inside)
        child = subprocess.Popen([*(link.prefix if mode == "exec" else ()), *command], env=env)
        try:
            status = child.wait()
        finally:
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(STOP_S)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
        return 128 - status if status < 0 else status


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    subnet = os.environ.get("NETNS_SUBNET", TESTS_SUBNET)
    mode, command = (argv[0], argv[1:]) if argv else ("", [])
    if not (mode == "check" and not command or mode in ("exec", "with") and command):
        print(USAGE, file=sys.stderr)
        return 2
    if not re.fullmatch(r"10\.(25[0-5]|2[0-4]\d|1?\d?\d)", subnet):
        print(f"netns: NETNS_SUBNET='{subnet}' is not 10.X", file=sys.stderr)
        return 2
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupted)
    try:
        if mode == "check":
            with namespace(subnet):
                pass
            print("netns: network namespaces with veth pairs can be made here")
            return 0
        return _run_command(mode, command, subnet)
    except Unavailable as e:
        print(f"netns: network namespaces are not available here: {e}", file=sys.stderr)
        return UNAVAILABLE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
