"""smolagents' web tools: the real tools, with only HTTP replaced (primp stand-in for ddgs, ``responses``
for requests)."""

from __future__ import annotations

import ddgs.ddgs as ddgs_mod
import ddgs.http_client
import pytest
import requests
import responses
from smolagents import default_tools
from smolagents.default_tools import DuckDuckGoSearchTool, VisitWebpageTool, WebSearchTool

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import FakePrimp, LocalServer
from .conftest import assert_restores, not_recording, one_tool_span, status_of
from .test_ddgs import DDG_PATH, ddg_html

LITE = "https://lite.duckduckgo.com/lite/"
PAGE_URL = "https://page.example/article"
PAGE = "<html><body><h1>Title</h1><p>" + "Readable article text. " * 20 + "</p></body></html>"


def lite_html(n: int) -> str:
    """A lite.duckduckgo.com page with ``n`` results, in the shape WebSearchTool parses."""
    rows = "".join(
        f'<tr><td><a class="result-link" href="#">Lite {i}</a></td></tr>'
        f'<tr><td class="result-snippet">Snippet {i}</td></tr>'
        f'<tr><td><span class="link-text">lite.example/{i}</span></td></tr>'
        for i in range(n)
    )
    return f"<html><body><table>{rows}</table></body></html>"


@pytest.fixture
def primp(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> LocalServer:
    """ddgs' primp replaced by the forwarding stand-in, and its "auto" text backend limited to the
    DuckDuckGo engine (as if the user had picked it), so which engines run is deterministic."""
    monkeypatch.setattr(ddgs.http_client, "primp", FakePrimp(server))
    monkeypatch.setitem(ddgs_mod.ENGINES, "text", {"duckduckgo": ddgs_mod.ENGINES["text"]["duckduckgo"]})
    return server


def test_duckduckgo_tool_one_span_around_ddgs(instrumented: CiteTraceInstrumentor, cap: Captured,
                                               primp: LocalServer) -> None:
    """DuckDuckGoSearchTool.forward is the only span: the ddgs call inside it is suppressed."""
    primp.routes[DDG_PATH] = (200, ddg_html(3), "text/html")
    out = DuckDuckGoSearchTool(max_results=3)("smol query")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "smolagents.duckduckgo_search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 3
    assert all(url in out for url in attrs[names.URLS_RETURNED])


def test_duckduckgo_tool_empty(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """The engine answering 200 with nothing: the tool raises, the span is empty."""
    primp.routes[DDG_PATH] = (200, ddg_html(0), "text/html")
    with pytest.raises(Exception, match="No results"):
        DuckDuckGoSearchTool()("nothing at all")
    assert status_of(cap) == names.STATUS_EMPTY


def test_duckduckgo_tool_429(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """The engine answering 429 (seen from ddgs' worker thread by the probe): rate_limited."""
    primp.routes[DDG_PATH] = (429, "slow down", "text/plain")
    with pytest.raises(Exception):
        DuckDuckGoSearchTool()("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_web_search_tool(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """WebSearchTool.forward reports the markdown links it returns; a 429 is rate_limited."""
    responses.get(LITE, body=lite_html(2))
    WebSearchTool()("web q")
    attrs = one_tool_span(cap)
    assert list(attrs[names.URLS_RETURNED]) == ["https://lite.example/0", "https://lite.example/1"]
    cap.clear()
    responses.replace(responses.GET, LITE, status=429, body="slow")
    with pytest.raises(requests.HTTPError):
        WebSearchTool()("web q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_web_search_tool_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No results: WebSearchTool raises "No results found!", the span is empty."""
    responses.get(LITE, body=lite_html(0))
    with pytest.raises(Exception, match="No results"):
        WebSearchTool()("zzz")
    assert status_of(cap) == names.STATUS_EMPTY


@responses.activate
def test_visit_webpage(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """VisitWebpageTool is a fetch whose markdown is stored; its error sentences are classified."""
    responses.get(PAGE_URL, body=PAGE, content_type="text/html")
    text = VisitWebpageTool()(PAGE_URL)
    attrs = one_tool_span(cap)
    assert attrs[names.URL_FULL] == PAGE_URL
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == text
    for status, expected in ((429, names.STATUS_RATE_LIMITED), (500, names.STATUS_ERROR)):
        cap.clear()
        responses.replace(responses.GET, PAGE_URL, status=status, body="x")
        assert VisitWebpageTool()(PAGE_URL).startswith("Error fetching the webpage")
        assert status_of(cap) == expected


@responses.activate
def test_visit_webpage_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A connection error becomes the tool's error sentence and an error span."""
    responses.get(PAGE_URL, body=requests.ConnectionError("refused"))
    assert VisitWebpageTool()(PAGE_URL).startswith("Error fetching the webpage")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_uninstrument_restores(cap: Captured) -> None:
    """uninstrument restores the three forward methods exactly."""
    classes = (default_tools.DuckDuckGoSearchTool, default_tools.WebSearchTool, default_tools.VisitWebpageTool)
    assert_restores([(cls, "forward") for cls in classes])
    responses.get(PAGE_URL, body=PAGE)
    VisitWebpageTool()(PAGE_URL)
    assert cap.tool_spans() == []


@responses.activate
def test_not_recording(instrumented: CiteTraceInstrumentor) -> None:
    """Not recording: same output, nothing exported."""
    responses.get(PAGE_URL, body=PAGE)
    with not_recording() as exporter:
        assert "Readable article text." in VisitWebpageTool()(PAGE_URL)
    assert exporter.get_finished_spans() == ()
