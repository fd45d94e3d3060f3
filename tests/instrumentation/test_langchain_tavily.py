"""langchain-tavily: the real TavilySearch / TavilyExtract tools, with only the network replaced
(``responses`` for requests, a local server on 127.0.0.1 for the aiohttp path)."""

from __future__ import annotations

import json

import pytest
import requests
import responses
from langchain_core.tools import ToolException
from langchain_tavily import TavilyCrawl, TavilyExtract, TavilySearch
from langchain_tavily import tavily_crawl, tavily_extract, tavily_search

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import LocalServer
from .conftest import assert_restores, http_rows_only, one_tool_span, status_of

API = "https://api.tavily.com"
RESULTS = {"query": "q", "results": [{"url": f"https://lt.example/{i}", "title": "t", "content": "c"}
                                     for i in range(3)]}
PAGE = "A page's full text, which langchain-tavily hands back with include_raw_content."


@responses.activate
def test_search_ok(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilySearch.invoke is one ok search span (the requests call to the Tavily endpoint inside adds none)."""
    responses.post(f"{API}/search", json=RESULTS)
    out = TavilySearch(tavily_api_key="k").invoke({"query": "what is otel"})
    assert out == RESULTS
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain_tavily.search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [r["url"] for r in RESULTS["results"]]
    assert attrs[names.QUERY_HASH]
    assert len(responses.calls) == 1


@responses.activate
def test_search_raw_content_is_stored(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """With include_raw_content each result's page text becomes a document of the run."""
    body = {"results": [{"url": "https://lt.example/a", "content": "snippet", "raw_content": PAGE},
                        {"url": "https://lt.example/b", "content": "snippet", "raw_content": None}]}
    responses.post(f"{API}/search", json=body)
    TavilySearch(tavily_api_key="k", include_raw_content=True).invoke({"query": "q"})
    attrs = one_tool_span(cap)
    assert list(attrs[names.PAGES_RETURNED]) == ["https://lt.example/a"]
    assert json.loads(responses.calls[0].request.body)["include_raw_content"] is True


@responses.activate
def test_search_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Nothing found: _run raises ToolException (empty, re-raised unchanged); the tool's handle_tool_error
    turns it into the message the agent sees."""
    responses.post(f"{API}/search", json={"query": "q", "results": []})
    out = TavilySearch(tavily_api_key="k").invoke({"query": "nothing"})
    assert out.startswith("No search results found")
    with pytest.raises(ToolException, match="No search results found"):
        TavilySearch(tavily_api_key="k", handle_tool_error=False).invoke({"query": "nothing"})
    cap.clear()
    TavilySearch(tavily_api_key="k").invoke({"query": "nothing"})
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_EMPTY
    assert attrs[names.RESULT_COUNT] == 0


@responses.activate
def test_search_429_returned_as_error_dict(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A 429 comes back as {"error": ValueError("Error 429: ...")}: rate_limited, no result counted."""
    responses.post(f"{API}/search", status=429, json={"detail": {"error": "limit at https://api.tavily.com"}})
    out = TavilySearch(tavily_api_key="k").invoke({"query": "q"})
    assert isinstance(out["error"], ValueError)
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert attrs[names.RESULT_COUNT] == 0
    assert list(attrs[names.URLS_RETURNED]) == []


@responses.activate
def test_search_exception_is_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A refused connection is returned as {"error": ConnectionError}: error, not rate_limited."""
    responses.post(f"{API}/search", body=requests.ConnectionError("refused"))
    out = TavilySearch(tavily_api_key="k").invoke({"query": "q"})
    assert isinstance(out["error"], requests.ConnectionError)
    assert status_of(cap) == names.STATUS_ERROR


async def test_async_search_ok_and_429(instrumented: CiteTraceInstrumentor, cap: Captured,
                                       server: LocalServer) -> None:
    """TavilySearch.ainvoke (aiohttp, against a local server) is one span; its 429 is rate_limited."""
    server.routes["/search"] = (200, json.dumps(RESULTS), "application/json")
    tool = TavilySearch(tavily_api_key="k", api_base_url=server.base)
    assert await tool.ainvoke({"query": "async q"}) == RESULTS
    assert one_tool_span(cap)[names.RESULT_COUNT] == 3
    cap.clear()
    server.routes["/search"] = (429, json.dumps({"detail": {"error": "slow"}}), "application/json")
    out = await tool.ainvoke({"query": "async q"})
    assert "429" in str(out["error"])
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_extract_ok_stores_text(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilyExtract.invoke is one fetch span with the URL and the raw content stored."""
    url = "https://lt.example/page"
    responses.post(f"{API}/extract", json={"results": [{"url": url, "raw_content": PAGE}], "failed_results": []})
    TavilyExtract(tavily_api_key="k").invoke({"urls": [url]})
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain_tavily.extract"
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_FETCH
    assert attrs[names.URL_FULL] == url
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE


@responses.activate
def test_extract_failures(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Every URL failed: ToolException, an error; a 429: rate_limited with nothing stored as text."""
    url = "https://lt.example/gone"
    responses.post(f"{API}/extract", json={"results": [], "failed_results": [{"url": url, "error": "404"}]})
    assert TavilyExtract(tavily_api_key="k").invoke({"urls": [url]}).startswith("No extracted results found")
    assert status_of(cap) == names.STATUS_ERROR
    cap.clear()
    responses.replace(responses.POST, f"{API}/extract", status=429, json={"detail": {"error": "limit"}})
    TavilyExtract(tavily_api_key="k").invoke({"urls": [url]})
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == ""


@responses.activate
def test_crawl_pages_are_documents(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilyCrawl is one span: the start URL its query, each crawled page a result and a stored document."""
    pages = [{"url": f"https://site.example/{p}", "raw_content": f"{PAGE} ({p})"} for p in ("a", "b")]
    responses.post(f"{API}/crawl", json={"base_url": "https://site.example", "results": pages})
    TavilyCrawl(tavily_api_key="k").invoke({"url": "https://site.example"})
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain_tavily.crawl"
    assert attrs[names.QUERY_HASH]
    assert list(attrs[names.URLS_RETURNED]) == list(attrs[names.PAGES_RETURNED]) == [p["url"] for p in pages]
    assert json.loads(responses.calls[0].request.body)["url"] == "https://site.example"


@responses.activate
def test_crawl_empty_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No pages crawled is empty; a 429 rate_limited; a refused connection an error."""
    responses.post(f"{API}/crawl", json={"base_url": "https://site.example", "results": []})
    assert TavilyCrawl(tavily_api_key="k").invoke({"url": "https://site.example"}).startswith("No crawl results")
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.POST, f"{API}/crawl", status=429, json={"detail": {"error": "limit"}})
    TavilyCrawl(tavily_api_key="k").invoke({"url": "https://site.example"})
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    responses.replace(responses.POST, f"{API}/crawl", body=requests.ConnectionError("refused"))
    TavilyCrawl(tavily_api_key="k").invoke({"url": "https://site.example"})
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_http_layer_alone_without_the_row(cap: Captured) -> None:
    """Control for the one-span tests: with only the HTTP rows applied, the same call is one tavily_search span,
    so the one-span result above is the IN_TOOL pass-through, not a missing HTTP row."""
    responses.post(f"{API}/search", json=RESULTS)
    with http_rows_only():
        TavilySearch(tavily_api_key="k").invoke({"query": "q"})
    assert one_tool_span(cap)[names.GEN_AI_TOOL_NAME] == "tavily_search"


@responses.activate
def test_uninstrument_restores_and_stops_spans(cap: Captured) -> None:
    """After uninstrument the methods are the originals again and a call makes no span."""
    assert_restores([(tavily_search.TavilySearch, "_run"), (tavily_search.TavilySearch, "_arun"),
                     (tavily_extract.TavilyExtract, "_run"), (tavily_extract.TavilyExtract, "_arun"),
                     (tavily_crawl.TavilyCrawl, "_run"), (tavily_crawl.TavilyCrawl, "_arun")])
    responses.post(f"{API}/search", json=RESULTS)
    assert TavilySearch(tavily_api_key="k").invoke({"query": "q"}) == RESULTS
    assert cap.tool_spans() == []
