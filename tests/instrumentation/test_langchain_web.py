"""LangChain community's plain-HTTP web tools (RequestsGetTool, WebBaseLoader, the Serper wrapper and tools,
BraveSearch): the real classes, with only the network replaced (``responses`` for requests; aiohttp
rerouted to a local server on 127.0.0.1)."""

from __future__ import annotations

import json
from typing import Any, Iterator

import aiohttp
import pytest
import requests
import responses
from langchain_community.document_loaders import web_base
from langchain_community.document_loaders.web_base import WebBaseLoader
from langchain_community.tools.brave_search.tool import BraveSearch
from langchain_community.tools.google_serper.tool import GoogleSerperResults, GoogleSerperRun
from langchain_community.tools.requests import tool as requests_tool
from langchain_community.tools.requests.tool import RequestsGetTool
from langchain_community.utilities import brave_search, google_serper
from langchain_community.utilities.brave_search import BraveSearchWrapper
from langchain_community.utilities.google_serper import GoogleSerperAPIWrapper
from langchain_community.utilities.requests import TextRequestsWrapper

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import LocalServer, local_url
from .conftest import assert_restores, http_rows_only, one_tool_span, status_of

PAGE_URL = "https://page.example/article"
OTHER_URL = "https://page.example/gone"
PAGE = "<html><body><h1>Title</h1><p>" + "Readable article text. " * 10 + "</p></body></html>"
SERPER = "https://google.serper.dev/search"
BRAVE = "https://api.search.brave.com/res/v1/web/search"


