"""Where things are in this checkout: its root, the build tree the entry point chose (BUILD_DIR,
default build/) and the files the harness uses from it."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Checkout:
    def __init__(self, build_dir):
        self.root = ROOT
        self.build_dir = os.path.abspath(build_dir)

    def binary(self, name):
        """A program built in the build tree (bin/)."""
        return os.path.join(self.build_dir, "bin", name)

    def peer(self, peer, name):
        """A real peer's launcher (servers/php, servers/node)."""
        return os.path.join(self.root, "servers", peer, name)

    def script(self, name):
        """A file of scripts/ (db.sh, siegerc)."""
        return os.path.join(self.root, "scripts", name)
