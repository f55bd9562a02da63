"""This checkout's root and build tree (BUILD_DIR, default build/, under the root if relative)."""

import os
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(frozen=True)
class Checkout:
    build_dir: str
    root: str = ROOT

    @classmethod
    def from_environment(cls):
        return cls(os.path.normpath(os.path.join(ROOT, os.environ.get("BUILD_DIR") or "build")))

    def binary(self, name):
        return os.path.join(self.build_dir, "bin", name)

    def real_system(self, folder, name):
        return os.path.join(self.root, "servers", folder, name)

    def script(self, name):
        return os.path.join(self.root, "scripts", name)

    def var(self, *parts):
        """Where the private instances keep their files."""
        return os.path.join(self.root, "var", *parts)
