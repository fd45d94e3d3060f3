"""A fetch the server redirected (``/old -301-> /new``) reads the final URL too: its text is stored under it, it
is named in ``citetrace.pages_returned``, and the run's summary and the gate count a citation of it as read.
Before, a cited redirect target was "cited but never fetched" while the server's log showed ``GET /new 200``.
Real requests, httpx, aiohttp and urllib against a real server on 127.0.0.1; only the network is local."""

from __future__ import annotations

import asyncio
import urllib.request
from typing import Any, Callable, Iterator

import aiohttp
import httpx
import pytest
import requests

from citetrace import names, traced_tool
from citetrace.eval import evaluate_run, gate
from citetrace.store import MemoryStore

from _instrumented import summarized_run
from instrumentation._net import LocalServer

PAGE = "<html><body><p>" + "The new home of the page, with enough text to be a read. " * 5 + "</p></body></html>"


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """``/old`` answers 301 to ``/new``; ``/new`` is the page; ``/plain`` is a page without a redirect."""
    with LocalServer() as srv:
        srv.redirects["/old"] = "/new"
        srv.routes["/new"] = (200, PAGE, "text/html")
        srv.routes["/plain"] = (200, PAGE, "text/html")
        yield srv


@traced_tool(kind="fetch")
def fetch_requests(url: str) -> requests.Response:
    """A fetch returning the requests response (which follows redirects)."""
    return requests.get(url, timeout=5)


@traced_tool(kind="fetch")
def fetch_httpx(url: str) -> httpx.Response:
    """A fetch returning the httpx response of a client told to follow redirects."""
    with httpx.Client(follow_redirects=True, timeout=5) as client:
        response = client.get(url)
        response.read()
        return response


class _Page:
    """What a fetch hands back once its connection is closed: the response's final URL, its hops when the client
    keeps them (aiohttp; urllib keeps none) and the text."""

    def __init__(self, response: Any, text: str) -> None:
        self.url, self.text = response.url, text
        if hasattr(response, "history"):
            self.history = response.history


@traced_tool(kind="fetch")
def fetch_urllib(url: str) -> _Page:
    """A urllib fetch: its response keeps no hops; the auto-instrumented urllib probe sees the redirect."""
    with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - a local server
        return _Page(response, response.read().decode())


@traced_tool(kind="fetch")
async def fetch_aiohttp(url: str) -> _Page:
    """An async fetch with aiohttp, which follows redirects and keeps the hops in ``history``."""
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as response:
            return _Page(response, await response.text())


def _fetch_aiohttp(url: str) -> _Page:
    return asyncio.run(fetch_aiohttp(url))


@traced_tool(kind="fetch")
def fetch_text(url: str) -> str:
    """The usual fetch: only the text (the final URL is seen by the HTTP clients' probes, auto-instrumented)."""
    response = requests.get(url, timeout=5)
    response.raise_for_status()
    return response.text


