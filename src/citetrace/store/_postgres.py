"""PostgreSQL run store: one database that a fleet of agent hosts writes at once (psycopg 3 and its pool).

Same behaviour as the SQLite store (``_sqlite``), which is the reference: documents deduplicated by the sha256
of their text, ``get`` by exact then canonical URL, unique-prefix run lookup with ``AmbiguousRunId``, the
ledger's journal and rows. What differs is how waiting is bounded: every connection carries a
``lock_timeout`` of ``lock_wait_s`` and a short ``statement_timeout``, and a connection is awaited from the
pool for at most ``lock_wait_s``; past that a write raises ``StoreBusy``, which the agent's ``BufferedStore``
queues and retries. A server that cannot be reached (refused, restarting, connection lost) is also
``StoreBusy``: it comes back. What will not come back by waiting (bad password, no such database, no
privilege) is ``StoreError``. Messages name the database as ``postgresql://user@host:port/db``, never with
the password.

PostgreSQL text holds no NUL character and psycopg sends only valid UTF-8: such characters (and lone
surrogates) are stored as U+FFFD, as the SQLite store does for surrogates.
"""

from __future__ import annotations

import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, Iterator, Sequence

import psycopg
from psycopg import errors as pgerrors
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from citetrace._redact import sink_safe
from citetrace._urls import canonical_url, url_key
from citetrace.store._model import (
    AmbiguousRunId, Document, LedgerEntry, LedgerRow, RunRecord, StoreBusy, StoreError, ToolCallRecord,
    ModelCitation, ToolResponse, check_after_seq, content_hash, make_ref, parse_ref, summary_run,
)
from citetrace.store._pgschema import SCHEMA, migrate, schema_version
from citetrace.store._sqlite import _call_from_json, _call_to_json
from citetrace.store._uri import redact_uri

__all__ = ["PostgresStore"]

_POOL_MAX = 4  # connections per process: agents write from a few threads; a fleet multiplies this
_MIN_STATEMENT_MS = 1000  # a statement may take this long even when the lock wait is shorter
_leftover: list[object] = []  # a forked child's copy of the parent's pool: kept alive, never closed from here
_BUSY = (pgerrors.LockNotAvailable, pgerrors.QueryCanceled, pgerrors.SerializationFailure,
         pgerrors.DeadlockDetected, pgerrors.TooManyConnections, pgerrors.CannotConnectNow,
         pgerrors.AdminShutdown)
_PASSING = ("starting up", "shutting down", "in recovery mode", "too many clients", "connection slots are reserved")
"""FATAL refusals at connect time that pass by themselves (libpq reports them without an SQLSTATE)."""


