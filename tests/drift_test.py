"""CTest `repro.drift`: the same verdicts on a quiet host and on one whose speed drifts. Runs
`scripts/reproduce.sh --only E1b --servers blocking,async` twice, first as it is, then with the
whole run (the harness, the servers, ab, the private MariaDB) in a CPU cgroup whose quota
alternates between unlimited and one CPU every 10 to 30 s (tests/drifting_host.py), and checks
that
  - both runs succeeded, and the second was throttled (the drift happened);
  - the quiet run decided at least QUIET_DECIDED sides, so that there is something to hold;
  - no claim side is reproduced in one run and not reproduced in the other, and every side the
    quiet run decides the drifting run decides the same way, but for DRIFT_UNDECIDED at most
    that may fall to inconclusive: a block whose runs met the quota differently is left out, and
    E1b's flat claims for the models, which sit nearer their bounds than the rest, can run out
    of blocks (in two runs read, 0 and 2 fell; none flipped).
Exits 77 (CTest: skipped) where no CPU cgroup can be made (not root, no controller).

  drift_test.py SOURCE_DIR BUILD_DIR [RESULTS_DIR]
"""

import json
import os
import shutil
import subprocess
import sys

from drifting_host import SKIP, Unavailable, drifting

from modelbench.checkout import Checkout
from modelbench.prepare import Database

COMMAND = ["--only", "E1b", "--servers", "blocking,async", "--minutes", "3"]
QUIET_DECIDED = 4
DRIFT_UNDECIDED = 2


def verdicts(directory):
    with open(os.path.join(directory, "summary.json")) as f:
        claims = json.load(f)["claims"]
    return {(c["key"], side): c[side]["verdict"] for c in claims for side in ("real", "models")}


def main():
    source, build = sys.argv[1], sys.argv[2]
    results = sys.argv[3] if len(sys.argv) > 3 else os.path.join(build, "Testing", "drift")
    shutil.rmtree(results, ignore_errors=True)
    env = {**os.environ, "BUILD_DIR": build}
    reproduce = ["bash", os.path.join(source, "scripts", "reproduce.sh"), *COMMAND]
    database = Database(Checkout(build, source))
    # The run starts the database when it is not running: then it is in the group with it.
    db_pid = database.pid() if database.running() else None
    problems = []

    quiet = os.path.join(results, "quiet")
    print("== quiet:", " ".join(reproduce), flush=True)
    status = subprocess.run(reproduce + ["--results-dir", quiet], env=env).returncode
    if status != 0:
        problems.append(f"the quiet run exited with {status}")

    drift = os.path.join(results, "drifting")
    print("== drifting:", " ".join(reproduce), flush=True)
    os.environ["BUILD_DIR"] = build  # the drifting run's environment
    try:
        status, counters = drifting(reproduce + ["--results-dir", drift], db_pid, seed=1)
    except Unavailable as error:
        print(f"drift_test: skipped: {error}")
        return SKIP
    if status != 0:
        problems.append(f"the drifting run exited with {status}")
    if counters["switches"] < 2 or counters["nr_throttled"] == 0:
        problems.append(f"the host did not drift: {counters}")

    if not problems:
        a, b = verdicts(quiet), verdicts(drift)
        decided = ("reproduced", "not reproduced")
        flipped = [k for k in a if a[k] in decided and b.get(k) in decided and a[k] != b[k]]
        fell = [k for k in a if a[k] in decided and b.get(k) == "inconclusive"]
        other = [k for k in a if a[k] not in decided and b.get(k) in decided]
        quiet_decided = sum(v in decided for v in a.values())
        print(f"== {len(a)} claim sides; quiet decided {quiet_decided}; "
              f"flipped {flipped}; fell to inconclusive {fell}; decided only when drifting "
              f"{other}")
        if quiet_decided < QUIET_DECIDED:
            problems.append(f"the quiet run decided {quiet_decided} sides, fewer than "
                            f"{QUIET_DECIDED}: nothing much to hold the drifting run to")
        if flipped:
            problems.append(f"verdicts flipped between the quiet and the drifting run: {flipped}")
        if len(fell) > DRIFT_UNDECIDED:
            problems.append(f"{len(fell)} sides the quiet run decided fell to inconclusive: "
                            f"{fell}")
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