@traced_tool(kind="fetch")
async def fetch_text_async(url: str) -> str:
    """The async twin: httpx.AsyncClient following redirects, only the text returned."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=5) as client:
        return (await client.get(url)).text


FETCHES: dict[str, Callable[[str], Any]] = {
    "requests": fetch_requests, "httpx": fetch_httpx, "urllib": fetch_urllib, "aiohttp": _fetch_aiohttp,
    "text": fetch_text, "text_async": lambda url: asyncio.run(fetch_text_async(url)),
}


@traced_tool(kind="search")
def search(query: str, base: str) -> list[dict[str, str]]:
    """A search whose one result is the URL that moved."""
    return [{"url": f"{base}/old", "title": "The page"}]


@pytest.mark.parametrize("client", sorted(FETCHES))
def test_a_cited_redirect_target_is_read(server: LocalServer, client: str) -> None:
    """The report cites /new after a search returned /old and the tool fetched it: summary, store and gate all
    say it was read, and it stands for the search result (not uncited)."""
    store = MemoryStore()
    with summarized_run(store) as run:
        search("the page", server.base)
        FETCHES[client](f"{server.base}/old")
        run.record_answer(f"The page moved [1].\n\n[1] {server.base}/new\n")
    assert ("GET", "/new", b"") in server.requests  # the truth: the server served the final URL
    doc = store.get(run.id, f"{server.base}/new")
    assert doc is not None and doc.text.startswith("<html>") and doc.status == names.STATUS_OK
    assert store.get(run.id, f"{server.base}/old") is not None  # the requested URL keeps its document
    record = store.get_run(run.id)
    assert record is not None and record.summary is not None
    assert (record.summary["cited_not_fetched"], record.summary["uncited_from_retrieval"]) == (0, 0)
    assert record.summary["failure_reasons"] == [] and record.summary["distinct_urls_seen"] == 1
    ev = evaluate_run(store, run.id, offline=True)
    assert ev.unfetched_urls == []
    assert gate(ev, rules=(names.GATE_UNFETCHED,)).failures == []


def test_the_span_names_the_final_url_as_read(server: LocalServer) -> None:
    """url.full stays the requested URL; citetrace.pages_returned names the final one; a plain fetch has none."""
    from citetrace.testing import capture_spans

    with capture_spans() as cap:
        fetch_requests(f"{server.base}/old")
        fetch_requests(f"{server.base}/plain")
    redirected, plain = (dict(s.attributes or {}) for s in cap.tool_spans())
    assert redirected[names.URL_FULL] == f"{server.base}/old"
    assert list(redirected[names.PAGES_RETURNED]) == [f"{server.base}/new"]
    assert redirected[names.URL_FINAL] == f"{server.base}/new"
    assert names.PAGES_RETURNED not in plain and names.URL_FINAL not in plain


def test_a_redirect_of_another_url_in_the_call_is_not_the_calls_page(server: LocalServer) -> None:
    """A tool that reads /plain and, on the side, a redirected /old does not make /new a read of this call."""

    @traced_tool(kind="fetch")
    def fetch_with_side_request(url: str) -> requests.Response:
        """Reads the page, then returns a response of another, redirected URL."""
        requests.get(url, timeout=5)
        return requests.get(f"{server.base}/old", timeout=5)

    store = MemoryStore()
    with summarized_run(store) as run:
        fetch_with_side_request(f"{server.base}/plain")
        run.record_answer(f"Side [1].\n\n[1] {server.base}/new\n")
    assert store.get(run.id, f"{server.base}/new") is None
    record = store.get_run(run.id)
    assert record is not None and record.summary is not None and record.summary["cited_not_fetched"] == 1


@pytest.mark.parametrize("client", ["requests", "text"])
def test_a_cited_redirect_target_of_a_search_result_is_not_fabricated_anywhere(server: LocalServer,
                                                                               client: str) -> None:
    """Eval, the gate, the stored call and the run page agree with the summary: citing /new after a search
    returned /old (fetched, redirected) is a citation of a search result. Before, the summary said so while
    ``citetrace eval`` flagged /new ``not_returned_by_search`` and the run page drew it as fabricated."""
    from citetrace.view import build_run_view

    store = MemoryStore()
    with summarized_run(store) as run:
        search("the page", server.base)
        FETCHES[client](f"{server.base}/old")
        run.record_answer(f"The page moved [1].\n\n[1] {server.base}/new\n")
    (fetch,) = [c for c in store.calls(run.id) if c.kind == names.TOOL_KIND_FETCH]
    assert (fetch.url, fetch.url_final) == (f"{server.base}/old", f"{server.base}/new")
    ev = evaluate_run(store, run.id, offline=True)
    assert [p.returned_by_search for p in ev.pairs] == [True]
    assert gate(ev).failures == []
    record = store.get_run(run.id)
    assert record is not None
    (cited,) = build_run_view(store, record).citations
    assert (cited.fabricated, cited.unfetched, cited.fetch_status, cited.read_with_search) == (False, False, "ok", False)


def test_a_redirect_of_a_url_no_search_returned_stays_uncited_in_eval(server: LocalServer) -> None:
    """The redirect target stands for its origin only: /old was never a search result, so /new is not one
    either (eval and the run page, as the summary's vector ``redirected_fetch``)."""
    from citetrace.view import build_run_view

    store = MemoryStore()
    with summarized_run(store) as run:
        fetch_requests(f"{server.base}/old")
        run.record_answer(f"The page moved [1].\n\n[1] {server.base}/new\n")
    ev = evaluate_run(store, run.id, offline=True)
    assert [p.returned_by_search for p in ev.pairs] == [False]
    record = store.get_run(run.id)
    assert record is not None and record.summary is not None and record.summary["uncited_from_retrieval"] == 1
    (cited,) = build_run_view(store, record).citations
    assert (cited.fabricated, cited.unfetched) == (True, False)


def test_show_and_the_run_page_name_the_final_url(server: LocalServer) -> None:
    """``citetrace show`` prints a redirected read as ``/old -> /new``, and the run page names where it went."""
    from citetrace.store._cli import _detail
    from citetrace.view import build_run_view, render_run_page

    store = MemoryStore()
    with summarized_run(store) as run:
        fetch_requests(f"{server.base}/old")
        fetch_requests(f"{server.base}/plain")
    moved, plain = store.calls(run.id)
    assert _detail(moved).startswith(f"{server.base}/old -> {server.base}/new  ")
    assert " -> " not in _detail(plain)
    record = store.get_run(run.id)
    assert record is not None
    page = render_run_page(build_run_view(store, record))
    assert page.count("redirected to") == 1 and f"{server.base}/new" in page
