"""The measuring harness behind scripts/reproduce.sh, bench.sh, stress.sh, serve.sh and
profile.sh, run under Debian's /usr/bin/python3 (the one with python3-psutil). Its rooms, each
importing only those before it: systems, engine, report, experiments, the verbs
(docs/architecture.md, "The harness")."""
