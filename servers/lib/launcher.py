"""What the launchers of the real systems that are made of several daemons share (behind-nginx,
fpm-server, apache-fpm-server): the command line every server of the project takes, a free port,
the private instance directory under the checkout's var/, the daemons started in sessions of
their own, the ready check, the log files copied to stderr, and the stop.

The contract, the same as servers/php/apache-server's and servers/node/node-server's:
`--listen HOST:PORT` (port 0: a free one, then printed), `--backlog N`, the database flags with
their MYSQL_* fallbacks, `--dir DIR`; "listening on http://HOST:PORT/" on stdout once /hello
answers; SIGTERM or SIGINT to the launcher alone stops its whole tree, gracefully within a bound,
then by force, and it exits 0; exit 1 when it cannot start, 2 on bad arguments.

Standard library only, under Debian's /usr/bin/python3. Not the harness's (scripts/modelbench):
a launcher is a server, it knows nothing of the harness that starts it.
"""

import argparse
import ctypes
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = os.path.join(ROOT, "servers", "php", "pages")
# The graceful stop's bound, the C++ servers' --timeout and apache-server's: requests in flight
# get this long to finish, then what is left is stopped by force.
GRACEFUL_S = 30.0
READY_TIMEOUT_S = 20.0
# How long a daemon stopped by force may take to go before its whole process group is killed.
FORCED_S = 3.0

# The database settings: flag, attribute, environment variable, default (as apache-server).
DB_SETTINGS = [
    ("--db-host", "db_host", "MYSQL_HOST", "127.0.0.1", "database host"),
    ("--db-port", "db_port", "MYSQL_TCP_PORT", "3307", "database TCP port"),
    ("--db-socket", "db_socket", "MYSQL_UNIX_PORT", "", "unix socket; when set, used instead of TCP"),
    ("--db-user", "db_user", "MYSQL_USER", "bench", "database user"),
    ("--db-password", "db_password", "MYSQL_PWD", "bench", "database password"),
    ("--db-name", "db_name", "MYSQL_DATABASE", "sampledb", "database name"),
]


class StartFailed(Exception):
    """The system did not start: exit 1 with this message."""


class Parser(argparse.ArgumentParser):
    """argparse that says which command failed, exits 2 on bad arguments, as the others."""

    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: {message}\n")
        sys.exit(2)


def listen_address(text):
    """HOST:PORT, HOST an IPv4 address, a name or [IPv6]: (host, port)."""
    match = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]\s]+):([0-9]{1,5})", text)
    if not match or int(match.group(2)) > 65535:
        raise argparse.ArgumentTypeError(f"wants HOST:PORT, not '{text}'")
    return match.group(1), int(match.group(2))


def bounded_int(low, high):
    def parse(text):
        if not re.fullmatch(r"[0-9]{1,7}", text) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"bad value '{text}' ({low} to {high})")
        return int(text)
    return parse


def parser(prog, description, default_port, epilog):
    """The flags every launcher takes; the caller adds its own, then calls parse()."""
    p = Parser(prog=prog, description=description, epilog=epilog,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--listen", type=listen_address, default=("127.0.0.1", default_port),
                   metavar="HOST:PORT",
                   help=f"address to listen on (default 127.0.0.1:{default_port}; port 0: a free port)")
    p.add_argument("--backlog", type=bounded_int(1, 999999), default=511, metavar="N",
                   help="the listen queue of the front server's port (default 511, nginx's and Apache's)")
    p.add_argument("--dir", metavar="DIR",
                   help="instance directory: configuration, pid files, logs (default var/NAME/PORT "
                        "of the checkout)")
    p.add_argument("--access-log", metavar="FILE", help="also write an access log of the front server")
    for flag, dest, env, default, what in DB_SETTINGS:
        shown = f" (default {default})" if default else ""
        p.add_argument(flag, dest=dest, metavar=flag.split("-")[-1].upper(), help=f"{what} [{env}]{shown}")
    return p