class PostgresStore:
    """Run store in a PostgreSQL database (schema ``citetrace``), created and migrated on first open."""

    def __init__(self, uri: str, *, lock_wait_s: float = 30.0, read_only: bool = False) -> None:
        self.uri = redact_uri(uri)
        self.read_only = read_only
        self._wait_s = max(0.001, float(lock_wait_s))
        self._wait_ms = max(1, int(self._wait_s * 1000))
        self._conninfo = self._conninfo_for(uri)
        self._lock = threading.Lock()
        self._pool: ConnectionPool[psycopg.Connection[tuple[Any, ...]]] | None = None
        self._pid = -1
        self._prepare()

    # -- connections ----------------------------------------------------------------------------------
    def _conninfo_for(self, uri: str) -> str:
        """The URI's parameters plus our timeouts (kept in libpq's ``options``, next to any the URI sets)."""
        try:
            params = conninfo_to_dict(uri)
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"{self.uri}: {_one_line(exc)}") from None
        statement_ms = max(_MIN_STATEMENT_MS, 4 * self._wait_ms)
        ours = f"-c lock_timeout={self._wait_ms} -c statement_timeout={statement_ms} -c search_path={SCHEMA}"
        if self.read_only:
            ours += " -c default_transaction_read_only=on"
        params["options"] = f"{params['options']} {ours}" if params.get("options") else ours
        params.setdefault("connect_timeout", 2)  # libpq's least; an unreachable host costs this once
        params.setdefault("application_name", "citetrace")
        return make_conninfo("", **params)

    def _prepare(self) -> None:
        """Connect once now (a bad URI, password or database fails here, naming it), then create or check."""
        try:
            with psycopg.connect(self._conninfo, autocommit=True) as conn:
                if self.read_only:
                    if schema_version(conn) == 0:
                        raise StoreError(f"no store at {self.uri}: the database has no {SCHEMA} tables; "
                                         "nothing has been recorded there")
                else:
                    migrate(conn)
        except psycopg.Error as exc:
            raise _store_error(self.uri, exc, self._wait_ms) from exc

    def _get_pool(self) -> ConnectionPool[psycopg.Connection[tuple[Any, ...]]]:
        """This process's pool; a forked child opens its own (a connection must never cross a fork)."""
        pool, pid = self._pool, self._pid
        if pool is not None and pid == os.getpid():
            return pool
        with self._lock:
            if self._pool is not None and self._pid != os.getpid():
                _leftover.append(self._pool)
                self._pool = None
            if self._pool is None:
                self._pool = ConnectionPool(self._conninfo, min_size=1, max_size=_POOL_MAX, open=False,
                                            timeout=self._wait_s, name="citetrace-store",
                                            kwargs={"autocommit": True})
                self._pool.open(wait=False)
                self._pid = os.getpid()
            return self._pool

    @contextmanager
    def _conn(self, *, write: bool = False, single: bool = False) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        """A pooled connection (in a transaction for a write of several statements; ``single``: one statement,
        atomic by itself); driver errors become the store's own."""
        if write and self.read_only:
            raise StoreError(f"{self.uri}: opened read-only")
        try:
            with self._get_pool().connection(timeout=self._wait_s) as conn:
                if write and not single:
                    with conn.transaction():
                        yield conn
                else:
                    yield conn
        except psycopg.Error as exc:
            raise _store_error(self.uri, exc, self._wait_ms) from exc

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._conn() as conn:
            return conn.execute(sql, args).fetchall()

    def check(self) -> None:
        """Raise ``StoreError`` unless the database holds a citetrace store (``open_existing_store``)."""
        if not self._read("SELECT to_regclass('citetrace.runs') IS NOT NULL")[0][0]:
            raise StoreError(f"no store at {self.uri}: the database has no {SCHEMA}.runs table")

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._pid == os.getpid():
                self._pool.close(timeout=self._wait_s)
            self._pool = None

    # -- documents ----------------------------------------------------------------------------------
    def put_document(
        self,
        run_id: str,
        url: str,
        text: str,
        *,
        status: str,
        http_status: int | None = None,
        content_type: str | None = None,
        fetched_at: float | None = None,
    ) -> str:
        run_id, url, text = _clean(run_id), _clean(url), _clean(text)
        sha = content_hash(text)
        # one statement, so one round trip and its own transaction: the hot path of every traced fetch
        with self._conn(write=True, single=True) as conn:
            conn.execute(
                "WITH c AS (INSERT INTO content(sha256, text) VALUES (%(sha)s, %(text)s) ON CONFLICT DO NOTHING)"
                " INSERT INTO documents(run_id, url, canonical, sha256, fetched_at, status, http_status,"
                " content_type, size) VALUES (%(run)s, %(url)s, %(key)s, %(sha)s, %(at)s, %(status)s, %(http)s,"
                " %(ctype)s, %(size)s)",
                {"sha": sha, "text": text, "run": run_id, "url": url, "key": url_key(url),
                 "at": time.time() if fetched_at is None else fetched_at, "status": _clean(status),
                 "http": http_status, "ctype": _opt(content_type), "size": len(text)},
            )
        return make_ref(run_id, sha)

    _DOC_SQL = (
        "SELECT d.run_id, d.url, c.text, d.sha256, d.fetched_at, d.status, d.http_status, d.content_type, d.size"
        " FROM documents d JOIN content c ON c.sha256 = d.sha256"
    )

    def documents(self, run_id: str) -> list[Document]:
        return [Document(*r) for r in self._read(self._DOC_SQL + " WHERE d.run_id = %s ORDER BY d.id", (run_id,))]

    def get(self, run_id: str, url: str) -> Document | None:
        url = _clean(url)  # as put_document stored it
        rows = self._read(
            self._DOC_SQL + " WHERE d.run_id = %s AND (d.url = %s OR d.canonical IN (%s, %s))"
            " ORDER BY (d.url = %s) DESC, d.id DESC LIMIT 1",
            (run_id, url, url_key(url), canonical_url(url), url),
        )
        return Document(*rows[0]) if rows else None

    def get_ref(self, ref: str) -> str | None:
        _, sha = parse_ref(ref)
        rows = self._read("SELECT text FROM content WHERE sha256 = %s", (sha,))
        return str(rows[0][0]) if rows else None

    # -- runs ---------------------------------------------------------------------------------------
    def put_run(self, run: RunRecord) -> None:
        with self._conn(write=True, single=True) as conn:
            conn.execute(
                "INSERT INTO runs(run_id, trace_id, agent, question, started_at, ended_at, answer, error_type)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (run_id) DO UPDATE SET trace_id = excluded.trace_id,"
                " agent = excluded.agent, question = excluded.question, started_at = excluded.started_at,"
                " ended_at = excluded.ended_at, answer = excluded.answer, error_type = excluded.error_type",
                (_clean(run.run_id), _clean(run.trace_id), _clean(run.agent), _opt(run.question), run.started_at,
                 run.ended_at, _opt(run.answer), _opt(run.error_type)),
            )

    def finish_run(self, run_id: str, *, ended_at: float, answer: str | None, error_type: str | None) -> None:
        with self._conn(write=True, single=True) as conn:
            conn.execute(
                "UPDATE runs SET ended_at = %s, answer = COALESCE(%s, answer), error_type = %s WHERE run_id = %s",
                (ended_at, _opt(answer), _opt(error_type), _clean(run_id)),
            )

    def put_calls(self, calls: Sequence[ToolCallRecord]) -> None:
        if not calls:
            return
        rows = sorted((_clean(c.run_id), c.seq, json.dumps(_call_to_json(c))) for c in calls)  # one lock order
        with self._conn(write=True) as conn:
            conn.cursor().executemany(
                "INSERT INTO calls(run_id, seq, data) VALUES (%s,%s,%s)"
                " ON CONFLICT (run_id, seq) DO UPDATE SET data = excluded.data", rows)

    def calls(self, run_id: str) -> list[ToolCallRecord]:
        rows = self._read("SELECT data FROM calls WHERE run_id = %s ORDER BY seq", (run_id,))
        return [_call_from_json(json.loads(r[0])) for r in rows]

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: RunRecord | None = None) -> None:
        now = time.time()
        run_id, trace_id = _clean(run_id), _clean(trace_id)
        rec = summary_run(run_id, trace_id, _clean(agent), run, now)
        with self._conn(write=True) as conn:
            conn.execute(
                "INSERT INTO summaries(run_id, trace_id, created_at, data) VALUES (%s,%s,%s,%s)"
                " ON CONFLICT (run_id) DO UPDATE SET trace_id = excluded.trace_id,"
                " created_at = excluded.created_at, data = excluded.data",
                (run_id, trace_id, now, json.dumps(summary, sort_keys=True, default=str)),
            )
            conn.execute(
                "INSERT INTO runs(run_id, trace_id, agent, question, started_at, ended_at, answer, error_type)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                (rec.run_id, _clean(rec.trace_id), _clean(rec.agent) or "unknown", _opt(rec.question),
                 rec.started_at, rec.ended_at, _opt(rec.answer), _opt(rec.error_type)),
            )

    _RUN_SQL = (
        "SELECT r.run_id, r.trace_id, r.agent, r.question, r.started_at, r.ended_at, r.answer, r.error_type,"
        " s.data FROM runs r LEFT JOIN summaries s ON s.run_id = r.run_id"
    )

    @staticmethod
    def _run(row: tuple[Any, ...]) -> RunRecord:
        run_id, trace_id, agent, question, started_at, ended_at, answer, error_type, raw = row
        return RunRecord(run_id, trace_id, agent, question, started_at, ended_at, answer, error_type,
                         summary=json.loads(raw) if raw else None)

    def runs(self, limit: int = 50) -> list[RunRecord]:
        rows = self._read(self._RUN_SQL + " ORDER BY r.started_at DESC, r.id DESC LIMIT %s", (limit,))
        return [self._run(r) for r in rows]

    def get_run(self, run_id: str) -> RunRecord | None:
        rows = self._read(self._RUN_SQL + " WHERE r.run_id = %s OR r.trace_id = %s LIMIT 1", (run_id, run_id))
        if not rows:
            like = run_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            # a unique prefix of a run id, or of a trace id (a foreign root's run is filed under its trace id)
            match = " WHERE {0}run_id LIKE %s OR {0}trace_id LIKE %s"
            rows = self._read(self._RUN_SQL + match.format("r.") + " LIMIT 2", (like, like))
            if len(rows) > 1:
                count = self._read("SELECT COUNT(*) FROM runs" + match.format(""), (like, like))
                raise AmbiguousRunId(run_id, int(count[0][0]), self.uri)
            if not rows:
                return None
        return self._run(rows[0])

    # -- the claim ledger ---------------------------------------------------------------------------
    def ledger_write(
        self, run_id: str, *, entries: Sequence[LedgerEntry] = (), rows: Sequence[LedgerRow] = (),
        after_seq: int | None = None,
    ) -> list[int]:
        run_id = _clean(run_id)
        with self._conn(write=True) as conn:
            seqs: list[int] = []
            if entries or after_seq is not None:
                # one writer per run's journal at a time, on every host: seqs stay dense and never collide
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("ledger:" + run_id,))
                row = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM ledger_journal WHERE run_id = %s",
                                   (run_id,)).fetchone()
                last = int(row[0]) if row else 0
                check_after_seq(run_id, last, after_seq)
            if entries:
                seqs = list(range(last + 1, last + 1 + len(entries)))
                conn.cursor().executemany(
                    "INSERT INTO ledger_journal(run_id, seq, kind, data) VALUES (%s,%s,%s,%s)",
                    [(run_id, seq, _clean(kind), json.dumps(data, sort_keys=True))
                     for seq, (kind, data) in zip(seqs, entries)],
                )
            if rows:
                # an upsert keeps the row's id, so rows stay in creation order
                conn.cursor().executemany(
                    "INSERT INTO ledger_rows(run_id, tab, key, data) VALUES (%s,%s,%s,%s)"
                    " ON CONFLICT (run_id, tab, key) DO UPDATE SET data = excluded.data",
                    [(run_id, _clean(table), _clean(key), json.dumps(data, sort_keys=True))
                     for table, key, data in rows],
                )
            return seqs

    def ledger_entries(self, run_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        rows = self._read("SELECT seq, kind, data FROM ledger_journal WHERE run_id = %s ORDER BY seq", (run_id,))
        return [(int(seq), str(kind), json.loads(data)) for seq, kind, data in rows]

    def ledger_rows(self, run_id: str, table: str) -> list[tuple[str, dict[str, Any]]]:
        rows = self._read("SELECT key, data FROM ledger_rows WHERE run_id = %s AND tab = %s ORDER BY id",
                          (run_id, table))
        return [(str(key), json.loads(data)) for key, data in rows]

    # -- tool responses (replay) ---------------------------------------------------------------------
    def put_responses(self, responses: Sequence[ToolResponse]) -> None:
        if not responses:
            return
        rows = sorted((_clean(r.run_id), r.seq, _clean(r.tool), _clean(r.args_key), json.dumps(r.payload))
                      for r in responses)
        with self._conn(write=True) as conn:
            conn.cursor().executemany(
                "INSERT INTO tool_responses(run_id, seq, tool, args_key, payload) VALUES (%s,%s,%s,%s,%s)"
                " ON CONFLICT (run_id, seq) DO UPDATE SET tool = excluded.tool, args_key = excluded.args_key,"
                " payload = excluded.payload", rows)

    def responses(self, run_id: str) -> list[ToolResponse]:
        rows = self._read("SELECT seq, tool, args_key, payload FROM tool_responses WHERE run_id = %s ORDER BY seq",
                          (run_id,))
        return [ToolResponse(run_id, int(seq), str(tool), str(key), json.loads(payload))
                for seq, tool, key, payload in rows]

    # -- model citations (eval pairs them with claims) ----------------------------------------------------
    def put_model_citations(self, citations: Sequence[ModelCitation]) -> None:
        if not citations:
            return
        rows = sorted((_clean(c.run_id), c.seq, _clean(json.dumps(asdict(c)))) for c in citations)
        with self._conn(write=True) as conn:
            conn.cursor().executemany(
                "INSERT INTO model_citations(run_id, seq, data) VALUES (%s,%s,%s)"
                " ON CONFLICT (run_id, seq) DO UPDATE SET data = excluded.data", rows)

    def model_citations(self, run_id: str) -> list[ModelCitation]:
        rows = self._read("SELECT data FROM model_citations WHERE run_id = %s ORDER BY seq", (run_id,))
        return [ModelCitation(**json.loads(data)) for (data,) in rows]


def _clean(text: str) -> str:
    """Text PostgreSQL and psycopg accept: NUL and lone surrogates become U+FFFD."""
    text = sink_safe(text)
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def _opt(text: str | None) -> str | None:
    return None if text is None else _clean(text)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _store_error(where: str, exc: psycopg.Error, wait_ms: int) -> StoreError:
    """The store's own error for a driver error: ``StoreBusy`` for what waiting cures, one line naming ``where``."""
    if isinstance(exc, PoolTimeout):
        return StoreBusy(f"{where}: no database connection within {wait_ms} ms (server unreachable or busy)")
    if isinstance(exc, _BUSY):
        return StoreBusy(f"{where}: busy ({_one_line(exc)})")
    text = _one_line(exc)
    if isinstance(exc, psycopg.OperationalError) and exc.sqlstate is None:
        # a refusal the server spoke (FATAL: password, role, database, pg_hba) stays until someone fixes it
        if "FATAL:" not in text or any(passing in text for passing in _PASSING):
            return StoreBusy(f"{where}: cannot reach the server ({text})")
    return StoreError(f"{where}: {text}")
