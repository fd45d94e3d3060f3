"""SQLite run store: the embedded default, safe across threads and processes (WAL + busy timeout).

One connection per process, guarded by a lock; a forked child opens its own on first use, because an
SQLite connection must never cross a fork. A write waits at most ``lock_wait_s`` in all (for this process's
lock, then for the database's) and then raises ``StoreBusy``: the agent's store passes a short wait and
queues what meets a lock (``BufferedStore``); tools that may wait keep the 30 s default. ``read_only`` opens
an existing file without creating anything (the CLI's read-only commands).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Iterator, Sequence
from urllib.parse import quote

from citetrace._redact import sink_safe
from citetrace._urls import canonical_url, url_key
from citetrace.store._model import (
    AmbiguousRunId, Document, LedgerEntry, LedgerRow, RunRecord, StoreBusy, StoreError, ToolCallRecord, ToolResponse, check_after_seq, content_hash,
    ModelCitation,
    make_ref, parse_ref, summary_run,
)
from citetrace.store._sqlschema import migrate

__all__ = ["SQLiteStore"]



class SQLiteStore:
    """Run store in one SQLite file."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        uri: str | None = None,
        lock_wait_s: float = 30.0,
        read_only: bool = False,
    ) -> None:
        self.path = Path(path)
        self.uri = uri or f"sqlite:///{self.path}"
        self.read_only = read_only
        self._wait_s = max(0.001, float(lock_wait_s))
        self._wait_ms = max(1, int(self._wait_s * 1000))
        self._busy_ms = self._wait_ms
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        with self._lock:
            self._connection()

    # -- connection handling ------------------------------------------------------------------------
    def _connection(self) -> sqlite3.Connection:  # caller holds the lock
        if self._conn is None or self._pid != os.getpid():
            try:
                self._conn = self._open()
            except sqlite3.Error as exc:
                raise _store_error(self.path, exc) from exc
            self._pid = os.getpid()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        if self.read_only:
            target = "file:" + quote(str(self.path.absolute())) + "?mode=ro"
            conn = sqlite3.connect(target, uri=True, timeout=self._wait_s, check_same_thread=False,
                                   isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={self._wait_ms}")
            return conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), timeout=self._wait_s, check_same_thread=False, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout={self._wait_ms}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        migrate(conn)
        self._busy_ms = self._wait_ms
        return conn

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, waiting at most ``lock_wait_s`` in all before ``StoreBusy``."""
        if self.read_only:
            raise StoreError(f"{self.path}: opened read-only")
        t0 = time.monotonic()
        if not self._lock.acquire(timeout=self._wait_s):
            raise StoreBusy(f"{self.path}: busy in this process for over {self._wait_ms} ms")
        try:
            conn = self._connection()
            self._bound_busy_wait(conn, self._wait_s - (time.monotonic() - t0))
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if _is_busy(exc):
                    raise StoreBusy(f"{self.path}: database is locked (waited {self._wait_ms} ms)") from exc
                raise
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                    raise StoreBusy(f"{self.path}: database is locked (waited {self._wait_ms} ms)") from exc
                raise
        finally:
            self._lock.release()

    def _bound_busy_wait(self, conn: sqlite3.Connection, left_s: float) -> None:
        """Give SQLite only what is left of the wait; a pragma only when that differs from the last one."""
        ms = self._wait_ms if left_s > self._wait_s - 0.002 else max(1, int(left_s * 1000))
        if ms != self._busy_ms:
            conn.execute(f"PRAGMA busy_timeout={ms}")
            self._busy_ms = ms

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            conn = self._connection()
            conn.row_factory = sqlite3.Row
            try:
                return list(conn.execute(sql, args))
            except sqlite3.DatabaseError as exc:
                raise _store_error(self.path, exc) from exc
            finally:
                conn.row_factory = None

    def check(self) -> None:
        """Raise ``StoreError`` naming the file unless it is an SQLite database with the run store's tables."""
        tables = {str(r["name"]) for r in self._read("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = {"runs", "documents", "content"} - tables
        if missing:
            raise StoreError(f"{self.path} is an SQLite database but not a citetrace store "
                             f"(no {', '.join(sorted(missing))} table)")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

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
        try:
            return self._put_document(run_id, url, text, status, http_status, content_type, fetched_at)
        except UnicodeEncodeError:  # a lone surrogate (\ud800): SQLite takes only UTF-8, so store it as U+FFFD
            return self._put_document(run_id, sink_safe(url), sink_safe(text), status, http_status, content_type,
                                      fetched_at)

    def _put_document(self, run_id: str, url: str, text: str, status: str, http_status: int | None,
                      content_type: str | None, fetched_at: float | None) -> str:
        sha = content_hash(text)
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO content(sha256, text) VALUES (?, ?)", (sha, text))
            conn.execute(
                "INSERT INTO documents(run_id, url, canonical, sha256, fetched_at, status, http_status,"
                " content_type, size) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    run_id,
                    url,
                    url_key(url),
                    sha,
                    time.time() if fetched_at is None else fetched_at,
                    status,
                    http_status,
                    content_type,
                    len(text),
                ),
            )
        return make_ref(run_id, sha)

    _DOC_SQL = (
        "SELECT d.run_id, d.url, c.text, d.sha256, d.fetched_at, d.status, d.http_status, d.content_type, d.size"
        " FROM documents d JOIN content c ON c.sha256 = d.sha256"
    )

    @staticmethod
    def _doc(row: sqlite3.Row) -> Document:
        return Document(*tuple(row))

    def documents(self, run_id: str) -> list[Document]:
        rows = self._read(self._DOC_SQL + " WHERE d.run_id = ? ORDER BY d.id", (run_id,))
        return [self._doc(r) for r in rows]

    def get(self, run_id: str, url: str) -> Document | None:
        url = sink_safe(url)  # as put_document stored it
        rows = self._read(
            # the column holds url_key (stores written before it held canonical_url: both are looked up)
            self._DOC_SQL + " WHERE d.run_id = ? AND (d.url = ? OR d.canonical IN (?, ?))"
            " ORDER BY d.url = ? DESC, d.id DESC LIMIT 1",
            (run_id, url, url_key(url), canonical_url(url), url),
        )
        return self._doc(rows[0]) if rows else None

    def get_ref(self, ref: str) -> str | None:
        _, sha = parse_ref(ref)
        rows = self._read("SELECT text FROM content WHERE sha256 = ?", (sha,))
        return str(rows[0]["text"]) if rows else None

    # -- runs ---------------------------------------------------------------------------------------
    def put_run(self, run: RunRecord) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO runs(run_id, trace_id, agent, question, started_at, ended_at, answer,"
                " error_type) VALUES (?,?,?,?,?,?,?,?)",
                (run.run_id, run.trace_id, run.agent, run.question, run.started_at, run.ended_at, run.answer,
                 run.error_type),
            )

    def finish_run(self, run_id: str, *, ended_at: float, answer: str | None, error_type: str | None) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET ended_at = ?, answer = COALESCE(?, answer), error_type = ? WHERE run_id = ?",
                (ended_at, answer, error_type, run_id),
            )

    def put_calls(self, calls: Sequence[ToolCallRecord]) -> None:
        if not calls:
            return
        with self._tx() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO calls(run_id, seq, data) VALUES (?,?,?)",
                [(c.run_id, c.seq, json.dumps(_call_to_json(c))) for c in calls],
            )

    def calls(self, run_id: str) -> list[ToolCallRecord]:
        rows = self._read("SELECT data FROM calls WHERE run_id = ? ORDER BY seq", (run_id,))
        return [_call_from_json(json.loads(r["data"])) for r in rows]

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: RunRecord | None = None) -> None:
        now = time.time()
        rec = summary_run(run_id, trace_id, agent, run, now)
        with self._tx() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO summaries(run_id, trace_id, created_at, data) VALUES (?,?,?,?)",
                (run_id, trace_id, now, json.dumps(summary, sort_keys=True, default=str)),
            )
            conn.execute(
                "INSERT OR IGNORE INTO runs(run_id, trace_id, agent, question, started_at, ended_at, answer,"
                " error_type) VALUES (?,?,?,?,?,?,?,?)",
                (rec.run_id, rec.trace_id, rec.agent, rec.question, rec.started_at, rec.ended_at, rec.answer,
                 rec.error_type),
            )

    # -- the claim ledger ---------------------------------------------------------------------------
    def ledger_write(
        self, run_id: str, *, entries: Sequence[LedgerEntry] = (), rows: Sequence[LedgerRow] = (),
        after_seq: int | None = None,
    ) -> list[int]:
        with self._tx() as conn:  # BEGIN IMMEDIATE: no other writer between the check and the insert
            seqs: list[int] = []
            if entries or after_seq is not None:
                (last,) = conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM ledger_journal WHERE run_id = ?", (run_id,)
                ).fetchone()
                check_after_seq(run_id, int(last), after_seq)
            if entries:
                seqs = list(range(int(last) + 1, int(last) + 1 + len(entries)))
                conn.executemany(
                    "INSERT INTO ledger_journal(run_id, seq, kind, data) VALUES (?,?,?,?)",
                    [(run_id, seq, kind, json.dumps(data, sort_keys=True)) for seq, (kind, data) in zip(seqs, entries)],
                )
            if rows:
                # an upsert keeps the row's id, so rows stay in creation order
                conn.executemany(
                    "INSERT INTO ledger_rows(run_id, tab, key, data) VALUES (?,?,?,?)"
                    " ON CONFLICT(run_id, tab, key) DO UPDATE SET data = excluded.data",
                    [(run_id, table, key, json.dumps(data, sort_keys=True)) for table, key, data in rows],
                )
            return seqs

    def ledger_entries(self, run_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        rows = self._read("SELECT seq, kind, data FROM ledger_journal WHERE run_id = ? ORDER BY seq", (run_id,))
        return [(int(r["seq"]), str(r["kind"]), json.loads(r["data"])) for r in rows]

    def ledger_rows(self, run_id: str, table: str) -> list[tuple[str, dict[str, Any]]]:
        rows = self._read("SELECT key, data FROM ledger_rows WHERE run_id = ? AND tab = ? ORDER BY id",
                          (run_id, table))
        return [(str(r["key"]), json.loads(r["data"])) for r in rows]

    # -- tool responses (replay) ---------------------------------------------------------------------
    def put_responses(self, responses: Sequence[ToolResponse]) -> None:
        if not responses:
            return
        with self._tx() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO tool_responses(run_id, seq, tool, args_key, payload) VALUES (?,?,?,?,?)",
                [(r.run_id, r.seq, r.tool, r.args_key, json.dumps(r.payload)) for r in responses],
            )

    def responses(self, run_id: str) -> list[ToolResponse]:
        rows = self._read("SELECT seq, tool, args_key, payload FROM tool_responses WHERE run_id = ? ORDER BY seq",
                          (run_id,))
        return [ToolResponse(run_id, int(r["seq"]), str(r["tool"]), str(r["args_key"]), json.loads(r["payload"]))
                for r in rows]

    # -- model citations (eval pairs them with claims) ----------------------------------------------------
    def put_model_citations(self, citations: Sequence[ModelCitation]) -> None:
        if not citations:
            return
        with self._tx() as conn:
            conn.executemany("INSERT OR REPLACE INTO model_citations(run_id, seq, data) VALUES (?,?,?)",
                             [(c.run_id, c.seq, json.dumps(asdict(c))) for c in citations])

    def model_citations(self, run_id: str) -> list[ModelCitation]:
        rows = self._read("SELECT data FROM model_citations WHERE run_id = ? ORDER BY seq", (run_id,))
        return [ModelCitation(**json.loads(r["data"])) for r in rows]

    _RUN_SQL = (
        "SELECT r.run_id, r.trace_id, r.agent, r.question, r.started_at, r.ended_at, r.answer, r.error_type,"
        " s.data AS summary FROM runs r LEFT JOIN summaries s ON s.run_id = r.run_id"
    )

    @staticmethod
    def _run(row: sqlite3.Row) -> RunRecord:
        values = dict(row)
        raw = values.pop("summary")
        return RunRecord(**values, summary=json.loads(raw) if raw else None)

    def runs(self, limit: int = 50) -> list[RunRecord]:
        rows = self._read(self._RUN_SQL + " ORDER BY r.started_at DESC, r.rowid DESC LIMIT ?", (limit,))
        return [self._run(r) for r in rows]

    def get_run(self, run_id: str) -> RunRecord | None:
        rows = self._read(self._RUN_SQL + " WHERE r.run_id = ? OR r.trace_id = ?", (run_id, run_id))
        if not rows:
            like = run_id.replace("%", "").replace("_", "\\_") + "%"
            # a unique prefix of a run id, or of a trace id (a foreign root's run is filed under its trace id)
            match = " WHERE {0}run_id LIKE ? ESCAPE '\\' OR {0}trace_id LIKE ? ESCAPE '\\'"
            rows = self._read(self._RUN_SQL + match.format("r.") + " LIMIT 2", (like, like))
            if len(rows) > 1:
                count = self._read("SELECT COUNT(*) AS n FROM runs" + match.format(""), (like, like))
                raise AmbiguousRunId(run_id, int(count[0]["n"]), self.uri)
            if not rows:
                return None
        return self._run(rows[0])



