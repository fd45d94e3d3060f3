"""A real PostgreSQL server for the tests: Debian's binaries, ``initdb`` into a temporary folder, loopback only.

Started once per test session, on the first test that asks for it, on 127.0.0.1 and a free port; stopped
(``pg_ctl stop -m fast``) and deleted at the end. PostgreSQL refuses to run as root, so as root (CI) the
cluster belongs to ``nobody`` and every server command runs through ``runuser``. Two roles: ``citetrace``
(trusted, the tests' own) and ``fleet`` (a password, to test that a wrong one is refused and never shown).
Each test gets a database of its own (``pg_uri``), dropped after it.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import pytest

if TYPE_CHECKING:
    from citetrace.store import Store

FLEET_PASSWORD = "s3cret-fleet-pw"


@dataclass(frozen=True)
class PgServer:
    """A running server: its port and an admin URI (database ``postgres``)."""

    port: int
    datadir: Path

    def uri(self, database: str = "postgres", user: str = "citetrace") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"


def _bin(name: str) -> str:
    """A PostgreSQL server binary: on PATH, else in Debian's versioned folder (the newest)."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if not candidates:
        pytest.fail(f"PostgreSQL's {name} is not installed: run scripts/setup (it installs Debian's postgresql)")
    return candidates[-1]


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "nobody", "--", *cmd] if os.geteuid() == 0 else cmd


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(cmd: list[str], cwd: Path) -> None:
    # cwd: a folder the server's owner can enter (nobody may not read the checkout)
    out = subprocess.run(_as_owner(cmd), capture_output=True, text=True, timeout=120, cwd=cwd)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip() or out.stdout.strip()}")


def start_server() -> PgServer:
    """initdb + pg_ctl start -w (which returns once the server accepts connections)."""
    root = Path(tempfile.mkdtemp(prefix="citetrace-pg-"))
    datadir = root / "data"
    datadir.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "nobody")
        shutil.chown(datadir, "nobody")
    _run([_bin("initdb"), "-D", str(datadir), "-U", "citetrace", "-A", "trust", "-E", "UTF8", "--no-sync"], root)
    with open(datadir / "pg_hba.conf", "w") as hba:  # the owner (nobody) may rewrite it; we are root or it
        hba.write("local all citetrace trust\nhost all citetrace 127.0.0.1/32 trust\n"
                  "host all fleet 127.0.0.1/32 scram-sha-256\n")
    server = PgServer(_free_port(), datadir)
    pg_ctl(server, "start")
    import psycopg

    with psycopg.connect(server.uri(), autocommit=True) as conn:
        conn.execute(f"CREATE ROLE fleet LOGIN CREATEDB PASSWORD '{FLEET_PASSWORD}'")
    return server


def pg_ctl(server: PgServer, action: str) -> None:
    """``pg_ctl stop -m fast`` or ``start``, waiting until it is done (a server restart in a test)."""
    opts = (f"-c listen_addresses=127.0.0.1 -p {server.port} -k {server.datadir} -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
    extra = ["-m", "fast"] if action == "stop" else ["-l", str(server.datadir / "server.log"), "-o", opts, "-t", "60"]
    _run([_bin("pg_ctl"), "-D", str(server.datadir), *extra, "-w", action], server.datadir.parent)


def stop_server(server: PgServer) -> None:
    try:
        pg_ctl(server, "stop")
    finally:
        shutil.rmtree(server.datadir.parent, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the whole session, started on first use."""
    server = start_server()
    yield server
    stop_server(server)


_counter = itertools.count()


@pytest.fixture
def pg_uri(pg_server: PgServer) -> Iterator[str]:
    """A fresh, empty database on the session's server (a URI to it), dropped after the test."""
    import psycopg

    name = f"t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} OWNER fleet")
    yield pg_server.uri(name)
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


BACKENDS = ("sqlite", "memory", "postgresql")
"""Every store backend, for fixtures written against the ``Store`` protocol."""


def make_store(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> "Store":
    """A fresh, empty store of one backend (a PostgreSQL one in a database of its own)."""
    from citetrace.store import MemoryStore, SQLiteStore, open_store

    if kind == "postgresql":
        return open_store(request.getfixturevalue("pg_uri"))
    return SQLiteStore(tmp_path / "s.db") if kind == "sqlite" else MemoryStore()
