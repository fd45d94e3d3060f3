"""Tavily: the real tavily-python client, with only its HTTP (requests / httpx) replaced."""

from __future__ import annotations

import httpx
import pytest
import requests
import respx
import responses
import tavily
from tavily import AsyncTavilyClient, TavilyClient, UsageLimitExceededError

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.store import parse_ref
from citetrace.testing import Captured

from .conftest import assert_restores, not_recording, one_tool_span, status_of

API = "https://api.tavily.com"
RESULTS = {"query": "q", "results": [{"url": f"https://ex.org/{i}", "title": "t", "content": "c"} for i in range(3)]}
PAGE = "Tavily extracted page text, long enough to count as a real read."


@responses.activate
def test_search_happy_path(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilyClient.search becomes one ok search span with the result URLs and the same return value."""
    responses.post(f"{API}/search", json=RESULTS)
    result = TavilyClient(api_key="k").search("what is otel")
    assert result == RESULTS
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "tavily.search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [r["url"] for r in RESULTS["results"]]


@responses.activate
def test_search_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A search with no results is empty."""
    responses.post(f"{API}/search", json={"query": "q", "results": []})
    TavilyClient(api_key="k").search("nothing")
    assert status_of(cap) == names.STATUS_EMPTY


@responses.activate
def test_search_429_is_rate_limited(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Tavily's UsageLimitExceededError (HTTP 429) comes out rate_limited and is re-raised unchanged."""
    responses.post(f"{API}/search", status=429, json={"detail": {"error": "limit"}})
    with pytest.raises(UsageLimitExceededError):
        TavilyClient(api_key="k").search("q")
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert attrs[names.ERROR_TYPE] == "UsageLimitExceededError"


@responses.activate
def test_search_exception_is_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A connection failure is an error span; the caller gets the library's own exception."""
    responses.post(f"{API}/search", body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        TavilyClient(api_key="k").search("q")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_extract_stores_text(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """extract is a fetch: URL on the span, the raw content in the store under the span's reference."""
    url = "https://ex.org/page"
    responses.post(f"{API}/extract", json={"results": [{"url": url, "raw_content": PAGE}], "failed_results": []})
    TavilyClient(api_key="k").extract([url])
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_FETCH
    assert attrs[names.URL_FULL] == url
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE
    assert parse_ref(str(attrs[names.STORE_REF]))[1] == attrs[names.CONTENT_HASH]


@responses.activate
def test_extract_all_failed_is_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """An extract whose every URL failed is an error, not an empty read."""
    responses.post(f"{API}/extract", json={"results": [], "failed_results": [{"url": "https://x", "error": "e"}]})
    TavilyClient(api_key="k").extract("https://x")
    assert status_of(cap) == names.STATUS_ERROR


async def test_async_search(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """AsyncTavilyClient.search is traced too (httpx replaced by respx)."""
    with respx.mock(assert_all_called=True) as mock:
        mock.post(f"{API}/search").mock(return_value=httpx.Response(200, json=RESULTS))
        result = await AsyncTavilyClient(api_key="k").search("async q")
    assert result == RESULTS
    assert one_tool_span(cap)[names.RESULT_COUNT] == 3


async def test_async_429(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """The async client's 429 is rate_limited as well."""
    with respx.mock() as mock:
        mock.post(f"{API}/search").mock(return_value=httpx.Response(429, json={"detail": {"error": "x"}}))
        with pytest.raises(UsageLimitExceededError):
            await AsyncTavilyClient(api_key="k").search("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_uninstrument_restores_and_stops_spans(cap: Captured) -> None:
    """After uninstrument the methods are the original objects again and calls make no span."""
    assert_restores([(tavily.tavily.TavilyClient, "search"), (tavily.tavily.TavilyClient, "extract"),
                     (tavily.async_tavily.AsyncTavilyClient, "search")])
    responses.post(f"{API}/search", json=RESULTS)
    assert TavilyClient(api_key="k").search("q") == RESULTS
    assert cap.tool_spans() == []


@responses.activate
def test_not_recording_calls_through(instrumented: CiteTraceInstrumentor) -> None:
    """With a sampler that records nothing the call returns the same result and nothing is exported."""
    responses.post(f"{API}/search", json=RESULTS)
    with not_recording() as exporter:
        assert TavilyClient(api_key="k").search("q") == RESULTS
    assert exporter.get_finished_spans() == ()


@responses.activate
def test_search_with_raw_content_stores_each_page(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """``include_raw_content=True``: each result's page text is a document of the run and listed as a page
    returned (read with the search), as the HTTP-layer rule and langchain-tavily already record it; a result
    whose raw_content is None is a result only."""
    body = {"query": "q", "results": [{"url": "https://ex.org/page", "title": "t", "content": "c", "raw_content": PAGE},
                                      {"url": "https://ex.org/bare", "title": "t", "content": "c", "raw_content": None}]}
    responses.post(f"{API}/search", json=body)
    assert TavilyClient(api_key="k").search("q", include_raw_content=True) == body
    attrs = one_tool_span(cap)
    assert list(attrs[names.PAGES_RETURNED]) == ["https://ex.org/page"]
    assert attrs[names.RESULT_COUNT] == 2
    docs = cap.store.documents(format(cap.tool_spans()[0].context.trace_id, "032x"))
    assert [(d.url, d.text) for d in docs] == [("https://ex.org/page", PAGE)]
