"""Crawl4AI: the real ``AsyncWebCrawler`` driving Debian's Chromium (crawl4ai's managed-browser mode, pointed at
``/usr/bin/chromium``) against pages on 127.0.0.1, and its non-browser ``AsyncHTTPCrawlerStrategy``.

Run by tests/instrumentation/test_pinned.py in the pinned venv (crawl4ai pins snowballstemmer~=2.2).
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

os.environ.setdefault("CRAWL4_AI_BASE_DIRECTORY", tempfile.mkdtemp(prefix="citetrace-crawl4ai-"))
os.environ.setdefault("CRAWL4AI_NO_CLOUD_NOTICE", "1")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
_HOME = Path(os.environ["CRAWL4_AI_BASE_DIRECTORY"]) / ".crawl4ai"
_HOME.mkdir(parents=True, exist_ok=True)
(_HOME / "chromium.path").write_text(CHROMIUM)  # crawl4ai's own override of the browser it launches

from crawl4ai import AsyncWebCrawler, BrowserConfig, CacheMode, CrawlerRunConfig  # noqa: E402
from crawl4ai.async_crawler_strategy import AsyncHTTPCrawlerStrategy  # noqa: E402
from crawl4ai.async_webcrawler import AsyncWebCrawler as _Crawler  # noqa: E402
from opentelemetry import trace  # noqa: E402

from citetrace import names  # noqa: E402
from citetrace.instrumentation import CiteTraceInstrumentor  # noqa: E402
from citetrace.testing import Captured  # noqa: E402

from .._net import LocalServer  # noqa: E402
from ..conftest import assert_restores, one_tool_span, status_of  # noqa: E402

ARTICLE = ("<html><head><title>OTel</title></head><body><h1>OpenTelemetry</h1><p>"
           + "OpenTelemetry is a framework for traces, metrics and logs. " * 12 + "</p></body></html>")
BLANK = "<html><body></body></html>"
FRESH = CrawlerRunConfig(cache_mode=CacheMode.BYPASS, verbose=False)


@pytest.fixture
def site(server: LocalServer) -> LocalServer:
    """An article, a 404, a 429 and a blank page on 127.0.0.1."""
    assert os.path.exists(CHROMIUM), f"Debian's chromium is missing at {CHROMIUM}: scripts/setup installs it"
    server.routes.update({"/a": (200, ARTICLE, "text/html"), "/b": (200, ARTICLE.replace("traces", "spans"), "text/html"),
                          "/gone": (404, ARTICLE, "text/html"), "/slow": (429, "<html>slow down</html>", "text/html"),
                          "/blank": (200, BLANK, "text/html"), "/favicon.ico": (404, "", "text/plain")})
    return server


def free_port() -> int:
    """A port nothing listens on now: crawl4ai's managed browser SIGTERMs whatever listens on its debugging
    port (9222 unless told), which on a shared machine may be someone else's process."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def browser() -> AsyncIterator[AsyncWebCrawler]:
    """A crawler on Debian's Chromium, started and closed by the test (built after instrumentation)."""
    config = BrowserConfig(use_managed_browser=True, headless=True, verbose=False, debugging_port=free_port())
    async with AsyncWebCrawler(config=config) as c:
        yield c


def served(site: LocalServer, path: str) -> int:
    """How many times the page at ``path`` was really requested."""
    return sum(1 for _, p, _ in site.requests if p == path)


def stored(cap: Captured, span: Any) -> dict[str, Any]:
    """The run's documents (the run id is the trace id here) by URL."""
    return {d.url: d for d in cap.store.documents(format(span.context.trace_id, "032x"))}


async def test_arun_outcomes(instrumented: CiteTraceInstrumentor, cap: Captured, site: LocalServer,
                             browser: AsyncWebCrawler) -> None:
    """arun through Chromium: a page is ok with its full markdown stored; a 404 error and a 429 rate_limited, each
    with its status; a blank page (crawl4ai's "near-empty" block) empty; a refused connection an error. The
    caller gets crawl4ai's own result every time."""
    result = await browser.arun(f"{site.base}/a", config=FRESH)
    assert result.success
    attrs = one_tool_span(cap)
    assert (attrs[names.GEN_AI_TOOL_NAME], attrs[names.TOOL_STATUS]) == ("crawl4ai.arun", names.STATUS_OK)
    assert attrs[names.URL_FULL] == f"{site.base}/a"
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 200
    doc = stored(cap, cap.tool_spans()[0])[f"{site.base}/a"]
    assert doc.text == result.markdown.raw_markdown and "OpenTelemetry is a framework" in doc.text
    for path, status, code in (("/gone", names.STATUS_ERROR, 404), ("/slow", names.STATUS_RATE_LIMITED, 429)):
        cap.clear()
        assert (await browser.arun(f"{site.base}{path}", config=FRESH)).status_code == code
        attrs = one_tool_span(cap)
        assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (status, code)
    cap.clear()
    assert not (await browser.arun(f"{site.base}/blank", config=FRESH)).success
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    refused = await browser.arun("http://127.0.0.1:9/", config=FRESH)
    assert refused.success is False and refused.status_code is None
    assert status_of(cap) == names.STATUS_ERROR


