"""Search APIs over plain HTTP: requests and httpx (sync and async) calls to the documented endpoints
become search spans; every other host passes through; an SDK call on a recognised endpoint is one span."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import requests
import responses
import respx

from citetrace import names, research_run, traced_tool
from citetrace.summary import SpanRecord, summarize
from citetrace.testing import Captured

from .conftest import one_tool_span

A, B = "https://a.example/page", "https://b.example/page"


def _serper(urls: list[str]) -> dict[str, Any]:
    return {"searchParameters": {"q": "x"}, "organic": [{"title": "t", "link": u, "snippet": "s"} for u in urls]}


@responses.activate
def test_serper_with_requests(instrumented: Any, cap: Captured) -> None:
    """POST google.serper.dev/search (gpt-researcher's and others' raw call): query, URLs, ok."""
    responses.post("https://google.serper.dev/search", json=_serper([A, B]))
    resp = requests.post("https://google.serper.dev/search", json={"q": "solar growth"},
                         headers={"X-API-KEY": "secret-key"}, timeout=5)
    assert resp.json()["organic"][0]["link"] == A
    span = one_tool_span(cap)
    assert span[names.GEN_AI_TOOL_NAME] == "serper_search" and span[names.TOOL_STATUS] == "ok"
    assert list(span[names.URLS_RETURNED]) == [A, B] and span[names.RESULT_COUNT] == 2
    assert names.QUERY_HASH in span


@pytest.mark.parametrize(("status", "body", "expected"), [
    (200, _serper([]), "empty"), (429, {"message": "quota"}, "rate_limited"), (500, {"message": "boom"}, "error"),
    (200, "not json", "ok")])
@responses.activate
def test_serper_empty_rate_limited_error_and_unreadable(instrumented: Any, cap: Captured, status: int, body: Any,
                                                        expected: str) -> None:
    """No results is empty; 429 rate_limited; 5xx an error; a body that is not the documented JSON is ok
    with no count (unknown, never a false empty); the error's text is never a result list."""
    if isinstance(body, str):
        responses.post("https://google.serper.dev/search", body=body, status=status)
    else:
        responses.post("https://google.serper.dev/search", json=body, status=status)
    requests.post("https://google.serper.dev/search", json={"q": "x"}, timeout=5)
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == expected
    assert list(span.get(names.URLS_RETURNED, ())) == []


@responses.activate
def test_connection_error_raises_unchanged(instrumented: Any, cap: Captured) -> None:
    """A transport exception propagates as the same object and the span is an error."""
    boom = requests.ConnectionError("refused")
    responses.get("https://api.search.brave.com/res/v1/web/search", body=boom)
    with pytest.raises(requests.ConnectionError) as raised:
        requests.get("https://api.search.brave.com/res/v1/web/search", params={"q": "x"}, timeout=5)
    assert raised.value is boom
    assert one_tool_span(cap)[names.TOOL_STATUS] == "error"


@pytest.mark.parametrize(("url", "params", "payload"), [
    ("https://api.search.brave.com/res/v1/web/search", {"q": "x"}, {"web": {"results": [{"url": A}]}}),
    ("https://api.bing.microsoft.com/v7.0/search", {"q": "x"}, {"webPages": {"value": [{"url": A}]}}),
    ("https://serpapi.com/search.json", {"q": "x", "api_key": "k"}, {"organic_results": [{"link": A}]}),
    ("https://www.googleapis.com/customsearch/v1", {"q": "x", "key": "k"}, {"items": [{"link": A}]}),
    ("https://api.ydc-index.io/search", {"query": "x"}, {"hits": [{"url": A}]}),
])
def test_get_endpoints_with_httpx(instrumented: Any, cap: Captured, url: str, params: dict[str, str],
                                  payload: dict[str, Any]) -> None:
    """Brave, Bing, SerpAPI, Google CSE and You.com through httpx: one search each, its URL read."""
    with respx.mock:
        respx.get(url).mock(return_value=httpx.Response(200, json=payload))
        with httpx.Client() as client:
            client.get(url, params=params)
    span = one_tool_span(cap)
    assert list(span[names.URLS_RETURNED]) == [A] and span[names.TOOL_STATUS] == "ok"


async def test_tavily_raw_content_with_async_httpx_is_stored_and_read(instrumented: Any, cap: Captured) -> None:
    """Tavily with include_raw_content: the page text is a document of the run and counts as read, so
    citing it is not cited_not_fetched, in the summary (pages_from_search 1, no read) and in eval (async
    httpx, as gpt-researcher-style agents call it)."""
    body = {"query": "x", "results": [{"url": A, "title": "t", "content": "snip", "raw_content": "Full page text."},
                                      {"url": B, "title": "t", "content": "snip"}]}
    with respx.mock:
        respx.post("https://api.tavily.com/search").mock(return_value=httpx.Response(200, json=body))
        with research_run("q") as run:
            async with httpx.AsyncClient() as client:
                await client.post("https://api.tavily.com/search", json={"query": "x", "include_raw_content": True})
            run.record_answer(f"Claim [1]. Other [2].\n\n[1] {A}\n[2] {B}")
    (span,) = cap.tool_spans()
    assert list((span.attributes or {})[names.PAGES_RETURNED]) == [A]
    (doc,) = cap.store.documents(run.id)
    assert (doc.url, doc.text) == (A, "Full page text.")
    summary = summarize([SpanRecord.from_readable_span(s) for s in cap.spans])
    assert summary.unfetched_urls == (B,) and summary.uncited_from_retrieval == 0
    assert (summary.pages_from_search, summary.reads) == (1, 0)
    from citetrace.eval import evaluate_run

    assert evaluate_run(cap.store, run.id).unfetched_urls == [B]  # eval reads the page that came with the result


@responses.activate
def test_other_hosts_and_methods_pass_through(instrumented: Any, cap: Captured) -> None:
    """Any other host, or a recognised host on another path or method, makes no span."""
    responses.get("https://example.org/search", json={"organic": [{"link": A}]})
    responses.get("https://google.serper.dev/account", json={})
    requests.get("https://example.org/search", timeout=5)
    requests.get("https://google.serper.dev/account", timeout=5)
    assert cap.tool_spans() == []


@responses.activate
def test_a_traced_tool_around_the_call_is_one_span(instrumented: Any, cap: Captured) -> None:
    """A decorated search tool that calls Serper itself gives its own span only."""
    responses.post("https://google.serper.dev/search", json=_serper([A]))

    @traced_tool(kind="search")
    def serper(query: str) -> list[dict[str, Any]]:
        return list(requests.post("https://google.serper.dev/search", json={"q": query}, timeout=5).json()["organic"])

    serper("x")
    assert [s.name for s in cap.tool_spans()] == ["execute_tool serper"]


@responses.activate
def test_tavily_sdk_call_is_one_span(instrumented: Any, cap: Captured) -> None:
    """tavily-python's own row covers the call; the HTTP layer underneath adds nothing."""
    from tavily import TavilyClient

    responses.post("https://api.tavily.com/search", json={"query": "x", "results": [{"url": A, "content": "c"}]})
    TavilyClient(api_key="tvly-test").search("x")
    assert len(cap.tool_spans()) == 1


@responses.activate
def test_uninstrumented_records_nothing(cap: Captured) -> None:
    """Without the instrumentor the same request makes no span."""
    responses.post("https://google.serper.dev/search", json=_serper([A]))
    requests.post("https://google.serper.dev/search", data=json.dumps({"q": "x"}), timeout=5)
    assert cap.tool_spans() == []
