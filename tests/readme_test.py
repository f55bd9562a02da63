"""CTest `readme_commands`: every command README.md shows still works, each in a quick form.

The commands are the `$ ` lines of its console blocks and the inline code that starts with
`scripts/` or `ctest`. Quick forms: `scripts/serve.sh NAME ...` runs `scripts/serve.sh NAME
--help` (NAME's own help, after preparing what NAME needs); `scripts/reproduce.sh FLAGS` runs with
`--list` added (`--compare` on two recorded summaries, or one against the reference run as README
shows it; `--readme`: its `--help`); `scripts/test.sh FLAGS`, `bench.sh`,
`stress.sh` and `profile.sh` run `--help`, and every flag README gives them must be in it; `ctest
ARGS` runs with `-N` and must list a test. Every `--flag` that README's text gives reproduce.sh
(the paragraph that names it) must be in reproduce.sh's `--help`.

  readme_test.py SOURCE_DIR BUILD_DIR
"""

import os
import re
import shlex
import shutil
import subprocess
import sys

HELP_ONLY = ("scripts/test.sh", "scripts/bench.sh", "scripts/stress.sh", "scripts/profile.sh")
SUMMARIES = ("summary-smoke-a.json", "summary-smoke-b.json")

failures = []


def check(condition, message):
    print(("ok    " if condition else "FAIL  ") + message, flush=True)
    if not condition:
        failures.append(message)


def commands(text):
    """The commands README shows, as argument lists (a console line's comment dropped)."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, re.DOTALL):
        found += [line[2:].split(" #")[0] for line in block.splitlines() if line.startswith("$ ")]
    found += re.findall(r"`((?:scripts/|ctest )[^`]*)`", text)
    return [shlex.split(command) for command in dict.fromkeys(c.strip() for c in found)]


def run(source, build, argv, timeout=600):
    env = {**os.environ, "BUILD_DIR": build}
    result = subprocess.run(argv, cwd=source, env=env, capture_output=True, text=True,
                            timeout=timeout, stdin=subprocess.DEVNULL)
    return result.returncode, result.stdout + result.stderr


def recorded_runs(source, scratch):
    """Two result directories with the harness tests' recorded summaries."""
    directories = []
    for name in SUMMARIES:
        directory = os.path.join(scratch, name.removesuffix(".json"))
        os.makedirs(directory, exist_ok=True)
        shutil.copy(os.path.join(source, "tests", "harness", "data", name),
                    os.path.join(directory, "summary.json"))
        directories.append(directory)
    return directories


def quick(source, build, argv):
    """(the quick form of argv, the texts its output must contain)."""
    program, args = argv[0], argv[1:]
    if program == "scripts/serve.sh":
        return [program, args[0], "--help"], ["--listen"]
    if program == "scripts/reproduce.sh":
        if "--compare" in args:
            # One run given: one recorded run against the reference run (docs/reference/).
            runs = recorded_runs(source, os.path.join(build, "Testing", "readme"))
            return [program, "--compare", *runs[:1 if len(args) == 2 else 2]], ["Verdicts:"]
        if "--readme" in args:  # it rewrites README: tests/harness/test_reference.py runs it
            return [program, "--help"], ["--readme"]
        return [program, *args, "--list"], ["minutes of runs"]
    if program in HELP_ONLY:
        return [program, "--help"], args
    if program == "ctest":
        return ["ctest", *args, "-N"], ["Total Tests:"]
    raise ValueError(f"README shows a command this test has no quick form for: {argv}")


def try_quick_form(source, build, argv):
    """Runs the quick form of a command README shows and checks its exit and output."""
    form, expected = quick(source, build, argv)
    if form[0] == "ctest" and "--test-dir" in form:
        form[form.index("--test-dir") + 1] = build
    code, output = run(source, build, [form[0] if form[0] == "ctest" else
                                       os.path.join(source, form[0]), *form[1:]])
    shown_as = " ".join(argv)
    check(code == 0, f"{shown_as}: as `{' '.join(form)}` exits {code}" +
          (f": {output[-400:]}" if code else ""))
    for wanted in expected:
        check(wanted in output, f"{shown_as}: `{' '.join(form)}` says '{wanted}'")
    if form[0] == "ctest":
        listed = re.search(r"Total Tests: (\d+)", output)
        check(listed is not None and int(listed.group(1)) > 0,
              f"{shown_as}: lists {listed.group(1) if listed else 'no'} tests")


def main():
    source, build = sys.argv[1], sys.argv[2]
    with open(os.path.join(source, "README.md")) as f:
        text = f.read()
    shown = commands(text)
    check(len(shown) >= 10, f"README shows {len(shown)} commands")
    for argv in shown:
        try:
            try_quick_form(source, build, argv)
        except ValueError as error:
            check(False, str(error))
    code, reproduce_help = run(source, build, [os.path.join(source, "scripts", "reproduce.sh"),
                                               "--help"])
    for paragraph in text.split("\n\n"):
        if "scripts/reproduce.sh" in paragraph and "```" not in paragraph:
            for flag in re.findall(r"`(--[a-z-]+)", paragraph):
                check(flag in reproduce_help, f"reproduce.sh --help has {flag}, as README says")
                if flag == "--compare":
                    try_quick_form(source, build, ["scripts/reproduce.sh", flag])
    print(f"{len(failures)} failed" if failures else "every check passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