async def test_arun_many_is_one_span_per_url(instrumented: CiteTraceInstrumentor, cap: Captured, site: LocalServer,
                                             browser: AsyncWebCrawler) -> None:
    """arun_many over four URLs is one fetch span per URL request (as many as the server answered), all children
    of the caller's span, each with its own status and its own stored document; never one empty span."""
    urls = [f"{site.base}{p}" for p in ("/a", "/b", "/gone", "/slow")]
    with trace.get_tracer("app", tracer_provider=cap.tracer_provider).start_as_current_span("agent step") as parent:
        results = await browser.arun_many(urls, config=FRESH)
    assert sorted(r.url for r in results) == sorted(urls)
    spans = cap.tool_spans()
    assert len(spans) == sum(served(site, p) for p in ("/a", "/b", "/gone", "/slow")) >= 4
    assert {s.parent.span_id for s in spans if s.parent} == {parent.get_span_context().span_id}
    assert len([s for s in spans if s.parent]) == len(spans)
    by_url: dict[str, set[str]] = {}
    for span in spans:
        by_url.setdefault(str(span.attributes[names.URL_FULL]), set()).add(str(span.attributes[names.TOOL_STATUS]))
    assert by_url[urls[0]] == by_url[urls[1]] == {names.STATUS_OK}
    assert by_url[urls[2]] == {names.STATUS_ERROR}
    assert by_url[urls[3]] == {names.STATUS_RATE_LIMITED}
    docs = stored(cap, spans[0])
    assert {u: docs[u].status for u in urls} == {urls[0]: names.STATUS_OK, urls[1]: names.STATUS_OK,
                                                 urls[2]: names.STATUS_ERROR, urls[3]: names.STATUS_RATE_LIMITED}
    assert "spans, metrics" in docs[urls[1]].text


async def test_arun_many_streamed(instrumented: CiteTraceInstrumentor, cap: Captured, site: LocalServer) -> None:
    """arun_many with stream=True (an async generator) over the HTTP strategy: one span per URL as each result
    arrives, with the right statuses."""
    config = CrawlerRunConfig(cache_mode=CacheMode.BYPASS, verbose=False, stream=True)
    async with AsyncWebCrawler(crawler_strategy=AsyncHTTPCrawlerStrategy(), config=BrowserConfig(verbose=False)) as c:
        got = [r.url async for r in await c.arun_many([f"{site.base}/a", f"{site.base}/b"], config=config)]
    assert sorted(got) == [f"{site.base}/a", f"{site.base}/b"]
    assert sorted((str(s.attributes[names.URL_FULL]), s.attributes[names.TOOL_STATUS]) for s in cap.tool_spans()) == [
        (f"{site.base}/a", names.STATUS_OK), (f"{site.base}/b", names.STATUS_OK)]


async def test_deep_crawl_is_one_span_per_page(instrumented: CiteTraceInstrumentor, cap: Captured,
                                               site: LocalServer) -> None:
    """A deep crawl (BFS, depth 1) from a page linking to two others is one fetch span per page visited, each
    with its own status, as many as the server answered."""
    from crawl4ai.deep_crawling import BFSDeepCrawlStrategy

    site.routes["/hub"] = (200, ARTICLE.replace("</body>", '<a href="/a">a</a> <a href="/gone">gone</a></body>'),
                           "text/html")
    config = CrawlerRunConfig(cache_mode=CacheMode.BYPASS, verbose=False,
                              deep_crawl_strategy=BFSDeepCrawlStrategy(max_depth=1))
    async with AsyncWebCrawler(crawler_strategy=AsyncHTTPCrawlerStrategy(), config=BrowserConfig(verbose=False)) as c:
        results = await c.arun(f"{site.base}/hub", config=config)
    assert sorted(r.url for r in results) == sorted(f"{site.base}{p}" for p in ("/hub", "/a", "/gone"))
    seen = sorted((str(s.attributes[names.URL_FULL]), s.attributes[names.TOOL_STATUS]) for s in cap.tool_spans())
    assert seen == sorted([(f"{site.base}/hub", names.STATUS_OK), (f"{site.base}/a", names.STATUS_OK),
                           (f"{site.base}/gone", names.STATUS_ERROR)])
    assert len(seen) == sum(served(site, p) for p in ("/hub", "/a", "/gone"))


async def test_http_strategy_statuses(instrumented: CiteTraceInstrumentor, cap: Captured, site: LocalServer) -> None:
    """The non-browser AsyncHTTPCrawlerStrategy reports a 4xx only in its error message: a 429 is rate_limited,
    a 404 an error, a page ok with its text stored."""
    async with AsyncWebCrawler(crawler_strategy=AsyncHTTPCrawlerStrategy(), config=BrowserConfig(verbose=False)) as c:
        for path, expected in (("/a", names.STATUS_OK), ("/slow", names.STATUS_RATE_LIMITED),
                               ("/gone", names.STATUS_ERROR)):
            cap.clear()
            await c.arun(f"{site.base}{path}", config=FRESH)
            assert status_of(cap) == expected, path
    assert served(site, "/slow") == 1


async def test_raised_error_and_raw_input(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """An exception arun raises (an empty URL) is an error span and reaches the caller unchanged; a ``raw:``
    input is recorded under the URL ``raw:``, never with its HTML."""
    async with AsyncWebCrawler(crawler_strategy=AsyncHTTPCrawlerStrategy(), config=BrowserConfig(verbose=False)) as c:
        with pytest.raises(ValueError, match="Invalid URL"):
            await c.arun("", config=FRESH)
        assert status_of(cap) == names.STATUS_ERROR
        cap.clear()
        html = "raw:" + ARTICLE
        assert (await c.arun(html, config=FRESH)).success
    attrs = one_tool_span(cap)
    assert attrs[names.URL_FULL] == "raw:"
    assert all("OpenTelemetry" not in str(v) for v in attrs.values())


async def test_uninstrument(cap: Captured, site: LocalServer) -> None:
    """uninstrument() puts back the very arun; a crawler built afterwards makes no span."""
    assert_restores([(_Crawler, "arun")])
    async with AsyncWebCrawler(crawler_strategy=AsyncHTTPCrawlerStrategy(), config=BrowserConfig(verbose=False)) as c:
        assert (await c.arun(f"{site.base}/a", config=FRESH)).success
    assert cap.tool_spans() == []
