"""What tripped the posts up, checked before the runs: open files, somaxconn against the servers'
backlog, ephemeral ports and TIME_WAIT reuse. A warning gives its fix; none is applied."""

from modelbench import verb
from modelbench.engine import machine
from modelbench.experiments.e2 import POSTS_BACKLOG, SERVERS_BACKLOG as SERVER_BACKLOG
from modelbench.experiments.e2 import somaxconn


def open_files_needed(users, held=0):
    """The open files a run's processes need: siege's users and the server's side of them, or
    held idle connections (E8), which the harness and the server each hold one end of; and room
    for the rest."""
    return max(2 * users, held) + 400


def system_checks(log, users, burst, held=0):
    """The check lines ('- ok: ...', '- warning: ... Fix: `...`'), each also logged. users: a run's
    most concurrent clients; burst: the most new connections a run opens; held: the most idle
    connections a run holds. The open-file limit is raised for this process and what it starts
    (the servers), which ends with them: nothing of the machine's changes."""
    lines = []

    def check(text, fix=""):
        line = f"- warning: {text} Fix: `{fix}`" if fix else f"- ok: {text}"
        lines.append(line)
        log(f"  {line}")

    _, text, fix = verb.open_files(open_files_needed(users, held))
    check(text, fix)

    cap = somaxconn()
    syn_backlog = machine.sysctl("net.ipv4.tcp_max_syn_backlog")
    if cap < SERVER_BACKLOG:
        check(f"listen backlog: net.core.somaxconn is {cap}, so the servers' --backlog "
              f"{SERVER_BACKLOG} is cut to {cap}; bursts of new connections overflow the queue "
              "and wait for a SYN retransmit (1 s, then 3 s: E2's 3 s longest request).",
              "sysctl -w net.core.somaxconn=4096")
    else:
        check(f"listen backlog: net.core.somaxconn {cap} ≥ the servers' --backlog "
              f"{SERVER_BACKLOG} (tcp_max_syn_backlog {syn_backlog}); E2 also runs with "
              f"--backlog {POSTS_BACKLOG}, the cap of the posts' kernels.")

    ports = machine.ephemeral_ports()
    ports_text = f"ephemeral ports: {len(ports)} ({ports[0]}–{ports[-1]})"
    tw_reuse = machine.sysctl("net.ipv4.tcp_tw_reuse")
    # Without keep-alive every request is a new connection whose port pair then stays in
    # TIME_WAIT for 60 s.
    if tw_reuse == "0":
        check(f"{ports_text} and net.ipv4.tcp_tw_reuse 0: port pairs in TIME_WAIT are not "
              f"reused, and the heaviest run opens about {burst} connections; runs wait for them "
              "to drain ('Cannot assign requested address', E4's client-side failures, without "
              "that).", "sysctl -w net.ipv4.tcp_tw_reuse=1")
    else:
        check(f"{ports_text}; tcp_tw_reuse {tw_reuse} (1: always, 2: loopback only): a run "
              "waits for port pairs in TIME_WAIT only where they are not reused.")
    return lines
