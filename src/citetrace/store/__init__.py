"""The per-run store: every fetched page as the agent saw it, runs, tool calls and summaries.

``open_store(uri)`` picks a backend from the URI; ``open_existing_store(uri)`` opens one read-only and never
creates anything (the CLI's read-only commands); ``agent_store()`` builds what an agent writes through: opened
lazily on first use (importing or configuring citetrace never touches the disk), with a short lock wait and a
background queue for a locked store (``BufferedStore``). ``default_store()`` is that, from the settings.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from citetrace.store._buffered import BufferedStore, WriteStats
from citetrace.store._memory import MemoryStore
from citetrace.store._model import (
    AmbiguousRunId, Document, LedgerEntry, LedgerRow, ModelCitation, RunRecord, Store, StoreBusy, StoreConflict, StoreError,
    ToolCallRecord, ToolResponse, content_hash, make_ref, parse_ref, searched_keys,
)
from citetrace.store._spool import spool_dir_for
from citetrace.store._sqlite import SQLiteStore
from citetrace.store._uri import StoreURI, parse_store_uri, redact_uri

if TYPE_CHECKING:
    from citetrace.config import Settings

__all__ = [
    "AmbiguousRunId",
    "BufferedStore",
    "Document",
    "LazyStore",
    "LedgerEntry",
    "LedgerRow",
    "MemoryStore",
    "ModelCitation",
    "RunRecord",
    "ToolResponse",
    "SQLiteStore",
    "Store",
    "StoreBusy",
    "StoreConflict",
    "StoreError",
    "StoreURI",
    "ToolCallRecord",
    "WriteStats",
    "agent_store",
    "content_hash",
    "default_store",
    "searched_keys",
    "make_ref",
    "open_existing_store",
    "open_store",
    "parse_ref",
    "parse_store_uri",
    "set_default_store",
]

_log = logging.getLogger("citetrace")
_warned: set[str] = set()


def open_store(uri: str | None = None, *, lock_wait_s: float = 30.0) -> Store:
    """Open a store: ``sqlite:///relative/or//absolute.db``, a bare path, ``memory://`` or
    ``postgresql://user@host:port/db``.

    With no URI, the configured store (``CITETRACE_STORE``, else ``./.citetrace/store.db``). An SQLite store
    (and its folder) is created if missing, a PostgreSQL one's tables too; a write waits at most
    ``lock_wait_s`` on a lock.
    """
    if uri is None:
        from citetrace.config import load_settings

        uri = load_settings().store_uri
    parsed = parse_store_uri(uri)
    if parsed.kind == "memory":
        return MemoryStore(parsed.uri)
    if parsed.kind == "postgresql":
        return _postgres_store(parsed, lock_wait_s=lock_wait_s, read_only=False)
    assert parsed.path is not None
    return SQLiteStore(parsed.path, uri=parsed.uri, lock_wait_s=lock_wait_s)


def open_existing_store(uri: str) -> Store:
    """Open a store that must exist, read-only: nothing (no file, no folder) is ever created.

    Raises ValueError for a bad URI and ``StoreError`` naming the file for a missing, unreadable, corrupted
    or foreign one ("no store at ...", "... file is not a database").
    """
    parsed = parse_store_uri(uri)
    if parsed.kind == "memory":
        return MemoryStore(parsed.uri)
    if parsed.kind == "postgresql":
        return _postgres_store(parsed, lock_wait_s=30.0, read_only=True)
    path = parsed.path
    assert path is not None
    if not path.exists():
        raise StoreError(f"no store at {path} ({parsed.uri}); nothing has been recorded there")
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a store file")
    store = SQLiteStore(path, uri=parsed.uri, read_only=True)
    try:
        store.check()
    except BaseException:
        store.close()
        raise
    return store


def _postgres_store(parsed: StoreURI, *, lock_wait_s: float, read_only: bool) -> Store:
    """A ``PostgresStore``; psycopg is an extra, so its absence is a one-line ``StoreError`` saying what to install."""
    try:
        from citetrace.store._postgres import PostgresStore
    except ImportError as exc:
        raise StoreError(f"{parsed.display}: a PostgreSQL store needs psycopg 3 ({exc}); "
                         "pip install 'citetrace[postgres]'") from None
    return PostgresStore(parsed.uri, lock_wait_s=lock_wait_s, read_only=read_only)


def agent_store(store: Store | str | None = None, settings: "Settings | None" = None) -> BufferedStore:
    """The store an agent writes through: bounded lock waits, a queue for a locked store, counted losses.

    A URI (or the configured one) is checked now (ValueError names a bad one) and opened on first write, so a
    store that cannot be opened (a read-only folder) costs counted write errors, never the agent's start.
    """
    if settings is None:
        from citetrace.config import load_settings

        settings = load_settings()
    if isinstance(store, BufferedStore):
        return store
    spool: Path | None = None
    if store is None or isinstance(store, str):
        parsed = parse_store_uri(store) if store is not None else _configured_uri(settings.store_uri)
        spool = spool_dir_for(parsed.path) if parsed.path is not None else _server_spool_dir(parsed)
        store = LazyStore(parsed.uri, lock_wait_s=settings.store_lock_wait_ms / 1000.0)
    elif isinstance(store, SQLiteStore) and not store.read_only:
        spool = spool_dir_for(store.path)
    elif _is_postgres(store) and not getattr(store, "read_only", True):
        spool = _server_spool_dir(parse_store_uri(store.uri))
    return BufferedStore(store, max_pending=settings.store_queue_max,
                         exit_wait_s=settings.store_exit_wait_seconds, spool_dir=spool)


def _is_postgres(store: Store) -> bool:
    """A ``PostgresStore``, without importing psycopg when none was ever made."""
    module = sys.modules.get("citetrace.store._postgres")
    return module is not None and isinstance(store, module.PostgresStore)


def __getattr__(name: str) -> Any:
    """``citetrace.store.PostgresStore``, imported on first use: psycopg is the ``postgres`` extra."""
    if name == "PostgresStore":
        from citetrace.store._postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _server_spool_dir(parsed: StoreURI) -> Path | None:
    """Where an agent spools writes queued for a database server: ``.citetrace/`` in the working directory, as
    the default SQLite store, one folder per database (named by a hash of its password-free URI), so the next
    agent started there for the same database writes what a killed one left."""
    if parsed.kind != "postgresql":
        return None
    from citetrace import names

    digest = content_hash(parsed.display)[:16]
    base = parse_store_uri(names.STORE_DEFAULT_URI).path
    assert base is not None
    return base.parent / f"{parsed.kind}-{digest}.spool"


def _configured_uri(uri: str) -> StoreURI:
    """The configured store, or the default after one warning naming ``CITETRACE_STORE`` and the problem: a bad
    variable must neither stop an agent nor lose its runs silently."""
    from citetrace import names

    try:
        return parse_store_uri(uri)
    except ValueError as exc:
        if uri not in _warned:
            _warned.add(uri)
            _log.warning("citetrace: ignoring %s=%r (%s); using the default %s", names.ENV_STORE, uri, exc,
                         names.STORE_DEFAULT_URI)
        return parse_store_uri(names.STORE_DEFAULT_URI)


def default_store() -> Store:
    """The current telemetry's store (``citetrace._telemetry.current().run_store()``): the configured one, else
    ``agent_store()`` from the settings, made on first use."""
    from citetrace import _telemetry  # late: the telemetry is built on this package

    return _telemetry.current().run_store()


def set_default_store(store: Store | None) -> Store | None:
    """Replace the current telemetry's store (None: the settings' one, made on first use); returns the previous."""
    from citetrace import _telemetry

    telemetry = _telemetry.current()
    previous, telemetry.store = telemetry.store, store
    return previous


class LazyStore:
    """A store opened on first use, so that configuring citetrace never creates files by itself."""

    def __init__(self, uri: str, *, lock_wait_s: float = 30.0) -> None:
        self.uri = redact_uri(uri)  # what logs and messages show; the password stays in _target only
        self._target = uri
        self._lock_wait_s = lock_wait_s
        self._store: Store | None = None
        self._lock = threading.Lock()

    def _get(self) -> Store:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    self._store = open_store(self._target, lock_wait_s=self._lock_wait_s)
        return self._store

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
        return self._get().put_document(
            run_id, url, text, status=status, http_status=http_status, content_type=content_type,
            fetched_at=fetched_at,
        )

    def documents(self, run_id: str) -> list[Document]:
        return self._get().documents(run_id)

    def get(self, run_id: str, url: str) -> Document | None:
        return self._get().get(run_id, url)

    def get_ref(self, ref: str) -> str | None:
        return self._get().get_ref(ref)

    def put_run(self, run: RunRecord) -> None:
        self._get().put_run(run)

    def finish_run(self, run_id: str, *, ended_at: float, answer: str | None, error_type: str | None) -> None:
        self._get().finish_run(run_id, ended_at=ended_at, answer=answer, error_type=error_type)

    def put_calls(self, calls: Sequence[ToolCallRecord]) -> None:
        self._get().put_calls(calls)

    def calls(self, run_id: str) -> list[ToolCallRecord]:
        return self._get().calls(run_id)

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: RunRecord | None = None) -> None:
        self._get().put_summary(run_id, summary, trace_id=trace_id, agent=agent, run=run)

    def runs(self, limit: int = 50) -> list[RunRecord]:
        return self._get().runs(limit)

    def get_run(self, run_id: str) -> RunRecord | None:
        return self._get().get_run(run_id)

    def ledger_write(
        self, run_id: str, *, entries: Sequence[LedgerEntry] = (), rows: Sequence[LedgerRow] = (),
        after_seq: int | None = None,
    ) -> list[int]:
        return self._get().ledger_write(run_id, entries=entries, rows=rows, after_seq=after_seq)

    def ledger_entries(self, run_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        return self._get().ledger_entries(run_id)

    def ledger_rows(self, run_id: str, table: str) -> list[tuple[str, dict[str, Any]]]:
        return self._get().ledger_rows(run_id, table)

    def put_responses(self, responses: Sequence[ToolResponse]) -> None:
        self._get().put_responses(responses)

    def responses(self, run_id: str) -> list[ToolResponse]:
        return self._get().responses(run_id)

    def put_model_citations(self, citations: Sequence[ModelCitation]) -> None:
        self._get().put_model_citations(citations)

    def model_citations(self, run_id: str) -> list[ModelCitation]:
        return self._get().model_citations(run_id)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
