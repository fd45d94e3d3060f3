"""DuckDuckGo: the real ddgs and duckduckgo_search packages, with the primp HTTP client replaced by a
stand-in that forwards to a local HTTP server (see ``_net.FakePrimp``)."""

from __future__ import annotations

import warnings
from typing import Iterator

import ddgs
import ddgs.http_client
import duckduckgo_search.duckduckgo_search as legacy
import pytest
from ddgs.exceptions import DDGSException
from duckduckgo_search.exceptions import DuckDuckGoSearchException

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import FakePrimp, LocalServer
from .conftest import assert_restores, not_recording, one_tool_span, status_of

DDG_PATH = "/html.duckduckgo.com/html/"
BING_PATH = "/www.bing.com/search"


def ddg_html(n: int) -> str:
    """A DuckDuckGo HTML result page with ``n`` results, in the shape ddgs parses."""
    items = "".join(
        f'<div class="result results_links web-result"><div class="links_main body">'
        f'<h2><a href="https://ddg.example/{i}">Title {i}</a></h2>'
        f'<a class="result__snippet" href="https://ddg.example/{i}">Snippet {i}</a></div></div>'
        for i in range(n)
    )
    return f"<html><body>{items}</body></html>"


def bing_html(n: int) -> str:
    """A Bing result page with ``n`` results, in the shape duckduckgo_search 8 parses."""
    items = "".join(
        f'<li class="b_algo"><h2><a href="https://bing.example/{i}">Bing {i}</a></h2><p>Body {i}</p></li>'
        for i in range(n)
    )
    return f"<html><body><ol>{items}</ol></body></html>"


@pytest.fixture
def primp(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """Both libraries' primp module replaced by the forwarding stand-in."""
    fake = FakePrimp(server)
    monkeypatch.setattr(ddgs.http_client, "primp", fake)
    monkeypatch.setattr(legacy, "primp", fake)
    yield server


def text(query: str) -> list[dict[str, str]]:
    """ddgs text search on the DuckDuckGo engine only (deterministic)."""
    return ddgs.DDGS().text(query, backend="duckduckgo", max_results=10)


def test_text_happy_path(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """DDGS.text is one ok search span with the result hrefs in order."""
    primp.routes[DDG_PATH] = (200, ddg_html(3), "text/html")
    results = text("duck query")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "ddgs.text"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [r["href"] for r in results]
    assert primp.requests, "the request went over HTTP to the local server"


def test_text_empty_raises_but_is_empty(instrumented: CiteTraceInstrumentor, cap: Captured,
                                        primp: LocalServer) -> None:
    """ddgs raises DDGSException("No results found.") for an empty page; the span says empty, not error."""
    primp.routes[DDG_PATH] = (200, ddg_html(0), "text/html")
    with pytest.raises(DDGSException, match="No results"):
        text("nothing")
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_EMPTY
    assert names.ERROR_TYPE not in attrs


def test_news_happy_path(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """DDGS.news (Bing news engine) is one ok search span with the article URLs."""
    items = "".join(f'<div class="newsitem" url="https://news.example/{i}" data-title="N{i}" data-author="A">'
                    f'<div class="snippet">Body {i}</div></div>' for i in range(2))
    primp.routes["/www.bing.com/news/infinitescrollajax"] = (200, f"<html><body>{items}</body></html>", "text/html")
    results = ddgs.DDGS().news("news q", backend="bing", max_results=10)
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "ddgs.news"
    assert list(attrs[names.URLS_RETURNED]) == [r["url"] for r in results] == [
        "https://news.example/0", "https://news.example/1"]


def test_text_429_is_rate_limited(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """ddgs hides a 429 behind "No results found."; the primp-boundary probe still makes it rate_limited."""
    primp.routes[DDG_PATH] = (429, "slow down", "text/plain")
    with pytest.raises(DDGSException):
        text("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


def test_text_server_error_is_error(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """A 500 from the engine is an error, not a rate limit."""
    primp.routes[DDG_PATH] = (500, "boom", "text/plain")
    with pytest.raises(DDGSException):
        text("q")
    assert status_of(cap) == names.STATUS_ERROR


def test_legacy_text_and_ratelimit(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """duckduckgo_search.DDGS.text is traced; its wrapped RatelimitException comes out rate_limited."""
    primp.routes[BING_PATH] = (200, bing_html(2), "text/html")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = legacy.DDGS().text("legacy")
    assert len(results) == 2
    assert one_tool_span(cap)[names.GEN_AI_TOOL_NAME] == "duckduckgo_search.text"
    cap.clear()
    primp.routes[BING_PATH] = (429, "slow down", "text/plain")
    with warnings.catch_warnings(), pytest.raises(DuckDuckGoSearchException):
        warnings.simplefilter("ignore")
        legacy.DDGS().text("legacy")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


def test_uninstrument_restores(cap: Captured, primp: LocalServer) -> None:
    """uninstrument restores DDGS.text/.news and the primp-boundary probe exactly."""
    import ddgs.ddgs as ddgs_mod

    assert_restores([(ddgs_mod.DDGS, "text"), (ddgs_mod.DDGS, "news"), (ddgs.http_client.HttpClient, "request")])
    primp.routes[DDG_PATH] = (200, ddg_html(1), "text/html")
    text("q")
    assert cap.tool_spans() == []


def test_not_recording(instrumented: CiteTraceInstrumentor, primp: LocalServer) -> None:
    """Not recording: results unchanged, nothing exported."""
    primp.routes[DDG_PATH] = (200, ddg_html(2), "text/html")
    with not_recording() as exporter:
        assert len(text("q")) == 2
    assert exporter.get_finished_spans() == ()
