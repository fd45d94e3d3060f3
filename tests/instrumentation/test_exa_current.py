"""Exa's current API (exa-py 2): ``answer`` with its citations, ``find_similar``, and the page text that
``search`` returns by default; the real client, with only HTTP replaced (``responses`` / ``respx``)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import requests
import respx
import responses
from exa_py import AsyncExa, Exa
from exa_py import api as exa_api

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import assert_restores, http_rows_only, one_tool_span, status_of

API = "https://api.exa.ai"
PAGE = "The page text Exa returned with this result, long enough to check a claim against."


def answer_body(n: int, text: bool = True) -> dict[str, Any]:
    """Exa's documented /answer response with ``n`` citations (with their text when ``text``)."""
    cites = [{"id": str(i), "url": f"https://cite.example/{i}", "title": f"C{i}", **({"text": PAGE} if text else {})}
             for i in range(n)]
    return {"answer": "Paris is the capital." if n else "I could not find that.", "citations": cites}


def results_body(n: int) -> dict[str, Any]:
    """A /search or /findSimilar response with ``n`` results carrying text."""
    return {"results": [{"id": str(i), "url": f"https://exa.example/{i}", "title": "t", "text": PAGE}
                        for i in range(n)]}


@responses.activate
def test_answer_citations_are_results_and_documents(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """answer is one ok search span: the citations' URLs are its results and their texts documents of the run."""
    responses.post(f"{API}/answer", json=answer_body(2))
    response = Exa(api_key="k").answer("capital of France?", text=True)
    assert response.answer == "Paris is the capital."
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "exa.answer"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 2
    assert list(attrs[names.URLS_RETURNED]) == ["https://cite.example/0", "https://cite.example/1"]
    assert list(attrs[names.PAGES_RETURNED]) == ["https://cite.example/0", "https://cite.example/1"]
    assert attrs[names.QUERY_HASH]


@responses.activate
def test_answer_without_text_and_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Citations without text store no document; an answer citing nothing is empty."""
    responses.post(f"{API}/answer", json=answer_body(1, text=False))
    Exa(api_key="k").answer("q")
    attrs = one_tool_span(cap)
    assert attrs[names.RESULT_COUNT] == 1 and names.PAGES_RETURNED not in attrs
    cap.clear()
    responses.replace(responses.POST, f"{API}/answer", json=answer_body(0))
    Exa(api_key="k").answer("q")
    assert status_of(cap) == names.STATUS_EMPTY


@pytest.mark.parametrize(("status", "expected"), [(429, names.STATUS_RATE_LIMITED), (500, names.STATUS_ERROR)])
@responses.activate
def test_answer_http_failures(instrumented: CiteTraceInstrumentor, cap: Captured, status: int, expected: str) -> None:
    """Exa's ValueError("... status code 429 ...") is rate_limited, a 500 an error; re-raised unchanged."""
    responses.post(f"{API}/answer", status=status, json={"error": "no"})
    with pytest.raises(ValueError, match=str(status)):
        Exa(api_key="k").answer("q")
    assert status_of(cap) == expected


@responses.activate
def test_answer_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A refused connection is an error span and reaches the caller as raised."""
    responses.post(f"{API}/answer", body=requests.ConnectionError("down"))
    with pytest.raises(requests.ConnectionError):
        Exa(api_key="k").answer("q")
    assert status_of(cap) == names.STATUS_ERROR


async def test_async_answer_and_429(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """AsyncExa.answer is traced (httpx replaced by respx); its 429 is rate_limited."""
    with respx.mock() as mock:
        route = mock.post(f"{API}/answer")
        route.mock(return_value=httpx.Response(200, json=answer_body(3)))
        await AsyncExa(api_key="k").answer("async q", text=True)
        assert one_tool_span(cap)[names.RESULT_COUNT] == 3
        cap.clear()
        route.mock(return_value=httpx.Response(429, json={"error": "slow"}))
        with pytest.raises(ValueError):
            await AsyncExa(api_key="k").answer("async q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED


@responses.activate
def test_find_similar_query_is_the_url(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """find_similar is a search by URL: that URL is its query, the similar pages its results; empty when none."""
    responses.post(f"{API}/findSimilar", json=results_body(2))
    Exa(api_key="k").find_similar("https://seed.example/a")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "exa.find_similar"
    assert attrs[names.RESULT_COUNT] == 2
    assert attrs[names.QUERY_HASH]
    cap.clear()
    responses.replace(responses.POST, f"{API}/findSimilar", json=results_body(0))
    Exa(api_key="k").find_similar_and_contents("https://seed.example/a", text=True)
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "exa.find_similar_and_contents"
    assert attrs[names.TOOL_STATUS] == names.STATUS_EMPTY


@responses.activate
def test_search_text_is_stored_and_one_span(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """search returns text by default: each result's text is a document of the run, and the recognised
    api.exa.ai/search endpoint inside the SDK call adds no second span."""
    responses.post(f"{API}/search", json=results_body(2))
    Exa(api_key="k").search("q")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "exa.search"
    assert list(attrs[names.PAGES_RETURNED]) == ["https://exa.example/0", "https://exa.example/1"]


@responses.activate
def test_http_layer_alone_would_make_a_span(cap: Captured) -> None:
    """Control for the one-span test: with only the HTTP rows, the same SDK search is an exa_search span."""
    responses.post(f"{API}/search", json=results_body(1))
    with http_rows_only():
        Exa(api_key="k").search("q")
    assert one_tool_span(cap)[names.GEN_AI_TOOL_NAME] == "exa_search"


@responses.activate
def test_uninstrument_restores(cap: Captured) -> None:
    """uninstrument puts the original methods back; calls then make no span."""
    assert_restores([(cls, m) for cls in (exa_api.Exa, exa_api.AsyncExa)
                     for m in ("answer", "find_similar", "find_similar_and_contents")])
    responses.post(f"{API}/answer", json=answer_body(1))
    Exa(api_key="k").answer("q")
    assert cap.tool_spans() == []
