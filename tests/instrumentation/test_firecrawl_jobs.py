"""Firecrawl crawl and batch_scrape: the real firecrawl-py v4 client, with only HTTP replaced (``responses`` for
the sync client, ``respx`` for the async one). Jobs answer "completed" on the first status check, so the
client's poll loop never sleeps."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import requests
import respx
import responses
from firecrawl import AsyncFirecrawl, Firecrawl, RateLimitError
from firecrawl.v2 import client as v2_client
from firecrawl.v2 import client_async as v2_client_async

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import assert_restores, one_tool_span, status_of

API = "https://api.firecrawl.dev"
MARKDOWN = "# A crawled page\n\nEnough markdown text to be a real read of the page."
SITE = "https://fc.example"


def job(status: str, n: int) -> dict[str, Any]:
    """A job status answer with ``n`` pages read."""
    data = [{"markdown": f"{MARKDOWN} {i}", "metadata": {"sourceURL": f"{SITE}/{i}", "url": f"{SITE}/{i}"}}
            for i in range(n)]
    return {"success": True, "status": status, "completed": n, "total": n, "data": data}


def client() -> Firecrawl:
    """A client built after instrumentation (it binds its methods at construction), no retries."""
    return Firecrawl(api_key="fc-key", max_retries=1)


@responses.activate
def test_crawl_pages_are_documents(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """crawl is one span: the start URL its query, each page a result and a stored document."""
    responses.post(f"{API}/v2/crawl", json={"success": True, "id": "c1", "url": f"{API}/v2/crawl/c1"})
    responses.get(f"{API}/v2/crawl/c1", json=job("completed", 2))
    crawled = client().crawl(SITE, poll_interval=0)
    assert len(crawled.data) == 2
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "firecrawl.crawl"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.QUERY_HASH]
    assert list(attrs[names.URLS_RETURNED]) == list(attrs[names.PAGES_RETURNED]) == [f"{SITE}/0", f"{SITE}/1"]


@responses.activate
def test_crawl_empty_failed_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A job that read nothing is empty, a failed job an error, a 429 at start rate_limited (RateLimitError
    re-raised), a refused connection an error."""
    responses.post(f"{API}/v2/crawl", json={"success": True, "id": "c1", "url": f"{API}/v2/crawl/c1"})
    responses.get(f"{API}/v2/crawl/c1", json=job("completed", 0))
    client().crawl(SITE, poll_interval=0)
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.GET, f"{API}/v2/crawl/c1", json=job("failed", 0))
    assert client().crawl(SITE, poll_interval=0).status == "failed"
    assert status_of(cap) == names.STATUS_ERROR
    cap.clear()
    responses.replace(responses.POST, f"{API}/v2/crawl", status=429, json={"success": False, "error": "slow"})
    with pytest.raises(RateLimitError):
        client().crawl(SITE, poll_interval=0)
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    responses.replace(responses.POST, f"{API}/v2/crawl", body=requests.ConnectionError("refused"))
    with pytest.raises(Exception):
        client().crawl(SITE, poll_interval=0)
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_batch_scrape_one_document_per_url(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """batch_scrape over two URLs is one span whose two pages are stored, each under its own URL."""
    responses.post(f"{API}/v2/batch/scrape", json={"success": True, "id": "b1", "url": f"{API}/v2/batch/scrape/b1"})
    responses.get(f"{API}/v2/batch/scrape/b1", json=job("completed", 2))
    client().batch_scrape([f"{SITE}/0", f"{SITE}/1"], poll_interval=0)
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "firecrawl.batch_scrape"
    assert list(attrs[names.PAGES_RETURNED]) == [f"{SITE}/0", f"{SITE}/1"]
    assert attrs[names.RESULT_COUNT] == 2


async def test_async_crawl(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """AsyncFirecrawl.crawl is traced too (httpx replaced by respx)."""
    with respx.mock() as mock:
        mock.post(f"{API}/v2/crawl").mock(return_value=httpx.Response(200, json={"success": True, "id": "c2", "url": f"{API}/v2/crawl/c2"}))
        mock.get(f"{API}/v2/crawl/c2").mock(return_value=httpx.Response(200, json=job("completed", 3)))
        await AsyncFirecrawl(api_key="fc-key", max_retries=1).crawl(url=SITE, poll_interval=0)
    assert one_tool_span(cap)[names.RESULT_COUNT] == 3


def test_uninstrument_restores(cap: Captured) -> None:
    """uninstrument puts the original methods back."""
    assert_restores([(v2_client.FirecrawlClient, "crawl"), (v2_client.FirecrawlClient, "batch_scrape"),
                     (v2_client_async.AsyncFirecrawlClient, "crawl"),
                     (v2_client_async.AsyncFirecrawlClient, "batch_scrape")])
