"""The load tool's own network namespace, joined to this host by a veth pair (E10): its
ephemeral ports and its TCP settings are the namespace's, so a run can narrow them without
touching this machine's. The server listens on the host's side of the pair (Link.host), the
tool runs inside (Link.prefix) and connects from Link.inside.

Everything is removed when the block ends, fails or is interrupted: processes still inside are
killed, then the namespace and the pair deleted. A namespace whose owner was killed (SIGKILL)
is removed by the next one made. Needs root and iproute2 (OSError otherwise, which fails the run
with its reason)."""

import contextlib
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass

SUBNET = "10.78"  # 10.78.N.0/24; scripts/lib/netns.sh's tests use 10.77
NAME = "mbclient{}"
STATE = "/run/modelbench-client-netns"  # N.pid: the owner of namespace N
TIMEOUT_S = 10


@dataclass(frozen=True)
class Link:
    name: str
    host: str  # this host's address on the pair
    inside: str  # the namespace's

    @property
    def prefix(self):
        """A command's prefix that runs it inside."""
        return ("ip", "netns", "exec", self.name)


def _ip(*args, inside=None):
    command = [*(("ip", "netns", "exec", inside) if inside else ()), "ip", *args]
    out = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    if out.returncode != 0:
        raise OSError(f"{' '.join(command)}: {out.stderr.strip() or out.returncode}")
    return out.stdout


def _remove(number):
    name = NAME.format(number)
    for pid in subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True,
                              timeout=TIMEOUT_S).stdout.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    for command in (["ip", "link", "del", f"{name}h"], ["ip", "netns", "del", name]):
        subprocess.run(command, capture_output=True, timeout=TIMEOUT_S)
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(STATE, f"{number}.pid"))


def _owner_alive(path):
    try:
        with open(path) as f:
            os.kill(int(f.read()), 0)
        return True
    except (OSError, ValueError):
        return False


def _remove_orphans():
    for entry in os.listdir(STATE):
        number, _, suffix = entry.partition(".")
        if suffix == "pid" and number.isdigit() and not _owner_alive(os.path.join(STATE, entry)):
            _remove(int(number))


@contextlib.contextmanager
def client_namespace(sysctls):
    """A Link to a new namespace whose sysctls ({name: value}) are set inside."""
    if os.geteuid() != 0:
        raise OSError("a network namespace of the client's needs root")
    if shutil.which("ip") is None:
        raise OSError("'ip' not found (apt-get install iproute2)")
    os.makedirs(STATE, exist_ok=True)
    _remove_orphans()
    for number in range(1, 255):
        name = NAME.format(number)
        if subprocess.run(["ip", "netns", "add", name], capture_output=True,
                          timeout=TIMEOUT_S).returncode == 0:
            break
    else:
        raise OSError(f"no free namespace name of {NAME.format('1..254')}")
    try:
        with open(os.path.join(STATE, f"{number}.pid"), "w") as f:
            f.write(str(os.getpid()))
        yield _joined(number, sysctls)
    finally:
        _remove(number)


def _joined(number, sysctls):
    """Namespace number's Link, its pair made and its sysctls set."""
    name = NAME.format(number)
    link = Link(name, f"{SUBNET}.{number}.1", f"{SUBNET}.{number}.2")
    _ip("link", "add", f"{name}h", "type", "veth", "peer", "name", f"{name}n", "netns", name)
    _ip("addr", "add", f"{link.host}/24", "dev", f"{name}h")
    _ip("link", "set", f"{name}h", "up")
    _ip("addr", "add", f"{link.inside}/24", "dev", f"{name}n", inside=name)
    _ip("link", "set", f"{name}n", "up", inside=name)
    _ip("link", "set", "lo", "up", inside=name)
    for key, value in sysctls.items():
        out = subprocess.run([*link.prefix, "sysctl", "-q", "-w", f"{key}={value}"],
                             capture_output=True, text=True, timeout=TIMEOUT_S)
        if out.returncode != 0:
            raise OSError(f"sysctl {key}={value} in {name}: {out.stderr.strip()}")
    return link