def parse(p, argv=None):
    """The arguments, the database settings resolved: flag, else environment, else default.
    args.db_given: the database flags given on the command line, as they were."""
    args = p.parse_args(argv)
    args.db_given = []
    for flag, dest, env, default, _ in DB_SETTINGS:
        value = getattr(args, dest)
        if value is not None:
            args.db_given += [flag, value]
        else:
            value = os.environ.get(env)
            # An empty variable is unset, but for the password, which may be empty.
            if value is None or (value == "" and dest != "db_password"):
                value = default
        setattr(args, dest, value)
    if not re.fullmatch(r"[0-9]{1,5}", args.db_port) or not 1 <= int(args.db_port) <= 65535:
        p.error(f"--db-port: bad port '{args.db_port}'")
    args.host, args.port = args.listen
    return args


def db_environment(args):
    """The MYSQL_* variables the PHP pages read (workload.php), from the resolved settings."""
    env = {"MYSQL_HOST": args.db_host, "MYSQL_TCP_PORT": args.db_port, "MYSQL_USER": args.db_user,
           "MYSQL_PWD": args.db_password, "MYSQL_DATABASE": args.db_name}
    if args.db_socket:
        env["MYSQL_UNIX_PORT"] = args.db_socket
    return env


def connect_host(host):
    """What to connect to for a listening address: the loopback for a wildcard."""
    return {"0.0.0.0": "127.0.0.1", "[::]": "::1"}.get(host, host.strip("[]"))


def free_port(host):
    """A port free on host now (another process may take it before it is bound: see attempts)."""
    bare = host.strip("[]")
    with socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET) as s:
        try:
            s.bind((bare, 0))
        except OSError as error:
            raise StartFailed(f"no free port on {host}: {error}") from error
        return s.getsockname()[1]


def instance_dir(args, name, port):
    """--dir, else var/NAME/PORT of the checkout, absolute, created."""
    path = os.path.abspath(args.dir) if args.dir else os.path.join(ROOT, "var", name, str(port))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise StartFailed(f"cannot create {path}: {error}") from error
    return path


