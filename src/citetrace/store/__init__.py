"""The per-run store: every fetched page as the agent saw it, runs, tool calls and summaries.

``open_store(uri)`` picks a backend from the URI; ``default_store()`` opens the configured store lazily on
first use so that importing citetrace never touches the disk.
"""

from __future__ import annotations

import threading
from pathlib import Path

from citetrace.store._memory import MemoryStore
from citetrace.store._model import Document, RunRecord, Store, ToolCallRecord, content_hash, make_ref, parse_ref
from citetrace.store._sqlite import SQLiteStore

__all__ = [
    "Document",
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
