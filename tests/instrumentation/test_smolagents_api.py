"""smolagents' API search tools (ApiWebSearchTool on Brave, GoogleSearchTool on serper and serpapi): the real
tools, with only requests' transport replaced by ``responses``."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import requests
import responses
from smolagents import default_tools
from smolagents.default_tools import ApiWebSearchTool, GoogleSearchTool

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor, _probe
from citetrace.testing import Captured

from .conftest import assert_restores, http_rows_only, one_tool_span, status_of

BRAVE = "https://api.search.brave.com/res/v1/web/search"
SERPER = "https://google.serper.dev/search"
SERPAPI = "https://serpapi.com/search.json"


def brave_body(n: int) -> dict[str, Any]:
    """Brave's documented web search answer with ``n`` results."""
    return {"web": {"results": [{"title": f"B{i}", "url": f"https://brave.example/{i}", "description": "d"}
                                for i in range(n)]}}


def google_body(key: str, n: int) -> dict[str, Any]:
    """A serper (``organic``) or serpapi (``organic_results``) answer with ``n`` results."""
    return {key: [{"title": f"G{i}", "link": f"https://google.example/{i}", "snippet": "s"} for i in range(n)]}


def brave_tool() -> ApiWebSearchTool:
    """The Brave tool with a key and no client-side rate limit (which would sleep between calls)."""
    return ApiWebSearchTool(api_key="k", rate_limit=None)


@pytest.fixture
def google_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """GoogleSearchTool reads its key from the environment at construction."""
    monkeypatch.setenv("SERPAPI_API_KEY", "sk")
    monkeypatch.setenv("SERPER_API_KEY", "sk")


@responses.activate
def test_brave_ok_is_one_span(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """ApiWebSearchTool is one ok search span with Brave's URLs (the recognised Brave endpoint inside adds none)."""
    responses.get(BRAVE, json=brave_body(3))
    out = brave_tool()("brave query")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "smolagents.api_web_search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [f"https://brave.example/{i}" for i in range(3)]
    assert all(url in out for url in attrs[names.URLS_RETURNED])
    assert responses.calls[0].request.params["q"] == "brave query"


@responses.activate
def test_brave_empty_429_and_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No results is empty; a 429 (HTTPError from raise_for_status) rate_limited with its status; a refused
    connection error; each exception re-raised unchanged."""
    responses.get(BRAVE, json=brave_body(0))
    assert brave_tool()("q") == "No results found."
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.GET, BRAVE, status=429, json={"type": "ErrorResponse"})
    with pytest.raises(requests.HTTPError):
        brave_tool()("q")
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 429
    cap.clear()
    responses.replace(responses.GET, BRAVE, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        brave_tool()("q")
    assert status_of(cap) == names.STATUS_ERROR


@pytest.mark.parametrize(("provider", "url", "key"), [("serper", SERPER, "organic"),
                                                      ("serpapi", SERPAPI, "organic_results")])
@responses.activate
def test_google_ok_and_empty(instrumented: CiteTraceInstrumentor, cap: Captured, google_keys: None,
                             provider: str, url: str, key: str) -> None:
    """GoogleSearchTool on either provider: ok with the links; an empty list and a missing list are empty."""
    responses.get(url, json=google_body(key, 2))
    GoogleSearchTool(provider=provider)("google query")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "smolagents.google_search"
    assert attrs[names.RESULT_COUNT] == 2
    assert list(attrs[names.URLS_RETURNED]) == ["https://google.example/0", "https://google.example/1"]
    cap.clear()
    responses.replace(responses.GET, url, json=google_body(key, 0))
    assert GoogleSearchTool(provider=provider)("q").startswith("No results found")
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.GET, url, json={"search_metadata": {}})
    with pytest.raises(Exception, match="No results found for query"):
        GoogleSearchTool(provider=provider)("q")
    assert status_of(cap) == names.STATUS_EMPTY


@pytest.mark.parametrize(("provider", "url"), [("serper", SERPER), ("serpapi", SERPAPI)])
@responses.activate
def test_google_429_and_errors(instrumented: CiteTraceInstrumentor, cap: Captured, google_keys: None,
                               provider: str, url: str) -> None:
    """GoogleSearchTool raises ValueError(<error JSON>) with no status in it: the requests probe makes a 429
    rate_limited and a 500 an error; a refused connection is an error."""
    responses.get(url, status=429, json={"error": "Your account has run out of searches."})
    with pytest.raises(ValueError):
        GoogleSearchTool(provider=provider)("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    responses.replace(responses.GET, url, status=500, json={"error": "No results found for query"})
    with pytest.raises(ValueError):
        GoogleSearchTool(provider=provider)("q")
    assert status_of(cap) == names.STATUS_ERROR
    cap.clear()
    responses.replace(responses.GET, url, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        GoogleSearchTool(provider=provider)("q")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_probe_ignores_other_threads(instrumented: CiteTraceInstrumentor) -> None:
    """The requests probe records the calling thread's status only: a 429 another thread got while a
    scope is open is not attributed to it."""
    responses.get("https://other.example/", status=429)
    with _probe.scope():
        worker = threading.Thread(target=requests.get, args=("https://other.example/",))
        worker.start()
        worker.join()
        assert not _probe.saw(429)
        requests.get("https://other.example/")
        assert _probe.saw(429)


@responses.activate
def test_http_layer_alone_would_make_a_span(cap: Captured) -> None:
    """Control for the one-span test: with only the HTTP rows applied, the same Brave call is a brave_search
    span, so one span under the row is the IN_TOOL pass-through at work."""
    responses.get(BRAVE, json=brave_body(1))
    with http_rows_only():
        brave_tool()("q")
    assert one_tool_span(cap)[names.GEN_AI_TOOL_NAME] == "brave_search"


@responses.activate
def test_uninstrument_restores(cap: Captured, google_keys: None) -> None:
    """After uninstrument forward and requests' Session.request are the originals and calls make no span."""
    assert_restores([(default_tools.ApiWebSearchTool, "forward"), (default_tools.GoogleSearchTool, "forward"),
                     (requests.sessions.Session, "request")])
    responses.get(BRAVE, json=brave_body(1))
    brave_tool()("q")
    assert cap.tool_spans() == []
