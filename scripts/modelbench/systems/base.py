"""A System: a program the harness can start as a benchmark target (one per module of
modelbench.systems), whose launcher keeps the contract docs/real-systems.md gives (`--listen`, the
ready line, SIGTERM). A Server: a system as a plan runs it."""

import subprocess
from dataclasses import dataclass
from typing import Callable, Optional

ENDPOINTS = ("/html", "/json", "/hello", "/factorial", "/tasks")


def first_line(command, starting=""):
    """The first line a version command prints (that starts with `starting`), or '?'."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "?"
    lines = (line.strip() for line in (out.stdout + "\n" + out.stderr).splitlines())
    return next((line for line in lines if line and line.startswith(starting)), "?")


def apache_version():
    """'Apache/2.4.x (Debian)': the Apache both Apache systems run."""
    return first_line(["/usr/sbin/apache2", "-v"]).replace("Server version: ", "")


@dataclass(frozen=True)
class System:
    """name: run ids, table columns, `serve.sh NAME`. side: "blocking" (a worker per connection)
    or "async" (an event loop). real: one the posts ran, else a model of stands_for. needs: what
    modelbench.prepare readies ("build", "db", "php", "node", ...). launcher(checkout): its command
    without --listen; standalone(checkout, n): its /html loop without HTTP, if any. cluster_flags
    replicate it on every core (empty: no such mode). status: it reports itself in /status (the
    C++ models). files_flag puts the files it writes (configuration, logs) in the caller's
    directory. version(checkout) says what runs."""

    name: str
    title: str
    side: str
    real: bool
    port: int
    needs: tuple
    launcher: Callable
    version: Callable
    standalone: Optional[Callable] = None
    cluster_flags: tuple = ()
    status: bool = False
    files_flag: str = ""
    stands_for: str = ""
    endpoints: tuple = ENDPOINTS

    def command(self, checkout, flags=(), listen="127.0.0.1:0", files_dir=None):
        files = [self.files_flag, files_dir] if self.files_flag and files_dir else []
        return [*self.launcher(checkout), "--listen", listen, *files, *flags]


def built_model(name, port, stands_for, cluster_flags=()):
    """A C++ model of this build, NAME-server (NAME is its side), with --standalone and /status."""
    binary = f"{name}-server"
    return System(
        name=name, title=f"the {name} model", side=name, real=False, port=port,
        needs=("build", "db"), launcher=lambda checkout: [checkout.binary(binary)],
        standalone=lambda checkout, n: [checkout.binary(binary), "--standalone", str(n)],
        version=lambda checkout: first_line([checkout.binary(binary), "--version"]),
        cluster_flags=cluster_flags, status=True, stands_for=stands_for)


# The reverse proxy a server may run behind (servers/nginx/behind-nginx): it starts the system as
# its backend and takes the --listen, --backlog and database flags itself.
FRONT = ("nginx", "behind-nginx")


@dataclass(frozen=True)
class Server:
    """A system as a plan runs it: key (run ids, table columns), cluster mode, the calibrated cost,
    flags of its own, behind nginx or not."""

    system: System
    key: str
    cluster: bool = False
    calibrated: bool = False
    own_flags: tuple = ()
    behind_nginx: bool = False

    @property
    def flags(self):
        return (self.system.cluster_flags if self.cluster else ()) + self.own_flags

    def command(self, checkout, run_flags=(), extra=(), files_dir=None, listen="127.0.0.1:0"):
        """Its command line with a run's flags and extra ones (where its database is): behind
        nginx, those go to nginx and the server's own to the backend."""
        if not self.behind_nginx:
            return self.system.command(checkout, [*self.flags, *run_flags, *extra], listen,
                                       files_dir)
        front = [checkout.real_system(*FRONT), "--listen", listen, *run_flags, *extra]
        front += ["--dir", files_dir] if files_dir else []
        return [*front, "--", *self.system.launcher(checkout), *self.flags]

    @property
    def real(self):
        return self.system.real

    def label(self, cores):
        """Its name in tables: 'node cluster ×2', 'async calibrated', 'node behind nginx'."""
        name = self.key.removesuffix("-cal").removesuffix("-nginx")
        if self.cluster:
            name = f"{self.system.name} cluster ×{cores}"
        if self.behind_nginx:
            name += " behind nginx"
        return f"{name} calibrated" if self.calibrated else name
