"""CITETRACE_TOOLS functions that keep an HTTP failure instead of raising (a search returning ``[]`` on a 429,
a fetch returning a 404 page's text): the status probes see the call's last HTTP status, so the span says
``rate_limited`` or ``error`` with that status, as the library rows do, not a false ``empty`` or ``ok``.
Real ``requests`` and ``httpx`` against a server on 127.0.0.1."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Iterator

import pytest

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import LocalServer
from .conftest import importable, one_tool_span

SOURCE = '''
import httpx, requests

def search(query, base):
    r = requests.get(base + "/search", params={"q": query})
    return r.json()["results"] if r.ok else []

def fetch(url):
    return requests.get(url).text

def search_with_thumbnail(query, base):
    hits = requests.get(base + "/search", params={"q": query}).json()["results"]
    requests.get(base + "/thumb.png")  # a 404 on something other than the search
    return hits

def fetch_httpx(url):
    return httpx.get(url, follow_redirects=True).text
'''
PAGE = "A long page about solar capacity that is certainly a real read. " * 10
ERROR_PAGE = "<html><body>" + "Sorry, this page does not exist. " * 20 + "</body></html>"


@pytest.fixture
def tools(tmp_path: Path) -> Iterator[str]:
    """A fresh importable module name (not yet imported) holding SOURCE."""
    with importable(tmp_path, SOURCE, "user_status") as name:
        yield name


def _instrument(inst: CiteTraceInstrumentor, mod: str) -> object:
    inst.instrument(tools=f"{mod}:search=search,{mod}:fetch=fetch,{mod}:fetch_httpx=fetch,"
                          f"{mod}:search_with_thumbnail=search")
    return importlib.import_module(mod)


@pytest.mark.parametrize(("status", "expected"), [(429, names.STATUS_RATE_LIMITED), (503, names.STATUS_ERROR)])
def test_search_that_swallows_a_failure(tools: str, instrumentor: CiteTraceInstrumentor, cap: Captured,
                                        server: LocalServer, status: int, expected: str) -> None:
    """A search returning [] after a 429 is rate_limited, after a 503 an error, each with the status."""
    server.routes["/search"] = (status, '{"error": "busy"}', "application/json")
    mod = _instrument(instrumentor, tools)
    assert mod.search("q", server.base) == []  # type: ignore[attr-defined]
    attrs = one_tool_span(cap)
    assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (expected, status)


def test_fetch_that_keeps_an_error_page(tools: str, instrumentor: CiteTraceInstrumentor, cap: Captured,
                                        server: LocalServer) -> None:
    """A 404 page returned as text is an error read with HTTP 404, not an ok read of the error page; with
    httpx too."""
    server.routes["/gone"] = (404, ERROR_PAGE, "text/html")
    mod = _instrument(instrumentor, tools)
    for fn in (mod.fetch, mod.fetch_httpx):  # type: ignore[attr-defined]
        cap.clear()
        assert fn(f"{server.base}/gone") == ERROR_PAGE
        attrs = one_tool_span(cap)
        assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (names.STATUS_ERROR, 404)


def test_good_calls_stay_ok(tools: str, instrumentor: CiteTraceInstrumentor, cap: Captured,
                            server: LocalServer) -> None:
    """A search with results and a page read are ok with their 200, and so is a search that found results and
    then met a 404 on something else: the probe only speaks for a failure the call kept."""
    server.routes["/search"] = (200, '{"results": [{"url": "https://r.example/1"}]}', "application/json")
    server.routes["/page"] = (200, PAGE, "text/html")
    mod = _instrument(instrumentor, tools)
    mod.search("q", server.base)  # type: ignore[attr-defined]
    mod.fetch(f"{server.base}/page")  # type: ignore[attr-defined]
    mod.search_with_thumbnail("q", server.base)  # type: ignore[attr-defined]
    got = [(s.attributes or {}).get(names.TOOL_STATUS) for s in cap.tool_spans()]
    assert got == [names.STATUS_OK, names.STATUS_OK, names.STATUS_OK]  # results found, whatever 404 came after


def test_a_replay_sees_what_the_probes_saw(tools: str, instrumentor: CiteTraceInstrumentor,
                                           server: LocalServer) -> None:
    """What the HTTP probes saw during a recorded call (the 429 a fetch kept as text, a 200, where a redirect
    ended) is recorded with its response and seen again on replay, where no request is made: the replayed
    calls have the same status, HTTP status and final URL, and the same summary. Before, a replayed kept 429
    was an ``empty`` read with no status, and a redirected read lost its final URL (the cited target became
    ``cited_not_fetched``)."""
    from citetrace import replay, research_run
    from citetrace.summary import SpanRecord, summarize
    from citetrace.testing import capture_spans, no_network

    server.routes["/busy"] = (429, "slow down", "text/plain")
    server.routes["/new"] = (200, PAGE, "text/html")
    server.redirects["/old"] = "/new"
    mod = _instrument(instrumentor, tools)

    def agent() -> str:
        with research_run(question="q") as run:
            mod.fetch(f"{server.base}/busy")  # type: ignore[attr-defined]
            mod.fetch(f"{server.base}/old")  # type: ignore[attr-defined]
            run.record_answer(f"A claim [1].\n\n[1] {server.base}/new")
        return run.id

    def calls(cap: Captured, run_id: str) -> list[tuple[object, ...]]:
        return [((s.attributes or {}).get(names.TOOL_STATUS), (s.attributes or {}).get(names.HTTP_RESPONSE_STATUS_CODE),
                 (s.attributes or {}).get(names.URL_FINAL)) for s in cap.tool_spans()
                if (s.attributes or {}).get(names.RUN_ID) == run_id]

    def summary(cap: Captured, run_id: str) -> dict[str, object]:
        out = summarize([SpanRecord.from_readable_span(s) for s in cap.spans
                         if (s.attributes or {}).get(names.RUN_ID) == run_id]).to_dict()
        return {k: v for k, v in out.items() if k not in ("run_id", "trace_id", "keep", "total_ms", "slowest_ms")}

    with capture_spans(record_responses=True, empty_fetch_chars=20) as cap:
        recorded = agent()
        assert calls(cap, recorded) == [(names.STATUS_RATE_LIMITED, 429, None), (names.STATUS_OK, 200, f"{server.base}/new")]
        with no_network() as attempts, replay(recorded, store=cap.store):
            again = agent()
        assert attempts == []
        assert calls(cap, again) == calls(cap, recorded)
        assert summary(cap, again) == summary(cap, recorded) and summary(cap, again)["cited_not_fetched"] == 0
