"""LlamaIndex's DuckDuckGo tool spec: the real ``DuckDuckGoSearchToolSpec`` over the real duckduckgo_search 6
(the version it pins), with only the primp HTTP client replaced by the stand-in that forwards each request to a
local server (``_net.FakePrimp``). Run by tests/instrumentation/test_pinned.py in the pinned venv."""

from __future__ import annotations

import json
from typing import Any

import duckduckgo_search.duckduckgo_search as ddg
import pytest
from duckduckgo_search.exceptions import DuckDuckGoSearchException, RatelimitException
from llama_index.tools.duckduckgo.base import DuckDuckGoSearchToolSpec

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .._net import FakePrimp, LocalServer
from ..conftest import assert_restores, one_tool_span, status_of

VQD = "/duckduckgo.com"
LINKS = "/links.duckduckgo.com/d.js"
API = "/api.duckduckgo.com/"


def links_page(n: int) -> str:
    """DuckDuckGo's d.js answer with ``n`` results, in the shape duckduckgo_search 6 parses."""
    rows = [{"u": f"https://ddg.example/{i}", "a": f"body {i}", "t": f"title {i}"} for i in range(n)]
    return f"DDG.pageLayout.load('d',{json.dumps(rows)});DDG.duckbar.load('images');"


def answers(n_related: int) -> str:
    """The instant-answer JSON: an abstract with its URL and ``n_related`` related topics."""
    related = [{"Text": f"topic {i}", "FirstURL": f"https://ddg.example/t{i}", "Icon": {"URL": ""}}
               for i in range(n_related)]
    return json.dumps({"AbstractText": "OpenTelemetry is...", "AbstractURL": "https://ddg.example/abstract",
                       "RelatedTopics": related})


@pytest.fixture
def ddg_net(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> LocalServer:
    """duckduckgo_search's primp client forwards to the local server, which answers a vqd and three results."""
    monkeypatch.setattr(ddg, "primp", FakePrimp(server))
    server.routes.update({VQD: (200, '<script>vqd="4-123";</script>', "text/html"),
                          LINKS: (200, links_page(3), "application/javascript"),
                          API: (200, answers(2), "application/json")})
    return server


def test_full_search_ok(instrumented: CiteTraceInstrumentor, cap: Captured, ddg_net: LocalServer) -> None:
    """duckduckgo_full_search is one ok search span with the result URLs, the same dicts returned."""
    results = DuckDuckGoSearchToolSpec().duckduckgo_full_search("what is otel", max_results=3)
    assert [r["href"] for r in results] == [f"https://ddg.example/{i}" for i in range(3)]
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "llama_index.duckduckgo_full_search"
    assert (attrs[names.TOOL_STATUS], attrs[names.RESULT_COUNT]) == (names.STATUS_OK, 3)
    assert list(attrs[names.URLS_RETURNED]) == [f"https://ddg.example/{i}" for i in range(3)]
    assert attrs[names.QUERY_HASH]


def test_full_search_empty_ratelimit_error(instrumented: CiteTraceInstrumentor, cap: Captured,
                                           ddg_net: LocalServer) -> None:
    """No results is empty; DuckDuckGo's rate-limit answer (a 202: RatelimitException) rate_limited; a 500
    (DuckDuckGoSearchException, which in duckduckgo_search 6 carries no status) an error."""
    ddg_net.routes[LINKS] = (200, links_page(0), "application/javascript")
    assert DuckDuckGoSearchToolSpec().duckduckgo_full_search("nothing") == []
    assert status_of(cap) == names.STATUS_EMPTY
    for status, raised, expected in ((202, RatelimitException, names.STATUS_RATE_LIMITED),
                                     (500, DuckDuckGoSearchException, names.STATUS_ERROR)):
        cap.clear()
        ddg_net.routes[LINKS] = (status, "", "text/html")
        with pytest.raises(raised):
            DuckDuckGoSearchToolSpec().duckduckgo_full_search("q")
        assert status_of(cap) == expected


def test_instant_search(instrumented: CiteTraceInstrumentor, cap: Captured, ddg_net: LocalServer) -> None:
    """duckduckgo_instant_search is one search span whose results are the answer's URLs (abstract and topics)."""
    found: list[dict[str, Any]] = DuckDuckGoSearchToolSpec().duckduckgo_instant_search("otel")
    assert len(found) == 3
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "llama_index.duckduckgo_instant_search"
    assert list(attrs[names.URLS_RETURNED]) == ["https://ddg.example/abstract", "https://ddg.example/t0",
                                                "https://ddg.example/t1"]


def test_uninstrument(cap: Captured, ddg_net: LocalServer) -> None:
    """uninstrument() puts back the very spec methods; a search afterwards makes no span."""
    assert_restores([(DuckDuckGoSearchToolSpec, "duckduckgo_full_search"),
                     (DuckDuckGoSearchToolSpec, "duckduckgo_instant_search")])
    DuckDuckGoSearchToolSpec().duckduckgo_full_search("q")
    assert cap.tool_spans() == []
