"""Firecrawl: the real firecrawl-py v4 client (v2 API), with requests replaced by ``responses``."""

from __future__ import annotations

import httpx
import pytest
import requests
import respx
import responses
from firecrawl import AsyncFirecrawl, Firecrawl, RateLimitError
from firecrawl.v2 import client as v2_client

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import assert_restores, not_recording, one_tool_span, status_of

API = "https://api.firecrawl.dev"
MARKDOWN = "# Firecrawl page\n\nEnough markdown text to be a real read of the page."
WEB = [{"url": f"https://fc.example/{i}", "title": "t", "description": "d"} for i in range(3)]


def client() -> Firecrawl:
    """A client built after instrumentation (it binds its methods at construction), no retries."""
    return Firecrawl(api_key="fc-key", max_retries=1)


@responses.activate
def test_scrape_happy_path(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """scrape is an ok fetch whose markdown is stored."""
    responses.post(f"{API}/v2/scrape", json={"success": True, "data": {"markdown": MARKDOWN}})
    doc = client().scrape("https://fc.example/page", formats=["markdown"])
    assert doc.markdown == MARKDOWN
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "firecrawl.scrape"
    assert attrs[names.URL_FULL] == "https://fc.example/page"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == MARKDOWN


@responses.activate
def test_scrape_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A scrape that returns no text is an empty read."""
    responses.post(f"{API}/v2/scrape", json={"success": True, "data": {"markdown": ""}})
    client().scrape("https://fc.example/blank")
    assert status_of(cap) == names.STATUS_EMPTY


@responses.activate
def test_search_happy_and_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """search reports the web results' URLs; no results is empty."""
    responses.post(f"{API}/v2/search", json={"success": True, "data": {"web": WEB}})
    client().search("firecrawl query")
    attrs = one_tool_span(cap)
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [w["url"] for w in WEB]
    cap.clear()
    responses.replace(responses.POST, f"{API}/v2/search", json={"success": True, "data": {"web": []}})
    client().search("nothing")
    assert status_of(cap) == names.STATUS_EMPTY


@responses.activate
def test_429_is_rate_limited(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Firecrawl's RateLimitError (429) comes out rate_limited and reaches the caller."""
    responses.post(f"{API}/v2/scrape", status=429, json={"success": False, "error": "Rate limit exceeded"})
    with pytest.raises(RateLimitError):
        client().scrape("https://fc.example/page")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_exception_is_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A transport error is an error span."""
    responses.post(f"{API}/v2/search", body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        client().search("q")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_uninstrument_restores(cap: Captured) -> None:
    """uninstrument restores FirecrawlClient.scrape/.search; new clients then make no span."""
    assert_restores([(v2_client.FirecrawlClient, "scrape"), (v2_client.FirecrawlClient, "search")])
    responses.post(f"{API}/v2/search", json={"success": True, "data": {"web": WEB}})
    client().search("q")
    assert cap.tool_spans() == []


@responses.activate
def test_client_built_while_instrumented_goes_quiet_after_uninstrument(cap: Captured) -> None:
    """A client that captured wrapped bound methods calls straight through once uninstrumented."""
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    fc = client()
    instrumentor.uninstrument()
    responses.post(f"{API}/v2/search", json={"success": True, "data": {"web": WEB}})
    assert len(fc.search("q").web or []) == 3
    assert cap.tool_spans() == []


@responses.activate
def test_not_recording(instrumented: CiteTraceInstrumentor) -> None:
    """Not recording: same result, nothing exported."""
    responses.post(f"{API}/v2/scrape", json={"success": True, "data": {"markdown": MARKDOWN}})
    with not_recording() as exporter:
        assert client().scrape("https://fc.example/page").markdown == MARKDOWN
    assert exporter.get_finished_spans() == ()


async def test_async_scrape_and_rate_limit(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """AsyncFirecrawl.scrape is traced (httpx replaced by respx); its 429 is rate_limited."""
    with respx.mock() as mock:
        route = mock.post(f"{API}/v2/scrape")
        route.mock(return_value=httpx.Response(200, json={"success": True, "data": {"markdown": MARKDOWN}}))
        doc = await AsyncFirecrawl(api_key="fc-key", max_retries=1).scrape("https://fc.example/a")
        assert doc.markdown == MARKDOWN
        assert one_tool_span(cap)[names.TOOL_STATUS] == names.STATUS_OK
        cap.clear()
        route.mock(return_value=httpx.Response(429, json={"success": False, "error": "Rate limit exceeded"}))
        with pytest.raises(RateLimitError):
            await AsyncFirecrawl(api_key="fc-key", max_retries=1).scrape("https://fc.example/a")
    assert status_of(cap) == names.STATUS_RATE_LIMITED
