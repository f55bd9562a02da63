"""PHP-FPM 8.2, a private pool running the PHP pages of servers/php/pages: its configuration,
written into the instance directory at every start, and its start. Never the machine's
php8.2-fpm service, never /etc/php/8.2/fpm/php-fpm.conf or its pool.d: php-fpm8.2 --nodaemonize
--fpm-config DIR/php-fpm.conf. PHP itself reads Debian's php.ini for the fpm SAPI, as Apache's
mod_php reads the apache2 one.

The pool:
- --fpm-listen tcp (127.0.0.1, a free port) or unix (DIR/php-fpm.sock, the web server's workers
  as www-data may connect).
- --fpm-backlog N: listen.backlog, the queue of connections that no child has accepted yet
  (PHP 8.2's default 511; the kernel caps it at net.core.somaxconn). It decides whether a burst
  of more connections than busy children fails: on a unix socket a full queue refuses the
  connection at once (EAGAIN, which nginx answers with 502), on TCP the SYN is dropped and the
  kernel tries again a second later, so the request is late, not lost.
- --pm static:N, dynamic:MAX:START:MIN_SPARE:MAX_SPARE or ondemand:MAX (pm, pm.max_children,
  pm.start_servers, pm.min_spare_servers, pm.max_spare_servers); each launcher has its default
  and says why.
- The children's stderr (the /tasks lines) is caught and written undecorated to DIR/php-fpm.log,
  which the launcher copies to stderr; the MYSQL_* settings reach the pages through env[] from
  FPM's own environment (no quoting of the values in the file).
- process_control_timeout bounds a graceful stop (SIGQUIT), as the launchers' 30 s.
"""

import os
import re
import signal
import socket
import time

import launcher

PHP_FPM = "/usr/sbin/php-fpm8.2"
SOCKET_NAME = "php-fpm.sock"


def parse_pm(text):
    """--pm's value: a dict of pm.* settings. Raises ValueError with what is wrong."""
    kind, _, rest = text.partition(":")
    numbers = rest.split(":") if rest else []
    if not all(re.fullmatch(r"[0-9]{1,5}", n) and int(n) >= 0 for n in numbers):
        raise ValueError(f"'{text}': the numbers must be integers")
    values = [int(n) for n in numbers]
    if kind in ("static", "ondemand") and len(values) == 1 and values[0] >= 1:
        return {"pm": kind, "pm.max_children": values[0]}
    if kind == "dynamic" and len(values) == 4:
        most, start, low, high = values
        if not (most >= 1 and 1 <= low <= start <= high <= most):
            raise ValueError(f"'{text}': wants 1 <= MIN_SPARE <= START <= MAX_SPARE <= MAX")
        return {"pm": "dynamic", "pm.max_children": most, "pm.start_servers": start,
                "pm.min_spare_servers": low, "pm.max_spare_servers": high}
    raise ValueError(f"'{text}' is none of static:N, dynamic:MAX:START:MIN_SPARE:MAX_SPARE, "
                     "ondemand:MAX")


