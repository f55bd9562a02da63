"""The harness's structure: no import circle among its modules, each room importing only the
rooms above it, and docs/architecture.md listing every source file of common/, servers/ and
scripts/ that exists, and only those."""

import ast
import os
import re
import subprocess

from conftest import ROOT

PACKAGE = os.path.join(ROOT, "scripts", "modelbench")
LISTED = ("common/", "servers/", "scripts/")


def module_name(path):
    relative = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].split(os.sep)
    return ".".join(relative[:-1] if relative[-1] == "__init__" else relative)


def modules():
    found = {}
    for directory, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                found[module_name(path)] = path
    return found


def imports(path, known):
    """The harness modules a module imports: `from a.b import c` names a.b.c when that is a
    module, a.b otherwise."""
    tree = ast.parse(open(path).read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith("modelbench"):
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                out.add(name if name in known else node.module)
    return out


def circle(graph):
    """A circle of the graph as a list of its modules, or None."""
    state = {}

    def visit(name, path):
        state[name] = "open"
        for other in sorted(graph.get(name, ())):
            if state.get(other) == "open":
                return path + [name, other]
            if other not in state:
                found = visit(other, path + [name])
                if found:
                    return found
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state:
            found = visit(name, [])
            if found:
                return found
    return None


def test_the_circle_finder_finds_one():
    assert circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert circle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_circle():
    known = modules()
    graph = {name: imports(path, known) for name, path in known.items()}
    assert len(graph) > 30 and graph["modelbench.experiments.calibration"]
    found = circle(graph)
    assert found is None, "import circle: " + " → ".join(found or [])


# docs/architecture.md's rooms, top first; every module outside them (the verbs and what they
# share: checkout, prepare, checks, remote, the entry point) is in the last, "verbs".
ROOMS = ("systems", "engine", "report", "experiments")


def room(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else "verbs"


def upward_imports(graph):
    """The imports that reach a room below the importer's own, as (importer, imported)."""
    rank = {name: number for number, name in enumerate(ROOMS + ("verbs",))}
    return sorted((name, other) for name, others in graph.items() for other in others
                  if rank[room(other)] > rank[room(name)])


def test_the_room_check_finds_an_import_from_below():
    graph = {"modelbench.engine.engine": {"modelbench.systems", "modelbench.report.tables"},
             "modelbench.report.tables": {"modelbench.engine.plan"},
             "modelbench.bench": {"modelbench.checkout", "modelbench.experiments"}}
    assert upward_imports(graph) == [("modelbench.engine.engine", "modelbench.report.tables")]


def test_each_room_imports_only_the_rooms_above_it():
    known = modules()
    graph = {name: imports(path, known) for name, path in known.items()}
    assert {room(name) for name in graph} == set(ROOMS) | {"verbs"}
    found = upward_imports(graph)
    assert not found, "imports from a room below: " + ", ".join(f"{a} → {b}" for a, b in found)


def listed_files():
    text = open(os.path.join(ROOT, "docs", "architecture.md")).read()
    listed = set()
    for block in re.findall(r"^```\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        for line in block.splitlines():
            token = line.split()[0] if line.split() else ""
            if not token.startswith(LISTED):
                continue
            match = re.match(r"^(.*)\{([^}]*)\}(.*)$", token)
            names = [match.group(1) + part + match.group(3) for part in match.group(2).split(",")] \
                if match else [token]
            listed |= set(names)
    return listed


def source_files():
    if os.path.isdir(os.path.join(ROOT, ".git")):
        out = subprocess.run(["git", "ls-files", *LISTED], capture_output=True, text=True,
                             cwd=ROOT, check=True).stdout
        return set(out.split())
    found = set()
    for top in LISTED:
        for directory, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("node_modules", "__pycache__")]
            found |= {os.path.relpath(os.path.join(directory, f), ROOT) for f in files}
    return found


def test_architecture_lists_every_source_file_and_only_those():
    listed, existing = listed_files(), source_files()
    assert sorted(existing - listed) == [], "in the tree but not in docs/architecture.md"
    assert sorted(listed - existing) == [], "in docs/architecture.md but not in the tree"
