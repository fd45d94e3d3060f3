"""contrib's real requests instrumentation beside citetrace: the HTTP span a library's call makes keeps the
parent it has without citetrace (the auto-instrumented tool span is not made current), while a tool the
application decorates with ``@traced_tool`` is current around its own code, as the application asked."""

from __future__ import annotations

from typing import Iterator

import pytest
import requests
import responses
from opentelemetry.instrumentation.requests import RequestsInstrumentor
from opentelemetry.sdk.trace import ReadableSpan
from tavily import TavilyClient

from citetrace import names, traced_tool
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

API = "https://api.tavily.com"
RESULTS = {"query": "q", "results": [{"url": "https://ex.org/1", "title": "t", "content": "c"}]}


@pytest.fixture
def http_spans(cap: Captured) -> Iterator[None]:
    """contrib's requests instrumentation on the same provider as citetrace's spans."""
    instrumentor = RequestsInstrumentor()
    instrumentor.instrument(tracer_provider=cap.tracer_provider)
    try:
        yield
    finally:
        instrumentor.uninstrument()


def _parents(cap: Captured) -> dict[str, str | None]:
    """Each span's name -> its parent's name (None for a root)."""
    by_id = {s.context.span_id: s.name for s in cap.spans}
    return {s.name: by_id.get(s.parent.span_id) if s.parent else None for s in cap.spans}


def _search_under_app_span(cap: Captured) -> None:
    with cap.tracer_provider.get_tracer("my-app").start_as_current_span("handle request"):
        TavilyClient(api_key="k").search("what is otel")


@responses.activate
def test_a_library_calls_http_span_keeps_its_parent(http_spans: None, cap: Captured) -> None:
    """Without citetrace, Tavily's POST is a child of the application's span; with citetrace it still is, and
    citetrace's tool span is its sibling."""
    responses.post(f"{API}/search", json=RESULTS)
    _search_under_app_span(cap)
    without = _parents(cap)
    cap.clear()
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    try:
        _search_under_app_span(cap)
    finally:
        instrumentor.uninstrument()
    parents = _parents(cap)
    assert without == {"POST": "handle request", "handle request": None}
    assert {k: v for k, v in parents.items() if not k.startswith("execute_tool")} == without
    assert parents["execute_tool tavily.search"] == "handle request"


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    """The application's own fetch tool."""
    return requests.get(url, timeout=5).text


@responses.activate
def test_a_decorated_tool_is_current_around_its_own_code(http_spans: None, cap: Captured) -> None:
    """``@traced_tool`` is a span the application wrote into its code: the HTTP call inside is its child."""
    responses.get("https://ex.org/page", body="page text long enough to count as a read " * 3)
    fetch("https://ex.org/page")
    spans: dict[str, ReadableSpan] = {s.name: s for s in cap.spans}
    assert _parents(cap) == {"GET": "execute_tool fetch", "execute_tool fetch": None}
    assert spans["execute_tool fetch"].attributes[names.TOOL_STATUS] == names.STATUS_OK  # type: ignore[index]
