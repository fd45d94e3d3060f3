"""The PostgreSQL run store's schema: numbered migrations, applied once per database under an advisory lock.

Every table lives in the ``citetrace`` schema, so a database shared with other applications keeps its own
``runs`` table. ``citetrace.schema_version`` records which migrations ran; a store opening a database checks
it first (one query) and takes the lock only when a migration is missing, so a fleet of agents starting at
once neither races on ``CREATE TABLE`` nor queues behind a lock. Migrations only ever add (tables, nullable
columns, indexes): a database migrated by a newer citetrace stays usable by an older one.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["MIGRATIONS", "SCHEMA", "migrate", "schema_version"]

SCHEMA = "citetrace"
_LOCK_KEY = 0x63697465  # "cite": the advisory lock that serialises migrations across hosts

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, """
CREATE TABLE IF NOT EXISTS citetrace.content (
  sha256 TEXT PRIMARY KEY,
  text   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS citetrace.documents (
  id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id       TEXT NOT NULL,
  url          TEXT NOT NULL,
  canonical    TEXT NOT NULL,
  sha256       TEXT NOT NULL REFERENCES citetrace.content(sha256),
  fetched_at   DOUBLE PRECISION NOT NULL,
  status       TEXT NOT NULL,
  http_status  INTEGER,
  content_type TEXT,
  size         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_run ON citetrace.documents(run_id, canonical);
CREATE TABLE IF NOT EXISTS citetrace.runs (
  id         BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  run_id     TEXT PRIMARY KEY,
  trace_id   TEXT NOT NULL,
  agent      TEXT NOT NULL,
  question   TEXT,
  started_at DOUBLE PRECISION NOT NULL,
  ended_at   DOUBLE PRECISION,
  answer     TEXT,
  error_type TEXT
);
CREATE INDEX IF NOT EXISTS runs_started ON citetrace.runs(started_at);
CREATE INDEX IF NOT EXISTS runs_trace ON citetrace.runs(trace_id);
CREATE INDEX IF NOT EXISTS runs_id_prefix ON citetrace.runs(run_id text_pattern_ops);
CREATE INDEX IF NOT EXISTS runs_trace_prefix ON citetrace.runs(trace_id text_pattern_ops);
CREATE TABLE IF NOT EXISTS citetrace.calls (
  run_id TEXT NOT NULL,
  seq    INTEGER NOT NULL,
  data   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS citetrace.summaries (
  run_id     TEXT PRIMARY KEY,
  trace_id   TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL,
  data       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS summaries_trace ON citetrace.summaries(trace_id);
CREATE TABLE IF NOT EXISTS citetrace.ledger_journal (
  run_id TEXT NOT NULL,
  seq    INTEGER NOT NULL,
  kind   TEXT NOT NULL,
  data   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS citetrace.ledger_rows (
  id     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id TEXT NOT NULL,
  tab    TEXT NOT NULL,
  key    TEXT NOT NULL,
  data   TEXT NOT NULL,
  UNIQUE (run_id, tab, key)
);
CREATE TABLE IF NOT EXISTS citetrace.tool_responses (
  run_id   TEXT NOT NULL,
  seq      INTEGER NOT NULL,
  tool     TEXT NOT NULL,
  args_key TEXT NOT NULL,
  payload  TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
"""),
    (2, """
CREATE TABLE IF NOT EXISTS citetrace.model_citations (
  run_id TEXT NOT NULL,
  seq    INTEGER NOT NULL,
  data   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
"""),
)
"""(version, SQL): append new ones, never edit a released one."""

LATEST = MIGRATIONS[-1][0]


def schema_version(conn: Any) -> int:
    """The database's schema version: 0 when no citetrace store is there yet."""
    row = conn.execute("SELECT to_regclass('citetrace.schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM citetrace.schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: Any) -> int:
    """Bring the database to ``LATEST`` (a no-op when it is there); return the version it is at.

    ``conn`` is an autocommit psycopg connection; each missing migration runs in the one transaction that
    holds the advisory lock, so a host that lost the race finds the work done and adds nothing.
    """
    if schema_version(conn) >= LATEST:
        return LATEST
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        conn.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.schema_version ("
                     "version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
        done = schema_version(conn)
        for version, sql in MIGRATIONS:
            if version > done:
                conn.execute(sql)
                conn.execute(f"INSERT INTO {SCHEMA}.schema_version(version, applied_at) VALUES (%s, %s)",
                             (version, time.time()))
        return max(done, LATEST)
