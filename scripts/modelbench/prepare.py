"""What has to be in place before anything runs, only as far as the chosen systems need it: the
packages (scripts/deps.sh), the Release build (configured the first time, then brought up to
date) and the private MariaDB (scripts/db.sh). BUILD_DIR, DB_DIR and DB_PORT move them."""

import os
import subprocess
import sys


class PrepareError(Exception):
    pass


def deps(checkout, groups):
    groups = sorted(set(groups))
    if groups and subprocess.run(["bash", checkout.script("deps.sh"), *groups]).returncode:
        raise PrepareError(f"installing dependencies failed (scripts/deps.sh {' '.join(groups)})")


def build(checkout, targets, log_path):
    """Configures (the first time) and builds the targets; quiet unless something fails."""
    build_dir = checkout.build_dir
    os.makedirs(build_dir, exist_ok=True)
    with open(log_path, "w") as log:
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            print(f"build: configuring a Release build in {build_dir}", flush=True)
            if subprocess.run(["cmake", "-S", checkout.root, "-B", build_dir,
                               "-DCMAKE_BUILD_TYPE=Release"], stdout=log, stderr=log).returncode:
                raise PrepareError(f"build: configure failed, see {log_path}")
        print(f"build: bringing {', '.join(targets)} in {build_dir} up to date (the first build "
              "takes a few minutes)", flush=True)
        if subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 1),
                           "--target", *targets], stdout=log, stderr=log).returncode:
            errors = [line for line in open(log_path, errors="replace") if "error" in line]
            sys.stderr.write("".join(errors[:20]))
            raise PrepareError(f"build: failed, see {log_path}")
    cache = open(os.path.join(build_dir, "CMakeCache.txt"), errors="replace").read()
    if "CMAKE_BUILD_TYPE:STRING=Release" not in cache:
        print(f"build: note: {build_dir} is not a Release build", file=sys.stderr)
    if any(f"MODELBENCH_SANITIZE:STRING={kind}" in cache for kind in ("address", "thread")):
        print(f"build: note: {build_dir} is instrumented by a sanitizer", file=sys.stderr)


class Database:
    """The private MariaDB of this checkout (DB_DIR, DB_PORT)."""

    def __init__(self, checkout):
        self.script = checkout.script("db.sh")
        self.dir = os.path.join(checkout.root, os.environ.get("DB_DIR") or checkout.var("mariadb"))

    def _db(self, action, quiet=False):
        out = subprocess.DEVNULL if quiet else None
        return subprocess.run(["bash", self.script, action], stdout=out, stderr=out).returncode

    def running(self):
        return self._db("status", quiet=True) == 0

    def start(self):
        if self._db("start"):
            raise PrepareError("the private MariaDB did not start (scripts/db.sh start)")
        # The servers find it by their defaults, or through MySQL's own port variable when
        # DB_PORT moved it (flags win over the variable).
        if os.environ.get("DB_PORT"):
            os.environ["MYSQL_TCP_PORT"] = os.environ["DB_PORT"]

    def stop(self):
        return self._db("stop", quiet=True) == 0

    def pid(self):
        """mariadbd's pid, for its CPU; None when its pid file is missing."""
        try:
            with open(os.path.join(self.dir, "mysqld.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def command(self, action):
        """The db.sh command line of this instance, as a user would type it."""
        env = "".join(f"{name}={os.environ[name]} " for name in ("DB_DIR", "DB_PORT")
                      if os.environ.get(name))
        return f"{env}scripts/db.sh {action}"


def ready(checkout, needs, build_targets=(), log_dir=None):
    """Installs and builds what these needs ('build', 'db', 'php', ...) ask for, and starts the
    database for 'db': (the Database, whether this call started it)."""
    deps(checkout, [*needs, "tools"])
    if "build" in needs:
        build(checkout, ["blocking-server", "async-server", *build_targets],
              os.path.join(log_dir or checkout.build_dir, "build.log"))
    database = Database(checkout)
    started = "db" in needs and not database.running()
    if "db" in needs:
        database.start()
    return database, started
