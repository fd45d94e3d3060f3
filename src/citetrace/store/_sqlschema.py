"""The SQLite run store's schema: numbered migrations, the version kept in ``PRAGMA user_version``.

The same shape as the PostgreSQL store's ``_pgschema`` (one list of ``(version, SQL)``, append only), so both
backends say which schema a file is at and migrate it the same way. A store opening a file reads the version
first (one pragma, no lock); only when a migration is missing does it take the write lock (``BEGIN
IMMEDIATE``), re-read the version and apply what is still missing, so many processes opening one new file at
once make the schema exactly once. Migrations only ever add (tables, nullable columns, indexes): a file
migrated by a newer citetrace stays usable by an older one, which therefore accepts a higher version. Files
written before versioning existed read as version 0; migration 1 is written with ``IF NOT EXISTS`` so it
adopts them unchanged.
"""

from __future__ import annotations

import sqlite3

__all__ = ["LATEST", "MIGRATIONS", "migrate", "schema_version"]

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, """
CREATE TABLE IF NOT EXISTS content (
  sha256 TEXT PRIMARY KEY,
  text   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id       TEXT NOT NULL,
  url          TEXT NOT NULL,
  canonical    TEXT NOT NULL,
  sha256       TEXT NOT NULL REFERENCES content(sha256),
  fetched_at   REAL NOT NULL,
  status       TEXT NOT NULL,
  http_status  INTEGER,
  content_type TEXT,
  size         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_run ON documents(run_id, canonical);
CREATE TABLE IF NOT EXISTS runs (
  run_id     TEXT PRIMARY KEY,
  trace_id   TEXT NOT NULL,
  agent      TEXT NOT NULL,
  question   TEXT,
  started_at REAL NOT NULL,
  ended_at   REAL,
  answer     TEXT,
  error_type TEXT
);
CREATE INDEX IF NOT EXISTS runs_started ON runs(started_at);
CREATE INDEX IF NOT EXISTS runs_trace ON runs(trace_id);
CREATE TABLE IF NOT EXISTS calls (
  run_id TEXT NOT NULL,
  seq    INTEGER NOT NULL,
  data   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS summaries (
  run_id     TEXT PRIMARY KEY,
  trace_id   TEXT NOT NULL,
  created_at REAL NOT NULL,
  data       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS summaries_trace ON summaries(trace_id);
CREATE TABLE IF NOT EXISTS ledger_journal (
  run_id TEXT NOT NULL,
  seq    INTEGER NOT NULL,
  kind   TEXT NOT NULL,
  data   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS tool_responses (
  run_id   TEXT NOT NULL,
  seq      INTEGER NOT NULL,
  tool     TEXT NOT NULL,
  args_key TEXT NOT NULL,
  payload  TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS ledger_rows (
  id     INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  tab    TEXT NOT NULL,
  key    TEXT NOT NULL,
  data   TEXT NOT NULL,
  UNIQUE (run_id, tab, key)
);
"""),
    (2, """
CREATE TABLE IF NOT EXISTS model_citations (
  run_id TEXT NOT NULL,
  seq    INTEGER NOT NULL,
  data   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
"""),
)
"""(version, SQL): append new ones, never edit a released one."""

LATEST = MIGRATIONS[-1][0]


def schema_version(conn: sqlite3.Connection) -> int:
    """The file's schema version (``PRAGMA user_version``): 0 for a new file or one older than versioning."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the file to ``LATEST`` (a no-op when it is there or beyond); return the version it is at.

    ``conn`` is in autocommit mode (``isolation_level=None``). Each missing migration and the new version are
    committed in one transaction, so a crash mid-migration leaves the file at the version before it.
    """
    if schema_version(conn) >= LATEST:
        return schema_version(conn)
    conn.execute("BEGIN IMMEDIATE")
    try:
        done = schema_version(conn)
        for version, sql in MIGRATIONS:
            if version > done:
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return schema_version(conn)


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (``executescript`` would commit the open transaction first)."""
    return [part.strip() for part in sql.split(";") if part.strip()]
