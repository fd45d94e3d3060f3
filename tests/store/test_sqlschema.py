"""The SQLite store's schema versioning: user_version, append-only migrations, old and newer files, races."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from citetrace.store import SQLiteStore
from citetrace.store import _pgschema, _sqlschema
from citetrace.store._sqlschema import LATEST, MIGRATIONS, migrate, schema_version


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_new_file_is_at_the_latest_version(tmp_path: Path) -> None:
    """A store made on a new file records the latest schema version in the file itself."""
    path = tmp_path / "runs.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == LATEST >= 1
    assert {"runs", "documents", "content", "summaries", "ledger_rows"} <= _tables(path)


def test_file_from_before_versioning_is_adopted_unchanged(tmp_path: Path) -> None:
    """A file written before versioning (user_version 0, tables present, rows in them) migrates and keeps its rows."""
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(MIGRATIONS[0][1])
        conn.execute("INSERT INTO runs(run_id, trace_id, agent, started_at) VALUES ('r-old', 't', 'a', 1.0)")
        assert schema_version(conn) == 0
    store = SQLiteStore(path)
    try:
        assert [r.run_id for r in store.runs()] == ["r-old"]
    finally:
        store.close()
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == LATEST


def test_newer_file_opens_and_is_not_downgraded(tmp_path: Path) -> None:
    """A file a newer citetrace migrated further (migrations only add) opens, and its version is left alone."""
    path = tmp_path / "newer.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST + 5}")
    store = SQLiteStore(path)
    store.put_document("r1", "https://example.org/a", "text", status="ok")
    store.close()
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == LATEST + 5


def test_failed_migration_leaves_the_previous_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A migration that fails halfway rolls back as a whole: the file stays at the version before it."""
    broken = MIGRATIONS + ((LATEST + 1, "CREATE TABLE extra (x INTEGER); THIS IS NOT SQL"),)
    monkeypatch.setattr(_sqlschema, "MIGRATIONS", broken)
    monkeypatch.setattr(_sqlschema, "LATEST", LATEST + 1)
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn)
    assert schema_version(conn) == 0
    assert "extra" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()


def test_many_openers_at_once_migrate_exactly_once(tmp_path: Path) -> None:
    """Eight threads opening one new file at once all succeed and the file ends at the latest version."""
    path = tmp_path / "race.db"
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def open_one() -> None:
        barrier.wait()
        try:
            SQLiteStore(path).close()
        except BaseException as exc:  # pragma: no cover - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == LATEST


def test_both_backends_number_their_migrations_alike() -> None:
    """SQLite and PostgreSQL keep their migrations numbered 1..N with the same N, so a version means one schema."""
    assert [v for v, _ in MIGRATIONS] == list(range(1, LATEST + 1))
    assert [v for v, _ in _pgschema.MIGRATIONS] == [v for v, _ in MIGRATIONS]
