"""The per-run store: every fetched page as the agent saw it, runs, tool calls and summaries.

``open_store(uri)`` picks a backend from the URI; ``default_store()`` opens the configured store lazily on
first use so that importing citetrace never touches the disk.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Sequence

from citetrace.store._memory import MemoryStore
from citetrace.store._model import (
    Document, LedgerEntry, LedgerRow, RunRecord, Store, ToolCallRecord, content_hash, make_ref, parse_ref,
)
from citetrace.store._sqlite import SQLiteStore

__all__ = [
    "Document",
    "LazyStore",
    "LedgerEntry",
    "LedgerRow",
    "MemoryStore",
    "RunRecord",
    "SQLiteStore",
    "Store",
    "ToolCallRecord",
    "content_hash",
    "default_store",
    "make_ref",
    "open_store",
    "parse_ref",
    "set_default_store",
]

_lock = threading.Lock()
_default: Store | None = None


def open_store(uri: str | None = None) -> Store:
    """Open a store: ``sqlite:///relative/or//absolute.db``, a bare path, or ``memory://``.

    With no URI, the configured store (``CITETRACE_STORE``, else ``./.citetrace/store.db``).
    """
    if uri is None:
        from citetrace.config import load_settings

        uri = load_settings().store_uri
    if uri.startswith("memory:"):
        return MemoryStore(uri)
    if uri.startswith("sqlite:///"):
        return SQLiteStore(Path(uri[len("sqlite:///"):]), uri=uri)
    if "://" in uri:
        raise ValueError(f"unsupported store URI {uri!r}: use sqlite:///path/to/store.db or memory://")
    return SQLiteStore(Path(uri))


def default_store() -> Store:
    """The process's store, opened on first use."""
    global _default
    if _default is None:
        with _lock:
            if _default is None:
                _default = open_store()
    return _default


def set_default_store(store: Store | None) -> Store | None:
    """Replace the process's store (``configure()`` and tests); returns the previous one."""
    global _default
    with _lock:
        previous, _default = _default, store
    return previous


class LazyStore:
    """A store opened on first use, so that configuring citetrace never creates files by itself."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self._store: Store | None = None
        self._lock = threading.Lock()

    def _get(self) -> Store:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    self._store = open_store(self.uri)
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

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "") -> None:
        self._get().put_summary(run_id, summary, trace_id=trace_id, agent=agent)

    def runs(self, limit: int = 50) -> list[RunRecord]:
        return self._get().runs(limit)

    def get_run(self, run_id: str) -> RunRecord | None:
        return self._get().get_run(run_id)

    def ledger_write(
        self, run_id: str, *, entries: Sequence[LedgerEntry] = (), rows: Sequence[LedgerRow] = ()
    ) -> list[int]:
        return self._get().ledger_write(run_id, entries=entries, rows=rows)

    def ledger_entries(self, run_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        return self._get().ledger_entries(run_id)

    def ledger_rows(self, run_id: str, table: str) -> list[tuple[str, dict[str, Any]]]:
        return self._get().ledger_rows(run_id, table)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
