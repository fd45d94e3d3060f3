"""trafilatura: the real ``fetch_url`` (urllib3) against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from configparser import ConfigParser

import pytest
import trafilatura
import trafilatura.downloads
from trafilatura.settings import use_config

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import LocalServer
from .conftest import assert_restores, not_recording, one_tool_span, status_of

PAGE = "<html><body><article><p>" + "A paragraph of real page text. " * 20 + "</p></article></body></html>"


@pytest.fixture
def config() -> ConfigParser:
    """trafilatura settings for a local server: no SSRF block on 127.0.0.1, no retries, short timeout."""
    cfg = use_config()
    cfg.set("DEFAULT", "SSRF_PROTECTION", "False")
    cfg.set("DEFAULT", "MAX_REDIRECTS", "0")
    cfg.set("DEFAULT", "DOWNLOAD_TIMEOUT", "5")
    return cfg


def test_fetch_url_happy_path(instrumented: CiteTraceInstrumentor, cap: Captured, server: LocalServer,
                              config: ConfigParser) -> None:
    """fetch_url is an ok fetch; the page is stored under the span's reference."""
    server.routes["/page"] = (200, PAGE, "text/html")
    url = f"{server.base}/page"
    html = trafilatura.fetch_url(url, config=config)
    assert html == PAGE
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "trafilatura.fetch_url"
    assert attrs[names.URL_FULL] == url
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE


def test_fetch_url_empty(instrumented: CiteTraceInstrumentor, cap: Captured, server: LocalServer,
                         config: ConfigParser) -> None:
    """A tiny page is an empty read."""
    server.routes["/tiny"] = (200, "<p>x</p>", "text/html")
    trafilatura.fetch_url(f"{server.base}/tiny", config=config)
    assert status_of(cap) == names.STATUS_EMPTY


def test_fetch_url_429_is_rate_limited(instrumented: CiteTraceInstrumentor, cap: Captured, server: LocalServer,
                                       config: ConfigParser) -> None:
    """trafilatura turns a 429 into None; the urllib3 retry probe still makes it rate_limited."""
    server.routes["/busy"] = (429, "slow down", "text/plain")
    assert trafilatura.fetch_url(f"{server.base}/busy", config=config) is None
    assert status_of(cap) == names.STATUS_RATE_LIMITED


def test_fetch_url_404_is_error(instrumented: CiteTraceInstrumentor, cap: Captured, server: LocalServer,
                                config: ConfigParser) -> None:
    """A 404 (None returned) is an error read."""
    server.routes["/gone"] = (404, "gone", "text/plain")
    assert trafilatura.fetch_url(f"{server.base}/gone", config=config) is None
    assert status_of(cap) == names.STATUS_ERROR


def test_fetch_url_exception_is_error(instrumented: CiteTraceInstrumentor, cap: Captured,
                                      monkeypatch: pytest.MonkeyPatch, config: ConfigParser) -> None:
    """An exception escaping fetch_url is an error span and reaches the caller unchanged."""

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(trafilatura.downloads, "_send_urllib_request", broken)
    with pytest.raises(OSError, match="disk full"):
        trafilatura.fetch_url("https://example.org/x", config=config)
    assert status_of(cap) == names.STATUS_ERROR


def test_uninstrument_restores(cap: Captured, server: LocalServer, config: ConfigParser) -> None:
    """uninstrument puts back trafilatura.fetch_url and downloads.fetch_url exactly."""
    assert_restores([(trafilatura, "fetch_url"), (trafilatura.downloads, "fetch_url"),
                     (trafilatura.downloads, "fetch_response")])
    server.routes["/page"] = (200, PAGE, "text/html")
    trafilatura.fetch_url(f"{server.base}/page", config=config)
    assert cap.tool_spans() == []


def test_not_recording(instrumented: CiteTraceInstrumentor, server: LocalServer, config: ConfigParser) -> None:
    """Not recording: the page comes back unchanged and nothing is exported."""
    server.routes["/page"] = (200, PAGE, "text/html")
    with not_recording() as exporter:
        assert trafilatura.fetch_url(f"{server.base}/page", config=config) == PAGE
    assert exporter.get_finished_spans() == ()


def test_fetch_url_that_recovers_from_a_429_is_ok(instrumented: CiteTraceInstrumentor, cap: Captured,
                                                  server: LocalServer, config: ConfigParser) -> None:
    """trafilatura's own retry strategy (429 is in its status_forcelist) gets the page after one 429: the call
    returned the page, so it is an ok read with HTTP 200, not rate_limited (the 429 was met and recovered)."""
    config.set("DEFAULT", "MAX_REDIRECTS", "2")  # trafilatura's default: two retries
    server.sequences["/flaky"] = [(429, "slow down", "text/plain")]
    server.routes["/flaky"] = (200, PAGE, "text/html")
    assert trafilatura.fetch_url(f"{server.base}/flaky", config=config) == PAGE
    assert [p for _m, p, _b in server.requests] == ["/flaky", "/flaky"]
    attrs = one_tool_span(cap)
    assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (names.STATUS_OK, 200)
