"""The docs stay true to the tree: every relative link of README.md and docs/*.md leads to a file
of the repository (and to a heading of it when it names one), and every repository path they
name exists."""

import os
import re
import subprocess

from conftest import ROOT

DOCS = ["README.md"] + sorted(os.path.join("docs", name)
                              for name in os.listdir(os.path.join(ROOT, "docs"))
                              if name.endswith(".md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A path of the tree: a top-level folder of the repository, then names; it may end in a brace
# list (`config.{hpp,cpp}`) or a glob (`te_*.http`), or stop at a stem (`common/http/routing`).
PATH = re.compile(r"(?<![\w./-])((?:common|servers|scripts|tests|sql|docs|\.ci)"
                  r"(?:/[\w.@+-]+)+/?)(\{[\w,]+\}|\*)?")


def tracked():
    files = set(subprocess.check_output(["git", "-C", ROOT, "ls-files"], text=True).split())
    folders = {os.path.dirname(path) for path in files}
    for folder in list(folders):
        while folder:
            folder = os.path.dirname(folder)
            folders.add(folder)
    return files, folders


FILES, FOLDERS = tracked()


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown file."""
    with open(os.path.join(ROOT, path)) as f:
        return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
                for heading in re.findall(r"^#+\s+(.*)$", f.read(), re.M)}


def exists(path, suffix=None):
    """Whether the tree has path: a file, a folder, a brace list's every file, or (as a stem or
    before a glob) the start of a file's name."""
    if suffix and suffix.startswith("{"):
        return all(exists(path + ext) for ext in suffix[1:-1].split(","))
    path = path.rstrip("/")
    if path in FILES or path in FOLDERS:
        return True
    stem = path.rstrip(".") if suffix is None else path
    return any(f.startswith(stem + ("" if suffix else ".")) for f in FILES)


def broken_links(doc):
    with open(os.path.join(ROOT, doc)) as f:
        text = f.read()
    out = []
    for link in LINK.findall(text):
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        path = os.path.normpath(os.path.join(os.path.dirname(doc), target)) if target else doc
        if not exists(path) or path.endswith(".md") and anchor and anchor not in anchors(path):
            out.append(link)
    return out


def missing_paths(doc):
    with open(os.path.join(ROOT, doc)) as f:
        text = f.read()
    return [path + (suffix or "") for path, suffix in PATH.findall(text)
            if not exists(path, suffix or None)]


def test_the_checks_catch_what_drifted():
    assert exists("common/pages/factorial.cpp") and not exists("common/factorial.cpp")
    assert exists("common/config.", "{hpp,cpp}") and not exists("common/config.", "{hpp,c}")
    assert exists("tests/hostile/te_", "*") and exists("common/http/routing")
    assert not exists("tests/load/ab_check.sh") and exists("tests/load/ab_check.py")
    assert "e1--nodejs-vs-phpapache-a-german-post" in anchors("docs/experiments.md")


def test_every_link_of_the_docs_leads_somewhere():
    assert len(DOCS) > 5
    broken = {doc: broken_links(doc) for doc in DOCS}
    assert {doc: links for doc, links in broken.items() if links} == {}


def test_every_path_the_docs_name_exists():
    missing = {doc: missing_paths(doc) for doc in DOCS}
    assert {doc: paths for doc, paths in missing.items() if paths} == {}