def refuse_if_running(pid_file):
    """StartFailed when pid_file names a process that still runs: another instance in the same
    directory (its stop would remove this one's socket and pid files)."""
    try:
        with open(pid_file) as f:
            pid = int(f.read().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return
    raise StartFailed(f"another instance runs in {os.path.dirname(pid_file)} (pid {pid} in "
                      f"{pid_file}): stop it, or give another --dir or port")


def as_root():
    return os.geteuid() == 0


def www_data_ids():
    import pwd
    entry = pwd.getpwnam("www-data")
    return entry.pw_uid, entry.pw_gid


def www_data_can(test, path):
    """runuser -u www-data -- test TEST PATH: whether the daemons' children, which run as
    www-data when started as root, can read (-r) or traverse (-x) it."""
    return subprocess.run(["runuser", "-u", "www-data", "--", "test", test, path],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def give_to_www_data(*paths):
    """chown to www-data, as root, the directories its processes must write (nginx's temp
    directories)."""
    if as_root():
        uid, gid = www_data_ids()
        for path in paths:
            os.chown(path, uid, gid)


class Pages:
    """The PHP pages of servers/php/pages, or a copy in /tmp when www-data cannot read them
    there (a checkout under a home directory of mode 700), as apache-server serves them."""

    def __init__(self, me):
        self.path = PAGES
        self.copy = None
        if as_root() and not www_data_can("-r", os.path.join(PAGES, "html.php")):
            self.copy = tempfile.mkdtemp(prefix="modelbench-php.")
            for name in os.listdir(PAGES):
                if name.endswith(".php"):
                    shutil.copy(os.path.join(PAGES, name), self.copy)
                    os.chmod(os.path.join(self.copy, name), 0o644)
            os.chmod(self.copy, 0o755)
            self.path = self.copy
            log(me, f"www-data cannot read {PAGES}; serving a copy in {self.copy}")

    def remove(self):
        if self.copy:
            shutil.rmtree(self.copy, ignore_errors=True)


def log(me, message):
    sys.stderr.write(f"{me}: {message}\n")
    sys.stderr.flush()


try:
    # Loaded now, not in a child between fork and exec (a lock another thread holds stays held).
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:
    _LIBC = None
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _die_with_parent():
    """In the child before exec: SIGTERM when the launcher dies without stopping it (a SIGKILL),
    so that a daemon does not outlive it; and its own session, so that a Ctrl-C on the
    terminal reaches the launcher, which stops the daemons in order, and not the daemons."""
    os.setsid()
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)


class Daemon:
    """A program of the system, started in a session of its own. graceful and forced: the
    signals of its graceful stop and of its stop at once."""

    def __init__(self, name, argv, graceful=signal.SIGTERM, forced=signal.SIGTERM, env=None,
                 stdout=None):
        self.name = name
        self.argv = argv
        self.graceful = graceful
        self.forced = forced
        try:
            self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout,
                                            env=env, preexec_fn=_die_with_parent)
        except OSError as error:
            raise StartFailed(f"cannot start {argv[0]}: {error}") from error

    @property
    def pid(self):
        return self.process.pid

    def running(self):
        return self.process.poll() is None

    def signal(self, sig):
        if self.running():
            try:
                self.process.send_signal(sig)
            except ProcessLookupError:
                pass

    def wait(self, timeout_s):
        """True once it has exited (reaped) within timeout_s."""
        try:
            self.process.wait(max(timeout_s, 0))
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill_group(self):
        """SIGKILL to its process group: the daemon, or what it left there."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.wait(FORCED_S)


class LogCopy:
    """Copies the lines appended to these files to our stderr while the system runs, as
    apache-server copies Apache's error log: the daemons' messages and what the pages write to
    their stderr (the /tasks lines)."""

    def __init__(self, paths):
        self.paths = paths
        self.offsets = {}
        for path in paths:
            open(path, "ab").close()
            self.offsets[path] = os.path.getsize(path)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _copy(self):
        for path in self.paths:
            try:
                with open(path, "rb") as f:
                    f.seek(self.offsets[path])
                    data = f.read()
            except OSError:
                continue
            # Whole lines only; a line still being written waits for the next round.
            end = data.rfind(b"\n") + 1
            if end:
                sys.stderr.buffer.write(data[:end])
                sys.stderr.buffer.flush()
                self.offsets[path] += end

    def _run(self):
        while not self._done.wait(0.05):
            self._copy()

    def stop(self):
        self._done.set()
        self._thread.join()
        self._copy()


def answers_200(host, port, path="/hello", timeout_s=2.0):
    connection = http.client.HTTPConnection(connect_host(host), port, timeout=timeout_s)
    try:
        connection.request("GET", path)
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def descendants(pid):
    """The pids below pid now, from /proc (children of children...)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    found, pending = [], [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


class Supervisor:
    """The daemons of one system, front last: started in order, stopped front first (the front
    finishes the requests in flight, which need the ones behind it).

    Signals: the first SIGTERM or SIGINT starts the graceful stop, a second one stops at once."""

    def __init__(self, me):
        self.me = me
        # A process of the tree whose parent ends comes to us rather than to init, so that the
        # last sweep of stop() finds it.
        if _LIBC is not None:
            _LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        self.daemons = []
        self.signals = 0
        self.cleanups = []
        self._wake = threading.Event()
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum, frame):
        self.signals += 1
        self._wake.set()
        if self.signals > 1:
            for daemon in self.daemons:
                daemon.signal(daemon.forced)

    def start(self, daemon):
        self.daemons.append(daemon)
        return daemon

    def sleep(self, seconds):
        """Sleeps, or less when a signal comes; True when one has come."""
        self._wake.wait(seconds)
        return self.signals > 0

    def dead(self):
        """The first daemon that has exited, or None."""
        return next((d for d in self.daemons if not d.running()), None)

    def wait_ready(self, host, port, extra_check=None, timeout_s=READY_TIMEOUT_S):
        """Until GET /hello answers 200 (and extra_check() holds): True; False when a daemon
        exited, a signal came, or timeout_s passed."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.signals or self.dead():
                return False
            if (extra_check is None or extra_check()) and answers_200(host, port):
                return True
            if self.sleep(0.1):
                return False
        return False

    def serve(self):
        """Until a signal (then 0) or a daemon's own exit (StartFailed's message, exit 1)."""
        while not self.sleep(0.2):
            dead = self.dead()
            if dead is not None:
                raise StartFailed(f"{dead.name} exited unexpectedly (status {dead.process.returncode})")
        return 0

    def stop(self):
        """Front first, each with its graceful signal within what is left of GRACEFUL_S, then its
        forced one, then SIGKILL to its process group; then anything left below us."""
        deadline = time.monotonic() + GRACEFUL_S
        for daemon in reversed(self.daemons):
            if not daemon.running():
                daemon.wait(0)
                continue
            daemon.signal(daemon.forced if self.signals > 1 else daemon.graceful)
            if daemon.wait(max(deadline - time.monotonic(), 2.0) if self.signals <= 1 else FORCED_S):
                continue
            log(self.me, f"{daemon.name} (pid {daemon.pid}) did not stop in time: stopping it at once")
            daemon.signal(daemon.forced)
            if not daemon.wait(FORCED_S):
                daemon.kill_group()
        # What a daemon left in its process group, then anything else still below us (reaped:
        # an orphan of the tree is ours as the subreaper).
        for daemon in self.daemons:
            daemon.kill_group()
        for pid in descendants(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + FORCED_S
        while time.monotonic() < deadline:
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    if not descendants(os.getpid()):
                        break
                    time.sleep(0.02)
            except ChildProcessError:
                break
        for cleanup in reversed(self.cleanups):
            cleanup()
        self.cleanups = []


def run(me, body):
    """Runs body(supervisor) -> exit status; StartFailed is exit 1 with its message, after the stop
    of whatever had started."""
    supervisor = Supervisor(me)
    status = 1
    try:
        status = body(supervisor)
    except StartFailed as error:
        # A signal while it started: stopped as asked, not a failure.
        status = 0 if supervisor.signals else 1
        if not supervisor.signals:
            log(me, str(error))
    finally:
        supervisor.stop()
    return status


def ready_line(host, port):
    print(f"listening on http://{host}:{port}/", flush=True)


def tail(path, lines=5):
    try:
        with open(path, errors="replace") as f:
            return " | ".join(line.strip() for line in f.read().splitlines()[-lines:] if line.strip())
    except OSError:
        return ""


def serve_front(supervisor, me, args, port, directory, name, pid_file, start):
    """Starts the front server (the one on --listen) with start(port) -> Daemon, whose error log
    is DIR/error.log and pid file pid_file; waits until /hello answers through it, prints
    the ready line, serves until a signal (supervisor.serve). With --listen HOST:0, a port taken
    before the front bound it is tried again with another free port, at most 3 times."""
    error_log = os.path.join(directory, "error.log")
    refuse_if_running(pid_file)
    attempts = 3 if args.port == 0 else 1
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            port = free_port(args.host)
        if os.path.exists(pid_file):
            os.unlink(pid_file)
        copy = LogCopy([error_log])
        supervisor.cleanups.append(copy.stop)
        front = supervisor.start(start(port))
        if supervisor.wait_ready(args.host, port, lambda: os.path.exists(pid_file)):
            log(me, f"{name} master pid {front.pid}, configuration and error.log in {directory}")
            ready_line(args.host, port)
            return supervisor.serve()
        if supervisor.signals:
            return 0
        front.signal(signal.SIGTERM)
        if not front.wait(FORCED_S):
            front.kill_group()
        supervisor.daemons.remove(front)
        copy.stop()
        supervisor.cleanups.remove(copy.stop)
        if "Address already in use" not in tail(error_log, 20):
            break
    raise StartFailed(f"{name} did not start on {args.host}:{port} (config and log in "
                      f"{directory}): {tail(error_log, 3)}")
