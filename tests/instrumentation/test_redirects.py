"""Zero-code fetches the server redirected (``/old -301-> /new``) whose tool returns only the text: the HTTP
clients' probes record where each redirected request ended, so the span names the final URL in
``citetrace.pages_returned`` and the store keeps the text under it. CITETRACE_TOOLS functions over real
requests, httpx, urllib and aiohttp, and trafilatura's ``fetch_url`` (urllib3), against a server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Any, Iterator

import pytest
import trafilatura
from trafilatura.settings import use_config

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import LocalServer
from .conftest import importable, one_tool_span

SOURCE = '''
import urllib.request
import aiohttp, httpx, requests

def fetch_requests(url):
    return requests.get(url, timeout=5).text

def fetch_httpx(url):
    return httpx.get(url, follow_redirects=True, timeout=5).text

def fetch_urllib(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()

async def fetch_aiohttp(url):
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as response:
            return await response.text()

def fetch_and_side_request(url, other):
    text = requests.get(url, timeout=5).text
    requests.get(other, timeout=5)  # another URL's redirect, not this call's page
    return text
'''
FUNCTIONS = ("fetch_requests", "fetch_httpx", "fetch_urllib", "fetch_aiohttp", "fetch_and_side_request")
PAGE = "<html><body><article><p>" + "The new home of the page, a real paragraph of text. " * 10 + "</p></article></body></html>"


@pytest.fixture
def tools(tmp_path: Path, instrumentor: CiteTraceInstrumentor, server: LocalServer) -> Iterator[Any]:
    """The module of fetch functions, named in CITETRACE_TOOLS; /old redirects to /new on the server."""
    server.redirects["/old"] = "/new"
    server.routes["/new"] = (200, PAGE, "text/html")
    server.routes["/plain"] = (200, PAGE, "text/html")
    with importable(tmp_path, SOURCE, "user_redirects") as name:
        instrumentor.instrument(tools=",".join(f"{name}:{fn}=fetch" for fn in FUNCTIONS))
        yield importlib.import_module(name)


def _assert_read_as_final(cap: Captured, server: LocalServer) -> None:
    attrs = one_tool_span(cap)
    assert attrs[names.URL_FULL] == f"{server.base}/old"
    assert list(attrs[names.PAGES_RETURNED]) == [f"{server.base}/new"]
    run_id = format(cap.tool_spans()[0].context.trace_id, "032x")
    doc = cap.store.get(run_id, f"{server.base}/new")
    assert doc is not None and doc.text == PAGE and doc.status == names.STATUS_OK


@pytest.mark.parametrize("fn", ["fetch_requests", "fetch_httpx", "fetch_urllib"])
def test_a_text_fetch_that_was_redirected_reads_the_final_url(tools: Any, cap: Captured, server: LocalServer,
                                                              fn: str) -> None:
    """requests, httpx and urllib: the final URL of the call's own request is named as read and stored."""
    assert getattr(tools, fn)(f"{server.base}/old") == PAGE
    _assert_read_as_final(cap, server)


def test_an_aiohttp_fetch_that_was_redirected_reads_the_final_url(tools: Any, cap: Captured,
                                                                  server: LocalServer) -> None:
    """aiohttp (async): the same, from the hops its response keeps."""
    assert asyncio.run(tools.fetch_aiohttp(f"{server.base}/old")) == PAGE
    _assert_read_as_final(cap, server)


def test_another_urls_redirect_in_the_call_is_not_read(tools: Any, cap: Captured, server: LocalServer) -> None:
    """A redirect of a URL other than the call's own does not make its target a read of this call."""
    tools.fetch_and_side_request(f"{server.base}/plain", f"{server.base}/old")
    attrs = one_tool_span(cap)
    assert attrs[names.URL_FULL] == f"{server.base}/plain"
    assert names.PAGES_RETURNED not in attrs


def test_trafilatura_fetch_url_that_was_redirected_reads_the_final_url(instrumentor: CiteTraceInstrumentor,
                                                                       cap: Captured, server: LocalServer) -> None:
    """trafilatura follows the redirect inside urllib3 and returns the text: its Response's URL is the final one."""
    server.redirects["/old"] = "/new"
    server.routes["/new"] = (200, PAGE, "text/html")
    instrumentor.instrument(tools="")
    config = use_config()
    config.set("DEFAULT", "SSRF_PROTECTION", "False")
    config.set("DEFAULT", "DOWNLOAD_TIMEOUT", "5")
    assert trafilatura.fetch_url(f"{server.base}/old", config=config) == PAGE
    _assert_read_as_final(cap, server)