def pm_type(text):
    import argparse
    try:
        return parse_pm(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def describe_pm(pm):
    return ", ".join(f"{k} = {v}" for k, v in pm.items())


def add_flags(parser, default_listen, default_pm, pm_why):
    parser.add_argument("--fpm-listen", choices=("tcp", "unix"), default=default_listen,
                        help=f"how the web server reaches FPM: a TCP port on 127.0.0.1, or a unix "
                             f"socket in DIR (default {default_listen})")
    parser.add_argument("--fpm-backlog", type=launcher.bounded_int(1, 999999), default=511,
                        metavar="N", help="FPM's listen.backlog (default 511, PHP 8.2's)")
    parser.add_argument("--pm", type=pm_type, default=parse_pm(default_pm), metavar="SPEC",
                        help=f"the pool: static:N, dynamic:MAX:START:MIN_SPARE:MAX_SPARE or "
                             f"ondemand:MAX (default {default_pm}: {pm_why})")


def write_config(directory, listen, backlog, pm, db_names):
    user = "user = www-data\ngroup = www-data\n" if launcher.as_root() else ""
    owner = ("listen.owner = www-data\nlisten.group = www-data\nlisten.mode = 0660\n"
             if launcher.as_root() and listen.startswith("/") else "")
    env = "".join(f"env[{name}] = ${name}\n" for name in db_names)
    settings = "".join(f"{k} = {v}\n" for k, v in pm.items())
    conf = f"""; Written by the launcher for this instance; rewritten at every start. Why each setting:
; servers/lib/fpm.py and docs/real-systems.md.
[global]
pid = {directory}/php-fpm.pid
error_log = {directory}/php-fpm.log
log_level = notice
daemonize = no
process_control_timeout = {int(launcher.GRACEFUL_S)}s

[www]
{user}listen = {listen}
listen.backlog = {backlog}
{owner}{settings}catch_workers_output = yes
decorate_workers_output = no
clear_env = yes
{env}"""
    path = os.path.join(directory, "php-fpm.conf")
    with open(path, "w") as f:
        f.write(conf)
    return path


def _accepts(listen):
    family = socket.AF_UNIX if listen.startswith("/") else socket.AF_INET
    address = listen if family == socket.AF_UNIX else ("127.0.0.1", int(listen.rpartition(":")[2]))
    with socket.socket(family) as s:
        s.settimeout(1)
        try:
            s.connect(address)
            return True
        except OSError:
            return False


class Pool:
    """A started pool: .address, what nginx's fastcgi_pass takes ("127.0.0.1:PORT" or
    "unix:PATH"), and .apache_handler, what Apache's SetHandler takes."""

    def __init__(self, supervisor, me, args, directory):
        if not os.access(PHP_FPM, os.X_OK):
            raise launcher.StartFailed(f"{PHP_FPM} is not installed (php8.2-fpm): run scripts/deps.sh")
        if launcher.as_root() and not launcher.www_data_can("-x", directory):
            raise launcher.StartFailed(f"www-data cannot reach {directory}, where FPM's socket and "
                                       "the pages' paths must be: give --dir elsewhere")
        if args.fpm_listen == "unix":
            listen = os.path.join(directory, SOCKET_NAME)
            if len(listen.encode()) > 107:
                raise launcher.StartFailed(f"{listen}: too long for a unix socket's path; give a "
                                           "shorter --dir")
            self.address = f"unix:{listen}"
            self.apache_handler = f"proxy:unix:{listen}|fcgi://localhost"
        else:
            port = launcher.free_port("127.0.0.1")
            listen = f"127.0.0.1:{port}"
            self.address = listen
            self.apache_handler = f"proxy:fcgi://{listen}"
        self.listen = listen
        self.log = os.path.join(directory, "php-fpm.log")
        pid_file = os.path.join(directory, "php-fpm.pid")
        launcher.refuse_if_running(pid_file)
        for stale in (pid_file, os.path.join(directory, SOCKET_NAME)):
            if os.path.exists(stale):
                os.unlink(stale)
        db_env = launcher.db_environment(args)
        write_config(directory, listen, args.fpm_backlog, args.pm, sorted(db_env))
        self.copy = launcher.LogCopy([self.log])
        supervisor.cleanups.append(self.copy.stop)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **db_env}
        self.daemon = supervisor.start(launcher.Daemon(
            "PHP-FPM", [PHP_FPM, "--nodaemonize", "--fpm-config", os.path.join(directory, "php-fpm.conf")],
            graceful=signal.SIGQUIT, forced=signal.SIGTERM, env=env))
        deadline = time.monotonic() + launcher.READY_TIMEOUT_S
        while not (os.path.exists(pid_file) and _accepts(listen)):
            if not self.daemon.running() or time.monotonic() > deadline or supervisor.sleep(0.05):
                if supervisor.signals:
                    raise launcher.StartFailed("stopped while PHP-FPM started")
                raise launcher.StartFailed(f"PHP-FPM did not start (config and log in {directory}): "
                                           f"{launcher.tail(self.log, 3)}")
        launcher.log(me, f"PHP-FPM master pid {self.daemon.pid} on {listen}: "
                         f"{describe_pm(args.pm)}, listen.backlog = {args.fpm_backlog}")
