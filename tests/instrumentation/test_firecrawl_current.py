"""Firecrawl's current client (firecrawl-py 4.55): search results that carry scraped pages, ``gov_search`` and
``developer_search``, sync and async; the real client, with only HTTP replaced (``responses`` / ``respx``)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import requests
import respx
import responses
from firecrawl import AsyncFirecrawl, Firecrawl, RateLimitError
from firecrawl.v2 import client as v2_client
from firecrawl.v2 import client_async as v2_async

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import assert_restores, one_tool_span, status_of

API = "https://api.firecrawl.dev"
PAGE = "# A scraped result\n\nEnough markdown text to be a real read of the page the search found."


def client() -> Firecrawl:
    """A client built after instrumentation (it binds its methods at construction), no retries."""
    return Firecrawl(api_key="fc-key", max_retries=1)


def gov_body(n: int) -> dict[str, Any]:
    """The Government Index's documented answer with ``n`` results under ``data.web``."""
    return {"success": True, "data": {"web": [{"url": f"https://law.example/{i}", "title": f"L{i}",
                                               "description": "d"} for i in range(n)]}}


def developer_body(n: int) -> dict[str, Any]:
    """The developer index's documented answer with ``n`` results and their evidence passages."""
    return {"success": True, "results": [
        {"id": str(i), "url": f"https://github.example/repo/{i}", "title": f"R{i}",
         "passages": [{"text": "def f(): ...", "citation_url": f"https://github.example/repo/{i}#L1"}]}
        for i in range(n)]}


@responses.activate
def test_search_with_scraped_results_stores_the_pages(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A search with scrape_options returns Documents: their markdown is stored as documents of the run, each
    counted as read (pages_returned); a plain result without a page is a result only."""
    web = [{"url": "https://fc.example/0", "title": "t", "markdown": PAGE, "metadata": {"sourceURL": "https://fc.example/0"}},
           {"url": "https://fc.example/1", "title": "t", "description": "no page"}]
    responses.post(f"{API}/v2/search", json={"success": True, "data": {"web": web}})
    client().search("scraped query", scrape_options={"formats": ["markdown"]})
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert list(attrs[names.URLS_RETURNED]) == ["https://fc.example/0", "https://fc.example/1"]
    assert list(attrs[names.PAGES_RETURNED]) == ["https://fc.example/0"]
    run_id = format(cap.tool_spans()[0].context.trace_id, "032x")
    assert {d.url: d.text for d in cap.store.documents(run_id)} == {"https://fc.example/0": PAGE}


@responses.activate
def test_gov_search_ok_empty_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """gov_search is one search span with the index's URLs; no results is empty; a 429 (RateLimitError,
    re-raised) rate_limited; a refused connection an error."""
    responses.post(f"{API}/v2/search/gov", json=gov_body(2))
    assert len(client().gov_search("section 1983", k=2).data.web) == 2
    attrs = one_tool_span(cap)
    assert (attrs[names.GEN_AI_TOOL_NAME], attrs[names.TOOL_STATUS]) == ("firecrawl.gov_search", names.STATUS_OK)
    assert list(attrs[names.URLS_RETURNED]) == ["https://law.example/0", "https://law.example/1"]
    assert attrs[names.QUERY_HASH]
    cap.clear()
    responses.replace(responses.POST, f"{API}/v2/search/gov", json=gov_body(0))
    client().gov_search("nothing")
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.POST, f"{API}/v2/search/gov", status=429,
                      json={"success": False, "error": "Rate limit exceeded"})
    with pytest.raises(RateLimitError):
        client().gov_search("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    responses.replace(responses.POST, f"{API}/v2/search/gov", body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        client().gov_search("q")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_developer_search_ok_and_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """developer_search is one search span with the results' URLs (their passages are excerpts, not stored);
    no results is empty."""
    responses.post(f"{API}/v2/search/developer", json=developer_body(3))
    client().developer_search("wrapt post import hook")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "firecrawl.developer_search"
    assert (attrs[names.TOOL_STATUS], attrs[names.RESULT_COUNT]) == (names.STATUS_OK, 3)
    assert names.PAGES_RETURNED not in attrs
    cap.clear()
    responses.replace(responses.POST, f"{API}/v2/search/developer", json=developer_body(0))
    client().developer_search("nothing")
    assert status_of(cap) == names.STATUS_EMPTY


async def test_async_gov_and_developer_search(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """The async client's gov_search and developer_search are traced (httpx replaced by respx); a 429 is
    rate_limited."""
    fc = AsyncFirecrawl(api_key="fc-key", max_retries=1)
    with respx.mock() as mock:
        gov = mock.post(f"{API}/v2/search/gov")
        gov.mock(return_value=httpx.Response(200, json=gov_body(1)))
        mock.post(f"{API}/v2/search/developer").mock(return_value=httpx.Response(200, json=developer_body(2)))
        await fc.gov_search("q")
        await fc.developer_search("q")
        assert [s.attributes[names.RESULT_COUNT] for s in cap.tool_spans()] == [1, 2]
        cap.clear()
        gov.mock(return_value=httpx.Response(429, json={"success": False, "error": "Rate limit exceeded"}))
        with pytest.raises(RateLimitError):
            await fc.gov_search("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


def test_uninstrument_restores_the_new_methods() -> None:
    """uninstrument() puts back the very gov_search and developer_search of both clients."""
    assert_restores([(v2_client.FirecrawlClient, "gov_search"), (v2_client.FirecrawlClient, "developer_search"),
                     (v2_async.AsyncFirecrawlClient, "gov_search"),
                     (v2_async.AsyncFirecrawlClient, "developer_search")])


@responses.activate
def test_scraped_page_status_decides(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A scrape whose page answered 404 (Firecrawl succeeds and reports it in metadata.status_code) is an error
    read with that status, a 429 page rate_limited; a 200 page ok."""
    for code, expected in ((404, names.STATUS_ERROR), (429, names.STATUS_RATE_LIMITED), (200, names.STATUS_OK)):
        cap.clear()
        responses.upsert(responses.POST, f"{API}/v2/scrape", json={"success": True, "data": {
            "markdown": PAGE, "metadata": {"sourceURL": "https://fc.example/p", "statusCode": code}}})
        client().scrape("https://fc.example/p", formats=["markdown"])
        attrs = one_tool_span(cap)
        assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (expected, code)


@responses.activate
def test_crawled_error_pages_are_not_read(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A crawl whose second page answered 404: both are results, only the first is a page read."""
    pages = [{"markdown": PAGE, "metadata": {"sourceURL": f"https://site.example/{i}", "statusCode": code}}
             for i, code in enumerate((200, 404))]
    responses.post(f"{API}/v2/crawl", json={"success": True, "id": "c1", "url": f"{API}/v2/crawl/c1"})
    responses.get(f"{API}/v2/crawl/c1", json={"success": True, "status": "completed", "completed": 2, "total": 2,
                                              "creditsUsed": 2, "data": pages})
    client().crawl("https://site.example/", poll_interval=0)
    attrs = one_tool_span(cap)
    assert list(attrs[names.URLS_RETURNED]) == ["https://site.example/0", "https://site.example/1"]
    assert list(attrs[names.PAGES_RETURNED]) == ["https://site.example/0"]
