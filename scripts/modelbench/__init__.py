"""The measuring harness behind scripts/reproduce.sh, bench.sh, stress.sh, serve.sh and
profile.sh, and the load checks of the tests. The bash entry points prepare (packages, build,
database) and run its modules as `python3 -m modelbench.NAME` with scripts/ on PYTHONPATH
(scripts/lib/cli.sh), under Debian's /usr/bin/python3, the interpreter that has python3-psutil.

  checkout    where the built binaries, tools and scripts of this checkout are
  targets     the servers under load: kinds that can be started, started processes, their URLs
  processes   CPU, threads, descriptors and memory of a process tree (psutil)
  machine     the shared machine: its load, a gate that waits for a quiet one, open-file limit
  httpclient  plain HTTP requests: one reply, many at once, connections held open
  loadtools   ab, siege and slowhttptest: command lines and the parsers of their outputs
  measure     a command run while the server, mariadbd and the machine are sampled
  runs        one measured run of a load tool, recorded as runs/ID.json beside its raw outputs
  repeats     figures of repeated runs: median, range, and verdicts against a criterion
  tables      figures and Markdown tables for the reports
  reproduce/  the posts' experiments on four systems (scripts/reproduce.sh): plan, checks,
              results, report, findings, plots
  bench/      each server against the database's ceiling (scripts/bench.sh) and its report
  stress/     overload, slow clients, database faults, leaks, memory (scripts/stress.sh)
  serve, profile, abcheck   scripts/serve.sh, scripts/profile.sh, tests/load/ab_check.sh
"""