@pytest.fixture
def aio_local(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """aiohttp requests for any host go to ``{server}/{host}{path}`` over real HTTP."""
    original = aiohttp.ClientSession._request

    async def local_request(self: Any, method: str, url: Any, *args: Any, **kwargs: Any) -> Any:
        return await original(self, method, local_url(server.base, str(url)), *args, **kwargs)

    monkeypatch.setattr(aiohttp.ClientSession, "_request", local_request)
    yield server


def get_tool() -> RequestsGetTool:
    """LangChain's GET tool (it refuses to exist without allow_dangerous_requests)."""
    return RequestsGetTool(requests_wrapper=TextRequestsWrapper(), allow_dangerous_requests=True)


def serper_body(n: int) -> dict[str, Any]:
    """Serper's documented search answer with ``n`` organic results."""
    return {"organic": [{"title": f"S{i}", "link": f"https://serper.example/{i}", "snippet": f"snippet {i}"}
                        for i in range(n)]}


def brave_body(n: int) -> dict[str, Any]:
    """Brave's documented web search answer with ``n`` results."""
    return {"web": {"results": [{"title": f"B{i}", "url": f"https://brave.example/{i}", "description": "d"}
                                for i in range(n)]}}


# -- RequestsGetTool ------------------------------------------------------------------------------------

@responses.activate
def test_requests_get_ok(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """RequestsGetTool is one ok fetch span, the model's quotes stripped from the URL, the body stored."""
    responses.get(PAGE_URL, body=PAGE)
    assert get_tool().invoke({"url": f'"{PAGE_URL}"'}) == PAGE
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain.requests_get"
    assert attrs[names.URL_FULL] == PAGE_URL
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE


@pytest.mark.parametrize(("status", "body", "expected"), [(200, " ", names.STATUS_EMPTY),
                                                          (429, "Too Many Requests", names.STATUS_RATE_LIMITED),
                                                          (404, "<h1>Not Found</h1>" * 5, names.STATUS_ERROR)])
@responses.activate
def test_requests_get_statuses(instrumented: CiteTraceInstrumentor, cap: Captured, status: int, body: str,
                               expected: str) -> None:
    """The tool returns any body as text; the probe's status decides: a blank 200 empty, 429 rate_limited, 404
    error (the caller still gets the body)."""
    responses.get(PAGE_URL, body=body, status=status)
    assert get_tool().invoke({"url": PAGE_URL}) == body
    assert status_of(cap) == expected


@responses.activate
def test_requests_get_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A refused connection is raised unchanged and is an error span."""
    responses.get(PAGE_URL, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        get_tool().invoke({"url": PAGE_URL})
    assert status_of(cap) == names.STATUS_ERROR


async def test_requests_get_async(instrumented: CiteTraceInstrumentor, cap: Captured, aio_local: LocalServer) -> None:
    """The async tool (aiohttp) is one ok fetch span with the page text."""
    aio_local.routes["/page.example/article"] = (200, PAGE, "text/html")
    assert await get_tool().ainvoke({"url": PAGE_URL}) == PAGE
    attrs = one_tool_span(cap)
    assert attrs[names.URL_FULL] == PAGE_URL
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE



@pytest.mark.parametrize(("status", "expected"), [(429, names.STATUS_RATE_LIMITED), (404, names.STATUS_ERROR)])
async def test_requests_get_async_error_page(instrumented: CiteTraceInstrumentor, cap: Captured,
                                             aio_local: LocalServer, status: int, expected: str) -> None:
    """The async tool returns an error page as text: aiohttp's status, recorded by the HTTP layer inside the
    tool call, classifies it and is the span's status code."""
    aio_local.routes["/page.example/article"] = (status, "<h1>Error</h1>" * 20, "text/html")
    assert (await get_tool().ainvoke({"url": PAGE_URL})).startswith("<h1>Error</h1>")
    attrs = one_tool_span(cap)
    assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (expected, status)


# -- WebBaseLoader --------------------------------------------------------------------------------------

@responses.activate
def test_web_loader_one_span_per_url(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """load() over two URLs is two fetch spans, each with its own URL and status (200 ok, 404 error) and the
    page text the Document got."""
    responses.get(PAGE_URL, body=PAGE)
    responses.get(OTHER_URL, body="<html><body>Not Found, this page does not exist</body></html>", status=404)
    docs = WebBaseLoader([PAGE_URL, OTHER_URL]).load()
    spans = {str(s.attributes[names.URL_FULL]): dict(s.attributes or {}) for s in cap.tool_spans()}
    assert sorted(spans) == sorted([PAGE_URL, OTHER_URL])
    assert spans[PAGE_URL][names.TOOL_STATUS] == names.STATUS_OK
    assert spans[OTHER_URL][names.TOOL_STATUS] == names.STATUS_ERROR
    assert cap.store.get_ref(str(spans[PAGE_URL][names.STORE_REF])) == docs[0].page_content
    assert all(a[names.GEN_AI_TOOL_NAME] == "langchain.web_base_loader" for a in spans.values())


@responses.activate
def test_web_loader_empty_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """An empty page is empty; a 429 kept as a page is rate_limited; raise_for_status's HTTPError rate_limited
    with its status; a refused connection an error."""
    responses.get(PAGE_URL, body="<html><body></body></html>")
    WebBaseLoader(PAGE_URL).load()
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.GET, PAGE_URL, body="<html><body>Too many requests, slow down</body></html>",
                      status=429)
    WebBaseLoader(PAGE_URL).load()
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    with pytest.raises(requests.HTTPError):
        WebBaseLoader(PAGE_URL, raise_for_status=True).load()
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 429
    cap.clear()
    responses.replace(responses.GET, PAGE_URL, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        WebBaseLoader(PAGE_URL).load()
    assert status_of(cap) == names.STATUS_ERROR


async def test_web_loader_async(instrumented: CiteTraceInstrumentor, cap: Captured, aio_local: LocalServer) -> None:
    """alazy_load fetches through aiohttp: one fetch span per URL with the HTML stored."""
    aio_local.routes["/page.example/article"] = (200, PAGE, "text/html")
    aio_local.routes["/page.example/second"] = (200, PAGE, "text/html")
    docs = [d async for d in WebBaseLoader([PAGE_URL, "https://page.example/second"]).alazy_load()]
    assert len(docs) == 2
    spans = cap.tool_spans()
    assert sorted(str(s.attributes[names.URL_FULL]) for s in spans) == [PAGE_URL, "https://page.example/second"]
    assert all(cap.store.get_ref(str(s.attributes[names.STORE_REF])) == PAGE for s in spans)


# -- Serper ---------------------------------------------------------------------------------------------

@responses.activate
def test_serper_tools_are_one_span(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """GoogleSerperResults and GoogleSerperRun are one search span each, with Serper's links (the recognised
    Serper endpoint inside adds none)."""
    responses.post(SERPER, json=serper_body(3))
    wrapper = GoogleSerperAPIWrapper(serper_api_key="k")
    GoogleSerperResults(api_wrapper=wrapper).invoke({"query": "serper q"})
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain.google_serper"
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [f"https://serper.example/{i}" for i in range(3)]
    assert attrs[names.QUERY_HASH]
    cap.clear()
    assert "snippet 0" in GoogleSerperRun(api_wrapper=wrapper).invoke({"query": "serper q"})
    assert one_tool_span(cap)[names.RESULT_COUNT] == 3


@responses.activate
def test_serper_empty_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No organic results is empty; a 429 (HTTPError) rate_limited with its status; a refused connection error."""
    wrapper = GoogleSerperAPIWrapper(serper_api_key="k")
    responses.post(SERPER, json=serper_body(0))
    assert wrapper.results("q") == serper_body(0)
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.POST, SERPER, status=429, json={"message": "slow", "statusCode": 429})
    with pytest.raises(requests.HTTPError):
        wrapper.run("q")
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 429
    cap.clear()
    responses.replace(responses.POST, SERPER, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        wrapper.results("q")
    assert status_of(cap) == names.STATUS_ERROR


async def test_serper_async(instrumented: CiteTraceInstrumentor, cap: Captured, aio_local: LocalServer) -> None:
    """aresults over aiohttp is one span; the error JSON it returns on a 429 (no raise) is rate_limited."""
    aio_local.routes["/google.serper.dev/search"] = (200, json.dumps(serper_body(2)), "application/json")
    wrapper = GoogleSerperAPIWrapper(serper_api_key="k")
    await wrapper.aresults("async q")
    assert one_tool_span(cap)[names.RESULT_COUNT] == 2
    cap.clear()
    aio_local.routes["/google.serper.dev/search"] = (429, json.dumps({"message": "slow", "statusCode": 429}),
                                                     "application/json")
    assert (await wrapper.aresults("async q"))["statusCode"] == 429
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 429


# -- Brave ----------------------------------------------------------------------------------------------

@responses.activate
def test_brave_tool_is_one_span(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """BraveSearch is one ok search span with Brave's URLs (the recognised endpoint inside adds none)."""
    responses.get(BRAVE, json=brave_body(2))
    out = json.loads(BraveSearch(search_wrapper=BraveSearchWrapper(api_key="k")).invoke({"query": "brave q"}))
    assert [r["link"] for r in out] == ["https://brave.example/0", "https://brave.example/1"]
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "langchain.brave_search"
    assert attrs[names.RESULT_COUNT] == 2
    assert list(attrs[names.URLS_RETURNED]) == ["https://brave.example/0", "https://brave.example/1"]


@responses.activate
def test_brave_empty_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No results is empty; Exception("HTTP error 429") rate_limited through the probe, a 500 error; a refused
    connection error."""
    wrapper = BraveSearchWrapper(api_key="k")
    responses.get(BRAVE, json=brave_body(0))
    assert wrapper.download_documents("q") == []
    assert status_of(cap) == names.STATUS_EMPTY
    for status, expected in ((429, names.STATUS_RATE_LIMITED), (500, names.STATUS_ERROR)):
        cap.clear()
        responses.replace(responses.GET, BRAVE, status=status, json={"type": "ErrorResponse"})
        with pytest.raises(Exception, match=f"HTTP error {status}"):
            wrapper.run("q")
        assert status_of(cap) == expected
    cap.clear()
    responses.replace(responses.GET, BRAVE, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        wrapper.run("q")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_http_layer_alone_would_make_the_spans(cap: Captured) -> None:
    """Control for the one-span tests: with only the HTTP rows, the Serper and Brave calls are serper_search and
    brave_search spans, so one span under the rows is the IN_TOOL pass-through at work."""
    responses.post(SERPER, json=serper_body(1))
    responses.get(BRAVE, json=brave_body(1))
    with http_rows_only():
        GoogleSerperAPIWrapper(serper_api_key="k").results("q")
        BraveSearchWrapper(api_key="k").run("q")
    assert [s.name.split()[-1] for s in cap.tool_spans()] == ["serper_search", "brave_search"]


@responses.activate
def test_uninstrument_restores(cap: Captured) -> None:
    """After uninstrument every wrapped method is the original again and calls make no span."""
    assert_restores([(requests_tool.RequestsGetTool, "_run"), (requests_tool.RequestsGetTool, "_arun"),
                     (web_base.WebBaseLoader, "_scrape"), (web_base.WebBaseLoader, "_fetch"),
                     (google_serper.GoogleSerperAPIWrapper, "_google_serper_api_results"),
                     (google_serper.GoogleSerperAPIWrapper, "_async_google_serper_search_results"),
                     (brave_search.BraveSearchWrapper, "_search_request")])
    responses.get(PAGE_URL, body=PAGE)
    get_tool().invoke({"url": PAGE_URL})
    WebBaseLoader(PAGE_URL).load()
    assert cap.tool_spans() == []
