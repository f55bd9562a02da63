"""The measuring harness behind scripts/reproduce.sh, bench.sh, stress.sh, serve.sh and
profile.sh: one package, one entry point (python3 -m modelbench VERB), run under Debian's
/usr/bin/python3, the interpreter that has python3-psutil. Its rooms, each importing only those
before it here (docs/architecture.md, "The harness"):

  systems      what can be started as a target, one module per system
  engine       plans as data, and the one engine that starts, warms up, measures and records
  report       results, verdicts, tables, plots, report.md, summary.json, the comparison
  experiments  the posts' experiments, one module per experiment, in one shape
  verbs        reproduce, bench, stress, serve, profile; prepare (packages, build, database),
               checks (system limits), remote (targets elsewhere), checkout (where things are)
"""
