"""SerpApi: the real ``serpapi`` client and ``google-search-results``' GoogleSearch, requests replaced."""

from __future__ import annotations

import pytest
import requests
import responses
import serpapi.core
import serpapi.serp_api_client
from serpapi.exceptions import HTTPError
from serpapi.google_search import GoogleSearch

from citetrace import names
from citetrace.capture._extract import query_hash
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import assert_restores, not_recording, one_tool_span, status_of

URL = "https://serpapi.com/search"
ORGANIC = {"organic_results": [{"position": i, "link": f"https://serp.example/{i}", "title": "t"} for i in range(4)]}


@responses.activate
def test_client_search_happy_path(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """serpapi.Client.search is one ok span; the query comes from the q parameter."""
    responses.get(URL, json=ORGANIC)
    result = serpapi.core.Client(api_key="k").search(q="coffee", engine="google")
    assert result["organic_results"] == ORGANIC["organic_results"]
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "serpapi.search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 4
    assert attrs[names.QUERY_HASH] == query_hash("coffee")


@responses.activate
def test_client_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No organic results is an empty search."""
    responses.get(URL, json={"organic_results": []})
    serpapi.core.Client(api_key="k").search({"q": "zzz", "engine": "google"})
    assert status_of(cap) == names.STATUS_EMPTY


@responses.activate
def test_client_429(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """The client's HTTPError for a 429 comes out rate_limited and is re-raised."""
    responses.get(URL, status=429, json={"error": "Your account has run out of searches."})
    with pytest.raises(HTTPError):
        serpapi.core.Client(api_key="k").search(q="q", engine="google")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_client_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A connection failure is an error span."""
    responses.get(URL, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        serpapi.core.Client(api_key="k").search(q="q", engine="google")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_google_search_get_dict(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """GoogleSearch.get_dict is one span (get_dict -> get_dictionary -> get_json nest into it)."""
    responses.get(URL, json=ORGANIC)
    data = GoogleSearch({"q": "legacy coffee", "api_key": "k"}).get_dict()
    assert data == ORGANIC
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "serpapi.google_search"
    assert attrs[names.QUERY_HASH] == query_hash("legacy coffee")
    assert list(attrs[names.URLS_RETURNED]) == [r["link"] for r in ORGANIC["organic_results"]]


@responses.activate
def test_google_search_429_and_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """The legacy client returns the error JSON; a 429 is rate_limited (probe), a 500 is error."""
    responses.get(URL, status=429, json={"error": "Your account has run out of searches."})
    GoogleSearch({"q": "a", "api_key": "k"}).get_dict()
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    responses.replace(responses.GET, URL, status=500, json={"error": "Internal error"})
    GoogleSearch({"q": "b", "api_key": "k"}).get_dict()
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_google_search_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A legacy search with no organic results is empty."""
    responses.get(URL, json={"organic_results": [], "search_metadata": {"status": "Success"}})
    GoogleSearch({"q": "zzz", "api_key": "k"}).get_dict()
    assert status_of(cap) == names.STATUS_EMPTY


@responses.activate
def test_uninstrument_restores(cap: Captured) -> None:
    """uninstrument restores Client.search and SerpApiClient.get_json/get_response exactly."""
    assert_restores([(serpapi.core.Client, "search"), (serpapi.serp_api_client.SerpApiClient, "get_json"),
                     (serpapi.serp_api_client.SerpApiClient, "get_response")])
    responses.get(URL, json=ORGANIC)
    GoogleSearch({"q": "a", "api_key": "k"}).get_dict()
    assert cap.tool_spans() == []


@responses.activate
def test_not_recording(instrumented: CiteTraceInstrumentor) -> None:
    """Not recording: same result, nothing exported."""
    responses.get(URL, json=ORGANIC)
    with not_recording() as exporter:
        assert GoogleSearch({"q": "a", "api_key": "k"}).get_dict() == ORGANIC
    assert exporter.get_finished_spans() == ()
