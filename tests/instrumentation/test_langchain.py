"""LangChain community tools around the wrapped libraries: one span per tool call, never two."""

from __future__ import annotations

import warnings

import ddgs.http_client
import pytest
import requests
import responses
from langchain_community.retrievers.tavily_search_api import TavilySearchAPIRetriever
from langchain_community.tools.ddg_search.tool import DuckDuckGoSearchResults, DuckDuckGoSearchRun
from langchain_community.tools.tavily_search import tool as tavily_tool
from langchain_community.utilities.duckduckgo_search import DuckDuckGoSearchAPIWrapper
from langchain_community.utilities.tavily_search import TavilySearchAPIWrapper

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import FakePrimp, LocalServer
from .conftest import assert_restores, not_recording, one_tool_span, status_of
from .test_ddgs import DDG_PATH, ddg_html

TAVILY = "https://api.tavily.com/search"
RESULTS = {"results": [{"url": f"https://lc.example/{i}", "title": "t", "content": "c", "score": 0.9} for i in range(3)]}


def tavily_results_tool() -> tavily_tool.TavilySearchResults:
    """LangChain's (deprecated, still shipped) Tavily tool with a key, no environment needed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tavily_tool.TavilySearchResults(api_wrapper=TavilySearchAPIWrapper(tavily_api_key="k"))


@pytest.fixture
def primp(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> LocalServer:
    """ddgs' primp replaced by the forwarding stand-in."""
    monkeypatch.setattr(ddgs.http_client, "primp", FakePrimp(server))
    return server


def ddg_wrapper() -> DuckDuckGoSearchAPIWrapper:
    """The LangChain ddgs wrapper on the DuckDuckGo engine only (deterministic)."""
    return DuckDuckGoSearchAPIWrapper(backend="duckduckgo")


@responses.activate
def test_tavily_results_tool(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilySearchResults.invoke is one ok span with the artifact's URLs."""
    responses.post(TAVILY, json=RESULTS)
    out = tavily_results_tool().invoke({"query": "lc q"})
    assert [r["url"] for r in out] == [r["url"] for r in RESULTS["results"]]
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain.tavily_search_results"
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [r["url"] for r in RESULTS["results"]]


@responses.activate
def test_tavily_results_tool_failures(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """The tool returns repr(exception) instead of raising: 429 is rate_limited, a refused connection error,
    no results empty."""
    responses.post(TAVILY, status=429, json={"detail": "slow"})
    tavily_results_tool().invoke({"query": "q"})
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    responses.replace(responses.POST, TAVILY, body=requests.ConnectionError("refused"))
    tavily_results_tool().invoke({"query": "q"})
    assert status_of(cap) == names.STATUS_ERROR
    cap.clear()
    responses.replace(responses.POST, TAVILY, json={"results": []})
    tavily_results_tool().invoke({"query": "q"})
    assert status_of(cap) == names.STATUS_EMPTY


@responses.activate
def test_retriever_around_tavily_client_is_one_span(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilySearchAPIRetriever calls TavilyClient.search inside: only the retriever's span exists."""
    responses.post(TAVILY, json=RESULTS)
    docs = TavilySearchAPIRetriever(k=3, api_key="k").invoke("retriever q")
    assert len(docs) == 3
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain.tavily_retriever"
    assert list(attrs[names.URLS_RETURNED]) == [r["url"] for r in RESULTS["results"]]


def test_ddg_results_tool_around_ddgs_is_one_span(instrumented: CiteTraceInstrumentor, cap: Captured,
                                                  primp: LocalServer) -> None:
    """DuckDuckGoSearchResults calls ddgs inside: one span, the tool's, with ddgs' result links."""
    primp.routes[DDG_PATH] = (200, ddg_html(2), "text/html")
    DuckDuckGoSearchResults(api_wrapper=ddg_wrapper()).invoke({"query": "ddg q"})
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain.duckduckgo_results"
    assert list(attrs[names.URLS_RETURNED]) == ["https://ddg.example/0", "https://ddg.example/1"]


def test_ddg_run_tool(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """DuckDuckGoSearchRun: ok with results; the inner ddgs 429 makes it rate_limited."""
    primp.routes[DDG_PATH] = (200, ddg_html(2), "text/html")
    DuckDuckGoSearchRun(api_wrapper=ddg_wrapper()).invoke({"query": "q"})
    assert status_of(cap) == names.STATUS_OK
    cap.clear()
    primp.routes[DDG_PATH] = (429, "slow", "text/plain")
    with pytest.raises(Exception):
        DuckDuckGoSearchRun(api_wrapper=ddg_wrapper()).invoke({"query": "q"})
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_uninstrument_restores(cap: Captured) -> None:
    """uninstrument restores the LangChain methods exactly."""
    assert_restores([(tavily_tool.TavilySearchResults, "_run"), (DuckDuckGoSearchResults, "_run"),
                     (TavilySearchAPIRetriever, "_get_relevant_documents")])
    responses.post(TAVILY, json=RESULTS)
    tavily_results_tool().invoke({"query": "q"})
    assert cap.tool_spans() == []


@responses.activate
def test_not_recording(instrumented: CiteTraceInstrumentor) -> None:
    """Not recording: same output, nothing exported."""
    responses.post(TAVILY, json=RESULTS)
    with not_recording() as exporter:
        assert len(tavily_results_tool().invoke({"query": "q"})) == 3
    assert exporter.get_finished_spans() == ()


@responses.activate
def test_tavily_results_tool_with_raw_content_stores_pages(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """``include_raw_content=True``: each result's page text is stored and listed as read with the search
    (``citetrace.pages_returned``), as for tavily-python's own row; a failure's repr is never a page."""
    page = "The page text Tavily returned with its result, long enough to be a read. " * 3
    body = {"query": "q", "results": [{"url": "https://ex.org/raw", "title": "t", "content": "c", "score": 0.9, "raw_content": page},
                                      {"url": "https://ex.org/none", "title": "t", "content": "c", "score": 0.5}]}
    responses.post(TAVILY, json=body)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tool = tavily_tool.TavilySearchResults(api_wrapper=TavilySearchAPIWrapper(tavily_api_key="k"),
                                               include_raw_content=True)
    tool.invoke({"query": "q"})
    attrs = one_tool_span(cap)
    assert list(attrs[names.PAGES_RETURNED]) == ["https://ex.org/raw"]
    docs = cap.store.documents(format(cap.tool_spans()[0].context.trace_id, "032x"))
    assert [(d.url, d.text) for d in docs] == [("https://ex.org/raw", page)]
