"""nginx as E2's post ran it, a private instance: its configuration, written into the instance
directory at every start, and its command line. Never the machine's nginx service, never
/etc/nginx: nginx -p DIR -c DIR/nginx.conf -e DIR/error.log, its pid file, logs and temporary
directories in DIR.

The settings and why:
- worker_processes 1: the post's nginx 0.8.53 shipped nginx.conf with one worker, and it ran
  that (it names no tuning); Debian's own file says auto (a worker per core).
- worker_connections 1024, the sample nginx.conf of that era: -c 200 through a proxy holds 400
  connections (client and upstream), well within it. behind-nginx --worker-connections N raises
  it (E8 holds up to 10,000 idle connections; each also needs an open file, RLIMIT_NOFILE).
- proxy_pass with nginx's defaults: HTTP/1.0 to the backend and a new connection per request.
  nginx 0.8 had no keepalive to upstreams (it came in 1.1.4); --upstream-keepalive N turns the
  later practice on (HTTP/1.1, N idle connections kept per worker).
- fastcgi_pass with nginx's defaults likewise: a new FastCGI connection per request
  (fastcgi_keep_conn off).
- The listen queue is --backlog (nginx's default 511); the kernel caps it at
  net.core.somaxconn.
- No access log unless --access-log (a log line per request is a cost the C++ servers do not
  pay by default); warnings and errors to DIR/error.log, which the launcher copies to stderr.
- worker_shutdown_timeout bounds a graceful stop (SIGQUIT), as the launchers' 30 s.
"""

import os
import signal

import launcher
from launcher import GRACEFUL_S, as_root, give_to_www_data

NGINX = "/usr/sbin/nginx"
TEXT = "text/plain; charset=utf-8"
WORKER_CONNECTIONS = 1024


def quote(value):
    """A string for nginx's configuration: double quotes, with \\ and " escaped."""
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def listen_directive(host, port, backlog):
    return f"listen {host}:{port} backlog={backlog};"


def hello_location():
    """nginx answering /hello itself, the bytes of every other system's /hello: the reference
    for what a connection through nginx costs with no backend behind it."""
    return (f"location = /hello {{\n"
            f"            default_type {quote(TEXT)};\n"
            f"            return 200 {quote('Hello World! 10' + chr(10))};\n"
            f"        }}")


def not_found_location():
    """Every other path, with the C++ servers' 404 body."""
    return (f"location / {{\n"
            f"            default_type {quote(TEXT)};\n"
            f"            return 404 {quote('no such endpoint' + chr(10))};\n"
            f"        }}")


def write_config(directory, host, port, backlog, locations, upstream="", access_log=None,
                 worker_connections=WORKER_CONNECTIONS):
    """DIR/nginx.conf serving locations (text of location blocks) on host:port; upstream: text
    of upstream blocks. Creates the temporary directories, writable by the workers."""
    temp = os.path.join(directory, "temp")
    paths = {}
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        paths[name] = os.path.join(temp, name)
        os.makedirs(paths[name], exist_ok=True)
    give_to_www_data(temp, *paths.values())
    user = "user www-data www-data;\n" if as_root() else ""
    log = (f"access_log {quote(access_log)};" if access_log else "access_log off;")
    conf = f"""# Written by the launcher for this instance; rewritten at every start. Why each setting:
# servers/lib/nginx.py and docs/real-systems.md.
{user}worker_processes 1;
worker_shutdown_timeout {int(GRACEFUL_S)}s;
pid {quote(os.path.join(directory, "nginx.pid"))};
error_log {quote(os.path.join(directory, "error.log"))} warn;
daemon off;
master_process on;

events {{
    worker_connections {worker_connections};
}}

http {{
    {log}
    client_body_temp_path {quote(paths["client_body"])};
    proxy_temp_path {quote(paths["proxy"])};
    fastcgi_temp_path {quote(paths["fastcgi"])};
    uwsgi_temp_path {quote(paths["uwsgi"])};
    scgi_temp_path {quote(paths["scgi"])};
    keepalive_timeout 65;
{upstream}
    server {{
        {listen_directive(host, port, backlog)}
        server_name _;
        {locations}
    }}
}}
"""
    path = os.path.join(directory, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    return path


def command(directory):
    return [NGINX, "-p", directory, "-c", os.path.join(directory, "nginx.conf"),
            "-e", os.path.join(directory, "error.log")]


def serve(supervisor, me, args, locations, upstream="", directory=None, port=None,
          worker_connections=WORKER_CONNECTIONS):
    """nginx on --listen (port: chosen already, else --listen's or a free one) with these
    locations, until a signal: launcher.serve_front. directory: the instance's (default: --dir,
    else var/nginx/PORT)."""
    port = port or args.port or launcher.free_port(args.host)
    directory = directory or launcher.instance_dir(args, "nginx", port)

    def start(port):
        write_config(directory, args.host, port, args.backlog, locations, upstream, args.access_log,
                     worker_connections)
        return launcher.Daemon("nginx", command(directory), graceful=signal.SIGQUIT,
                               forced=signal.SIGTERM)

    return launcher.serve_front(supervisor, me, args, port, directory, "nginx",
                                os.path.join(directory, "nginx.pid"), start)
