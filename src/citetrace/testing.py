"""Helpers for your own tests: capture citetrace's spans and store writes without touching global state.

    from citetrace.testing import capture_spans

    def test_my_agent_marks_empty_searches():
        with capture_spans() as cap:
            my_agent.run("question")
        assert cap.tool_spans(status="empty")
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from citetrace import names
from citetrace import _telemetry
from citetrace.capture._internal import ADOPTER
from citetrace.config import load_settings
from citetrace.store import MemoryStore, Store

__all__ = ["Captured", "capture_spans", "no_network", "temporary_store"]


@dataclass
class Captured:
    """What ran inside ``capture_spans()``: finished spans, the store, the provider."""

    exporter: InMemorySpanExporter
    store: Store
    tracer_provider: TracerProvider

    @property
    def spans(self) -> list[ReadableSpan]:
        """Every finished span, in end order."""
        return list(self.exporter.get_finished_spans())

    def tool_spans(self, *, status: str | None = None, kind: str | None = None) -> list[ReadableSpan]:
        """``execute_tool`` spans, optionally filtered by ``citetrace.tool.status`` / ``citetrace.tool.kind``."""
        out = []
        for span in self.spans:
            attrs = span.attributes or {}
            if attrs.get(names.GEN_AI_OPERATION_NAME) != names.OP_EXECUTE_TOOL:
                continue
            if status is not None and attrs.get(names.TOOL_STATUS) != status:
                continue
            if kind is not None and attrs.get(names.TOOL_KIND) != kind:
                continue
            out.append(span)
        return out

    def run_spans(self) -> list[ReadableSpan]:
        """``invoke_agent`` root spans."""
        return [
            s for s in self.spans if (s.attributes or {}).get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT
        ]

    def clear(self) -> None:
        """Forget the spans captured so far."""
        self.exporter.clear()


@contextmanager
def capture_spans(*, store: Store | None = None, processors: tuple[SpanProcessor, ...] = (), **settings: Any) -> Iterator[
    Captured
]:
    """Route citetrace's spans to an in-memory exporter and its store writes to a memory store.

    Settings keywords (``capture_content=True``, ``empty_fetch_chars=50``...) override the environment.
    Extra span processors (a ``TraceSummaryProcessor``) run before the exporter.
    """
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(ADOPTER)
    for processor in processors:
        provider.add_span_processor(processor)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    run_store = store if store is not None else MemoryStore()
    previous = _telemetry.current()
    _telemetry.reset(load_settings(**settings), tracer_provider=provider, store=run_store)
    try:
        yield Captured(exporter, run_store, provider)
    finally:
        _telemetry.install(previous)
        provider.shutdown()


@contextmanager
def temporary_store(tmp_path: Any = None) -> Iterator[Store]:
    """A fresh store for one test: SQLite in ``tmp_path`` when given, else in memory."""
    if tmp_path is None:
        yield MemoryStore()
        return
    from citetrace.store import SQLiteStore

    store = SQLiteStore(f"{tmp_path}/store.db")
    try:
        yield store
    finally:
        store.close()


@contextmanager
def no_network() -> Iterator[list[Any]]:
    """Refuse every socket connection while the block runs, and list the addresses tried: proves that a
    replayed agent (``citetrace.replay``) calls nothing out. Binding and serving still work.

        with no_network() as attempts, citetrace.replay(run_id):
            my_agent.run(question)
        assert attempts == []
    """
    import socket

    attempts: list[Any] = []
    real = socket.socket.connect

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError(f"network disabled by citetrace.testing.no_network (tried {address!r})")

    socket.socket.connect = refuse  # type: ignore[method-assign,assignment]
    try:
        yield attempts
    finally:
        socket.socket.connect = real  # type: ignore[method-assign]
