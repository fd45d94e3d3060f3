"""Fixtures for the instrumentation tests: instrument/uninstrument around each test, capture spans,
a local HTTP server, and a tracer provider that records nothing."""

from __future__ import annotations

import itertools
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

from citetrace import names
from citetrace import _telemetry
from citetrace.config import load_settings
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.store import MemoryStore
from citetrace.testing import Captured, capture_spans

from ._net import LocalServer


@pytest.fixture
def instrumented() -> Iterator[CiteTraceInstrumentor]:
    """The instrumentor, instrumented for one test (library rows only) and uninstrumented after."""
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    try:
        yield instrumentor
    finally:
        instrumentor.uninstrument()


@pytest.fixture
def instrumentor() -> Iterator[CiteTraceInstrumentor]:
    """The instrumentor, not yet instrumented (the test picks its rows and tools); uninstrumented after."""
    inst = CiteTraceInstrumentor()
    try:
        yield inst
    finally:
        inst.uninstrument()


_modules = itertools.count()


@contextmanager
def importable(directory: Path, source: str, prefix: str = "user_tools") -> Iterator[str]:
    """A fresh module name (not yet imported) whose file in ``directory`` holds ``source``: the user's own
    tools for ``CITETRACE_TOOLS``; removed from ``sys.path`` and ``sys.modules`` after."""
    name = f"{prefix}_{next(_modules)}"
    (directory / f"{name}.py").write_text(source)
    sys.path.insert(0, str(directory))
    try:
        yield name
    finally:
        sys.path.remove(str(directory))
        sys.modules.pop(name, None)


@pytest.fixture
def cap() -> Iterator[Captured]:
    """citetrace spans in memory, store writes to a memory store."""
    with capture_spans(empty_fetch_chars=20) as captured:
        yield captured


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """A real HTTP server on 127.0.0.1 that stops after the test."""
    with LocalServer() as srv:
        yield srv


@contextmanager
def not_recording() -> Iterator[InMemorySpanExporter]:
    """A provider whose sampler drops everything: spans exist but record nothing."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    store = MemoryStore()
    previous = _telemetry.current()
    _telemetry.reset(load_settings(), tracer_provider=provider, store=store)
    try:
        yield exporter
    finally:
        _telemetry.install(previous)
        provider.shutdown()


@contextmanager
def http_rows_only() -> Iterator[None]:
    """Only the HTTP-layer rows applied: the control showing that a library row's single span is the IN_TOOL
    pass-through of the recognised endpoint inside it, not a missing HTTP row."""
    from citetrace.instrumentation import _http
    from citetrace.instrumentation._patcher import Patcher
    from citetrace.instrumentation.package import SUPPORTED

    patcher = Patcher(SUPPORTED)
    patcher.start(_http.ROWS)
    try:
        yield
    finally:
        patcher.stop()


def one_tool_span(cap: Captured) -> dict[str, Any]:
    """The attributes of the single execute_tool span (fails when there are more or fewer)."""
    spans = cap.tool_spans()
    assert len(spans) == 1, [s.name for s in spans]
    return dict(spans[0].attributes or {})


def status_of(cap: Captured) -> str:
    """``citetrace.tool.status`` of the single tool span."""
    return str(one_tool_span(cap)[names.TOOL_STATUS])


def assert_restores(targets: list[tuple[Any, str]]) -> None:
    """instrument() replaces each ``owner.__dict__[attr]``; uninstrument() puts the very same object back."""
    before = [vars(owner)[attr] for owner, attr in targets]
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    try:
        assert all(vars(owner)[attr] is not old for (owner, attr), old in zip(targets, before))
    finally:
        instrumentor.uninstrument()
    assert all(vars(owner)[attr] is old for (owner, attr), old in zip(targets, before))
