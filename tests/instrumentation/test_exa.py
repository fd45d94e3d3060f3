"""Exa: the real exa-py client, with only its HTTP (requests / httpx) replaced."""

from __future__ import annotations

import httpx
import pytest
import requests
import respx
import responses
from exa_py import AsyncExa, Exa
from exa_py import api as exa_api

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import assert_restores, not_recording, one_tool_span, status_of

API = "https://api.exa.ai"
PAGE = "Exa page text that is long enough to be a real read of the page."


def _results(n: int) -> dict[str, object]:
    return {"results": [{"url": f"https://exa.example/{i}", "id": str(i), "title": "t", "text": PAGE} for i in range(n)]}


@responses.activate
def test_search_happy_path(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Exa.search is one ok search span with the result URLs."""
    responses.post(f"{API}/search", json=_results(2))
    response = Exa(api_key="k").search("exa query")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "exa.search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert list(attrs[names.URLS_RETURNED]) == [r.url for r in response.results]


@responses.activate
def test_search_and_contents_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """search_and_contents with no results is one empty span (no nested exa.search span)."""
    responses.post(f"{API}/search", json=_results(0))
    Exa(api_key="k").search_and_contents("nothing", text=True)
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "exa.search_and_contents"
    assert attrs[names.TOOL_STATUS] == names.STATUS_EMPTY


@responses.activate
def test_get_contents_is_a_stored_fetch(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """get_contents is a fetch of its first URL whose text lands in the store."""
    responses.post(f"{API}/contents", json=_results(1))
    Exa(api_key="k").get_contents(["https://exa.example/0"], text=True)
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_FETCH
    assert attrs[names.URL_FULL] == "https://exa.example/0"
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE


@responses.activate
def test_429_is_rate_limited(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Exa's ValueError("... status code 429 ...") comes out rate_limited and is re-raised."""
    responses.post(f"{API}/search", status=429, json={"error": "too many"})
    with pytest.raises(ValueError, match="429"):
        Exa(api_key="k").search("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_server_error_is_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A 500 is an error, not a rate limit."""
    responses.post(f"{API}/search", status=500, json={"error": "boom"})
    with pytest.raises(ValueError):
        Exa(api_key="k").search("q")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_exception_is_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A transport exception is an error span and reaches the caller as raised."""
    responses.post(f"{API}/search", body=requests.ConnectionError("down"))
    with pytest.raises(requests.ConnectionError):
        Exa(api_key="k").search("q")
    assert status_of(cap) == names.STATUS_ERROR


async def test_async_search(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """AsyncExa.search is traced (httpx replaced by respx)."""
    with respx.mock() as mock:
        mock.post(f"{API}/search").mock(return_value=httpx.Response(200, json=_results(3)))
        await AsyncExa(api_key="k").search("async")
    attrs = one_tool_span(cap)
    assert attrs[names.RESULT_COUNT] == 3


@responses.activate
def test_uninstrument_restores(cap: Captured) -> None:
    """uninstrument puts the original methods back; calls then make no span."""
    assert_restores([(exa_api.Exa, m) for m in ("search", "search_and_contents", "get_contents")])
    responses.post(f"{API}/search", json=_results(1))
    Exa(api_key="k").search("q")
    assert cap.tool_spans() == []


@responses.activate
def test_not_recording(instrumented: CiteTraceInstrumentor) -> None:
    """Not recording: same result, nothing exported."""
    responses.post(f"{API}/search", json=_results(1))
    with not_recording() as exporter:
        assert len(Exa(api_key="k").search("q").results) == 1
    assert exporter.get_finished_spans() == ()
