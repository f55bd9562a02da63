"""A system's own loop without HTTP (a model's --standalone, a real system's script): `n`
iterations of the /html workload, the process itself measured and timed like `time`."""

import os

from modelbench.engine import measure
from modelbench.engine.loads.base import StepFailed, Tool, number
from modelbench.engine.measure import read

STANDALONE_MS = 1.0  # an iteration, for the estimate
TIMEOUT_S = 1200


class Standalone(Tool):
    name = "standalone"
    needs_server = False
    local_only = "it runs the system's standalone loop as a local process"

    def text(self, load):
        return f"the /html workload {load.n} times, no HTTP"

    def estimate_s(self, load):
        return load.n * STANDALONE_MS / 1000

    def run(self, attempt):
        """Real from its start to its exit, user and sys from its rusage, whatever it prints."""
        record, iterations = attempt.record, attempt.load.n
        command = [*attempt.server.system.standalone(attempt.recorder.checkout, iterations),
                   *attempt.flags]
        report, errors = attempt.raw("standalone.txt"), attempt.raw("standalone.err")
        record.update(command=" ".join(command), raw=[report, errors], requests=iterations)
        code, sampled = measure.run(command, report, errors, db_pid=attempt.recorder.db_pid,
                                    child_is_server=True, timeout_s=TIMEOUT_S,
                                    log=attempt.recorder.log)
        name = os.path.basename(command[0])
        if code != 0:
            raise StepFailed(f"{name} exited with {code}: {measure.tail(errors)}")
        done = iterations_run(read(report))
        if done != iterations:
            raise StepFailed(f"{name} ran {done} iterations, not {iterations}")
        record["figures"] = {"iterations": iterations,
                             "iterations_per_s": round(iterations / sampled["real_s"], 1),
                             **sampled}

    def summary(self, figures):
        return (f"{figures['iterations']} iterations: real {figures['real_s']:.3f} s, "
                f"user {figures['user_s']:.3f} s, sys {figures['sys_s']:.3f} s, "
                f"{figures['iterations_per_s']:.1f} iterations/s")


def iterations_run(text):
    """N of a standalone loop's 'standalone: N iterations ...' line (models and scripts alike)."""
    return number(r"^standalone: (\d+) iterations", text, "standalone:", int)


def seconds(text, label):
    minutes, rest = number(rf"^{label}\t(\d+m[\d.]+)s$", text, label, str).split("m")
    return int(minutes) * 60 + float(rest)


def parse(text):
    """A model's --standalone report: real/user/sys as `time` prints them, and iterations/s."""
    return {"iterations": iterations_run(text), "real_s": seconds(text, "real"),
            "user_s": seconds(text, "user"), "sys_s": seconds(text, "sys"),
            "iterations_per_s": number(r"^iterations/s\t([\d.]+)$", text, "iterations/s")}