_CALL_FIELDS = tuple(f.name for f in fields(ToolCallRecord))
_CALL_FIELD_SET = frozenset(_CALL_FIELDS)


def _call_to_json(call: ToolCallRecord) -> dict[str, Any]:
    # a flat record of str/int/float/None and one URL list: no need for asdict()'s recursive deep copy,
    # which cost ~25 µs per call (a tenth of a traced fetch with its store write)
    data = {name: getattr(call, name) for name in _CALL_FIELDS}
    data["urls_returned"] = list(call.urls_returned)
    if data["url_final"] is None:  # only redirected fetches carry it: other records read as before
        del data["url_final"]
    return data


def _call_from_json(data: dict[str, Any]) -> ToolCallRecord:
    data["urls_returned"] = tuple(data.get("urls_returned") or ())
    # a field a newer citetrace added is left out rather than failing the whole run's read
    return ToolCallRecord(**{k: v for k, v in data.items() if k in _CALL_FIELD_SET})


_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6  # SQLite's primary result codes (extended codes keep them in the low byte)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (_SQLITE_BUSY, _SQLITE_LOCKED)
    text = str(exc)
    return "locked" in text or "busy" in text


def _store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """One line naming the file and SQLite's problem ("file is not a database", "unable to open ...")."""
    if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
        return StoreBusy(f"{path}: {exc}")
    return StoreError(f"{path}: {exc}")
