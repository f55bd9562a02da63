"""The harness's one entry point: `python3 -m modelbench VERB [options]`, which the scripts in
scripts/ run once they have made sure of Python and psutil. Every verb's flags are parsed here,
by its module's add_arguments (--help comes from the parser), and run under verb.run.

  reproduce   the posts' experiments (scripts/reproduce.sh)
  bench       each server against the database's ceiling and nginx (scripts/bench.sh)
  stress      overload, slow clients, database faults, leaks, memory (scripts/stress.sh)
  serve       one system as a target, in the foreground (scripts/serve.sh)
  profile     one model under callgrind (scripts/profile.sh)
"""

import argparse
import sys

from modelbench import bench, profile, reproduce, serve, stress, verb

VERBS = {"reproduce": reproduce, "bench": bench, "stress": stress, "serve": serve,
         "profile": profile}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in VERBS:
        print(__doc__, file=sys.stderr if argv and argv[0] not in ("-h", "--help") else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module = VERBS[argv[0]]
    parser = argparse.ArgumentParser(prog=f"scripts/{argv[0]}.sh", description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    return verb.run(argv[0], lambda: module.run(parser.parse_args(argv[1:]), parser))


if __name__ == "__main__":
    sys.exit(main())
