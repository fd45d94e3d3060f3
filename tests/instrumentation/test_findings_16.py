"""Issue 16's "Wrong today" findings, one test each, with the real libraries and only the network replaced
(``responses`` for requests, ``respx`` for httpx, primp forwarded to a local server for ddgs)."""

from __future__ import annotations

import logging
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

import ddgs.ddgs as ddgs_mod
import ddgs.http_client
import httpx
import pytest
import requests
import responses
import respx

from citetrace import names
from citetrace.capture._extract import locate_results, text_size
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import FakePrimp, LocalServer
from .conftest import one_tool_span
from .test_ddgs import DDG_PATH, ddg_html

TAVILY = "https://api.tavily.com/search"
PAGE_URL = "https://page.example/article"


@pytest.fixture
def primp(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> LocalServer:
    """ddgs' primp forwarded to the local server; the text search on the DuckDuckGo engine only."""
    monkeypatch.setattr(ddgs.http_client, "primp", FakePrimp(server))
    monkeypatch.setitem(ddgs_mod.ENGINES, "text", {"duckduckgo": ddgs_mod.ENGINES["text"]["duckduckgo"]})
    return server


def _tavily_results_tool() -> Any:
    from langchain_community.tools.tavily_search import tool as tavily_tool
    from langchain_community.utilities.tavily_search import TavilySearchAPIWrapper

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tavily_tool.TavilySearchResults(api_wrapper=TavilySearchAPIWrapper(tavily_api_key="k"))


@pytest.mark.parametrize("tool", ["DuckDuckGoSearchResults", "DuckDuckGoSearchRun"])
def test_langchain_duckduckgo_nothing_found_is_empty(instrumented: CiteTraceInstrumentor, cap: Captured,
                                                     primp: LocalServer, tool: str) -> None:
    """LangChain's DuckDuckGo tools, the engine answering 200 with no results: empty, not error (DDGSException)."""
    from langchain_community.tools.ddg_search import tool as ddg_tool
    from langchain_community.utilities.duckduckgo_search import DuckDuckGoSearchAPIWrapper

    primp.routes[DDG_PATH] = (200, ddg_html(0), "text/html")
    cls = getattr(ddg_tool, tool)
    try:
        cls(api_wrapper=DuckDuckGoSearchAPIWrapper(backend="duckduckgo")).invoke({"query": "nothing here"})
    except Exception as exc:  # the tool lets ddgs' "No results found." through, as without citetrace
        assert "No results found" in str(exc)
    span = one_tool_span(cap)
    assert (span[names.TOOL_STATUS], span[names.RESULT_COUNT]) == ("empty", 0)


@responses.activate
def test_tavily_results_429_has_no_result_urls(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilySearchResults on a 429: rate_limited with status 429, no URL (the endpoint in the error text is
    not a result), count 0, size 0."""
    responses.post(TAVILY, status=429, json={"detail": {"error": "rate limit"}})
    content, artifact = _tavily_results_tool().invoke({"query": "q"}), None
    assert "api.tavily.com" in str(content) and artifact is None
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == "rate_limited" and span[names.HTTP_RESPONSE_STATUS_CODE] == 429
    assert (list(span[names.URLS_RETURNED]), span[names.RESULT_COUNT], span[names.RESULT_SIZE]) == ([], 0, 0)


@responses.activate
def test_tavily_results_size_counts_the_results_only(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """result.size is the text of the three results, the same whatever the query and request id."""
    results = [{"url": f"https://lc.example/{i}", "title": f"Title {i}", "content": "c" * (10 + i), "score": 0.5}
               for i in range(3)]
    sizes = []
    for query, request_id in (("q", "r"), ("a much longer query " * 5, "request-" * 8)):
        responses.upsert(responses.POST, TAVILY, json={"query": query, "request_id": request_id, "results": results})
        _tavily_results_tool().invoke({"query": query})
        sizes.append(one_tool_span(cap)[names.RESULT_SIZE])
        cap.clear()
    assert sizes[0] == sizes[1] == text_size(results, locate_results(results))


# -- http.response.status_code where the library hides it ---------------------------------------------------
def _tavily_sync() -> None:
    from tavily import TavilyClient

    responses.post(TAVILY, status=429, json={"detail": {"error": "limit"}})
    TavilyClient(api_key="k").search("q")


def _tavily_async() -> None:
    import asyncio

    from tavily import AsyncTavilyClient

    with respx.mock:
        respx.post(TAVILY).mock(return_value=httpx.Response(429, json={"detail": {"error": "limit"}}))
        asyncio.run(AsyncTavilyClient(api_key="k").search("q"))


def _visit(status: int) -> Callable[[], None]:
    def go() -> None:
        from smolagents import VisitWebpageTool

        responses.get(PAGE_URL, status=status, body="denied")
        assert VisitWebpageTool()(PAGE_URL).startswith("Error fetching the webpage")

    return go


def _google(provider: str, url: str) -> Callable[[], None]:
    def go() -> None:
        from smolagents.default_tools import GoogleSearchTool

        responses.get(url, status=429, json={"error": "Your account has run out of searches."})
        GoogleSearchTool(provider=provider)("q")

    return go


def _requests_get() -> None:
    from langchain_community.tools.requests.tool import RequestsGetTool
    from langchain_community.utilities.requests import TextRequestsWrapper

    responses.get(PAGE_URL, status=404, body="<h1>Not Found</h1>" * 5)
    RequestsGetTool(requests_wrapper=TextRequestsWrapper(), allow_dangerous_requests=True).invoke({"url": PAGE_URL})


def _web_loader() -> None:
    from langchain_community.document_loaders.web_base import WebBaseLoader

    responses.get(PAGE_URL, status=429, body="<html><body>slow down</body></html>")
    WebBaseLoader(PAGE_URL).load()


def _brave() -> None:
    from langchain_community.utilities.brave_search import BraveSearchWrapper

    responses.get("https://api.search.brave.com/res/v1/web/search", status=429, json={"type": "ErrorResponse"})
    BraveSearchWrapper(api_key="k").run("q")


HIDDEN = [
    ("tavily UsageLimitExceededError", _tavily_sync, 429),
    ("tavily async UsageLimitExceededError", _tavily_async, 429),
    ("VisitWebpageTool 404 Client Error text", _visit(404), 404),
    ("VisitWebpageTool 429 Client Error text", _visit(429), 429),
    ("GoogleSearchTool serper ValueError", _google("serper", "https://google.serper.dev/search"), 429),
    ("GoogleSearchTool serpapi ValueError", _google("serpapi", "https://serpapi.com/search.json"), 429),
    ("RequestsGetTool error page as text", _requests_get, 404),
    ("WebBaseLoader error page as a document", _web_loader, 429),
    ("BraveSearch Exception('HTTP error 429')", _brave, 429),
]


@pytest.mark.parametrize(("case", "call", "status"), HIDDEN, ids=[h[0] for h in HIDDEN])
@responses.activate
def test_status_code_the_library_hid(instrumented: CiteTraceInstrumentor, cap: Captured, monkeypatch: pytest.MonkeyPatch,
                                     case: str, call: Callable[[], None], status: int) -> None:
    """The span carries the HTTP status the library saw but did not pass on (raised without it, returned an
    error page or an error sentence), and its classification follows it."""
    monkeypatch.setenv("SERPAPI_API_KEY", "sk")
    monkeypatch.setenv("SERPER_API_KEY", "sk")
    try:
        call()
    except Exception:  # noqa: BLE001 - most of these raise, exactly as without citetrace
        pass
    span = one_tool_span(cap)
    assert span[names.HTTP_RESPONSE_STATUS_CODE] == status
    assert span[names.TOOL_STATUS] == ("rate_limited" if status == 429 else "error")


@pytest.mark.parametrize(("status", "expected"), [(429, "rate_limited"), (404, "error")])
def test_ddgs_hidden_statuses(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer,
                              status: int, expected: str) -> None:
    """ddgs' rate limit (text search: "No results found.") and DDGS.extract's failure carry the status."""
    import ddgs

    primp.routes[DDG_PATH] = (status, "slow", "text/plain")
    primp.routes["/page.example/article"] = (status, "slow", "text/plain")
    for call in (lambda: ddgs.DDGS().text("q", backend="duckduckgo"), lambda: ddgs.DDGS().extract(PAGE_URL)):
        cap.clear()
        with pytest.raises(Exception):
            call()
        span = one_tool_span(cap)
        assert (span[names.HTTP_RESPONSE_STATUS_CODE], span[names.TOOL_STATUS]) == (status, expected)


@responses.activate
def test_visit_webpage_error_sentence_is_not_the_page(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """VisitWebpageTool's "Error fetching the webpage: 404 Client Error..." is not stored as the page's text."""
    from smolagents import VisitWebpageTool

    responses.get(PAGE_URL, status=404, body="missing")
    sentence = VisitWebpageTool()(PAGE_URL)
    assert sentence.startswith("Error fetching the webpage") and "404" in sentence
    span = one_tool_span(cap)
    assert cap.store.get_ref(str(span[names.STORE_REF])) == "" and span[names.RESULT_SIZE] == 0


# -- CITETRACE_TOOLS naming a LangChain @tool object --------------------------------------------------------
_TOOL_MODULE = '''
import json
from langchain_core.tools import tool

@tool
def web_search(query: str) -> str:
    """Search the web."""
    return json.dumps([{"url": "https://lc.example/1", "title": query}])

@tool
async def aweb_search(query: str) -> str:
    """Search the web (async)."""
    return json.dumps([{"url": "https://lc.example/2", "title": query}])

SETTINGS = {"depth": 2}
'''


def test_citetrace_tools_naming_a_langchain_tool_object(tmp_path: Path, cap: Captured,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A @tool object named in CITETRACE_TOOLS makes a span on .invoke() and .ainvoke(); uninstrument puts
    the tool's own function back."""
    import asyncio

    (tmp_path / "lc_user_tools.py").write_text(_TOOL_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import lc_user_tools

    original = vars(lc_user_tools.web_search)["func"]
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="lc_user_tools:web_search=search,lc_user_tools:aweb_search=search")
    try:
        assert vars(lc_user_tools.web_search)["func"] is not original
        assert "lc.example/1" in lc_user_tools.web_search.invoke({"query": "q"})
        assert "lc.example/2" in asyncio.run(lc_user_tools.aweb_search.ainvoke({"query": "q"}))
        spans = [dict(s.attributes or {}) for s in cap.tool_spans()]
        assert [(s[names.GEN_AI_TOOL_NAME], list(s[names.URLS_RETURNED])) for s in spans] == [
            ("web_search", ["https://lc.example/1"]), ("aweb_search", ["https://lc.example/2"])]
    finally:
        instrumentor.uninstrument()
        sys.modules.pop("lc_user_tools", None)
    assert vars(lc_user_tools.web_search)["func"] is original
    cap.clear()
    lc_user_tools.web_search.invoke({"query": "q"})
    assert cap.tool_spans() == []


def test_citetrace_tools_naming_a_non_function_warns(tmp_path: Path, cap: Captured, monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """An entry naming an object that is neither a function nor a tool object is skipped with a clear warning."""
    (tmp_path / "lc_user_tools2.py").write_text(_TOOL_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    instrumentor = CiteTraceInstrumentor()
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        instrumentor.instrument(tools="lc_user_tools2:SETTINGS=search")
        try:
            import lc_user_tools2  # noqa: F401
        finally:
            instrumentor.uninstrument()
            sys.modules.pop("lc_user_tools2", None)
    assert "lc_user_tools2:SETTINGS" in caplog.text and "not a function or method" in caplog.text
