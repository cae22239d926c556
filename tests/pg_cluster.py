"""A throwaway PostgreSQL cluster for the tests and the cluster load benchmark.

``FOURCARDS_TEST_POSTGRES=postgresql://user@host:port/db`` names a server to
use instead (each test gets a database of its own there). Otherwise
:class:`Cluster` runs Debian's (or any) ``initdb`` and ``pg_ctl`` into a
temporary folder, listening on 127.0.0.1 and a free port (when run as root,
as the ``postgres`` user: PostgreSQL refuses to run as root), and removes it
when stopped. :func:`find_bin` says whether PostgreSQL is installed at all.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

__all__ = ["Cluster", "find_bin", "ENV"]

ENV = "FOURCARDS_TEST_POSTGRES"


def find_bin() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl`` (PATH first, then Debian's versioned folders), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(folder, "initdb").is_file() and Path(folder, "pg_ctl").is_file():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Cluster:
    """``initdb``, ``pg_ctl start`` on loopback; :attr:`url` the superuser's URL; :meth:`stop` removes it."""

    USER = "fourcards"

    def __init__(self, fsync: bool = True) -> None:
        self.bin = find_bin()
        self.fsync = fsync
        self.dir: Path | None = None
        self.port = 0
        self.external = os.environ.get(ENV)

    def _run(self, *command: str) -> None:
        prefix: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            prefix = ["runuser", "-u", "postgres", "--"]
        subprocess.run([*prefix, *command], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=120)

    @property
    def url(self) -> str:
        if self.external:
            return self.external
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/postgres"

    def start(self) -> Cluster:
        if self.external:
            return self
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (no initdb)")
        self.dir = Path(tempfile.mkdtemp(prefix="fourcards-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self.port = _free_port()
        data = self.dir / "data"
        self._run(str(self.bin / "initdb"), "-D", str(data), "-A", "trust", "-U", self.USER, "-E", "UTF8",
                  "--no-sync")
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c max_connections=200 "
                   f"-c fsync={'on' if self.fsync else 'off'}")
        self._run(str(self.bin / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(self.dir / "log"),
                  "-w", "-t", "60", "start")
        return self

    def database(self) -> str:
        """A new empty database's URL (each test its own)."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + "/" + name

    def stop(self) -> None:
        if self.external or self.dir is None or self.bin is None:
            return
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None
