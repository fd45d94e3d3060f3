"""One call, many URLs, one request: Tavily's ``extract`` and Exa's ``get_contents`` given a list are one fetch
span with one stored document per URL, each with its own status; the real clients, only HTTP replaced."""

from __future__ import annotations

from typing import Any

import responses
from exa_py import Exa
from tavily import TavilyClient

from citetrace import names
from citetrace.testing import Captured
from citetrace.instrumentation import CiteTraceInstrumentor

from .conftest import one_tool_span

PAGE = "A page long enough to count as a real read of it, with a claim to check against."
URLS = ["https://a.example/1", "https://b.example/2", "https://c.example/3"]


def documents(cap: Captured) -> dict[str, Any]:
    """The run's stored documents by URL (the run id is the trace id: no run is open)."""
    run_id = format(cap.tool_spans()[0].context.trace_id, "032x")
    return {d.url: d for d in cap.store.documents(run_id)}


@responses.activate
def test_tavily_extract_one_document_per_url(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Two pages read and one failed: one ok span naming the three URLs, three documents, each with its own
    status and its own text (the span keeps the first page's store ref)."""
    responses.post("https://api.tavily.com/extract", json={
        "results": [{"url": URLS[0], "raw_content": PAGE + " one"}, {"url": URLS[1], "raw_content": PAGE + " two"}],
        "failed_results": [{"url": URLS[2], "error": "Failed to fetch url"}]})
    TavilyClient(api_key="k").extract(URLS)
    attrs = one_tool_span(cap)
    assert (attrs[names.TOOL_KIND], attrs[names.TOOL_STATUS]) == (names.TOOL_KIND_FETCH, names.STATUS_OK)
    assert attrs[names.URL_FULL] == URLS[0]
    assert list(attrs[names.PAGES_RETURNED]) == URLS
    assert attrs[names.RESULT_SIZE] == 2 * len(PAGE) + len(" one") + len(" two")
    docs = documents(cap)
    assert {u: (d.status, d.text) for u, d in docs.items()} == {
        URLS[0]: (names.STATUS_OK, PAGE + " one"), URLS[1]: (names.STATUS_OK, PAGE + " two"),
        URLS[2]: (names.STATUS_ERROR, "")}
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE + " one"


@responses.activate
def test_tavily_extract_all_failed_is_error(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Every URL failed (one of them throttled): an error span, a failed document per URL."""
    responses.post("https://api.tavily.com/extract", json={"results": [], "failed_results": [
        {"url": URLS[0], "error": "timeout"}, {"url": URLS[1], "error": "HTTP 429 Too Many Requests"}]})
    TavilyClient(api_key="k").extract(URLS[:2])
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_ERROR
    assert list(attrs[names.PAGES_RETURNED]) == URLS[:2]
    assert {u: d.status for u, d in documents(cap).items()} == {URLS[0]: names.STATUS_ERROR,
                                                                URLS[1]: names.STATUS_RATE_LIMITED}


@responses.activate
def test_exa_get_contents_statuses_are_documents(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """get_contents of three URLs where Exa reports one 404 and one 429 in ``statuses``: an ok span (one page
    read) naming all three, and each failed URL a document with its own status and HTTP status."""
    responses.post("https://api.exa.ai/contents", json={
        "results": [{"id": URLS[0], "url": URLS[0], "title": "t", "text": PAGE}],
        "statuses": [{"id": URLS[0], "status": "success"},
                     {"id": URLS[1], "status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}},
                     {"id": URLS[2], "status": "error", "error": {"tag": "CRAWL_LIMIT", "httpStatusCode": 429}}]})
    Exa(api_key="k").get_contents(URLS, text=True)
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert list(attrs[names.PAGES_RETURNED]) == URLS
    docs = documents(cap)
    assert {u: (d.status, d.http_status) for u, d in docs.items()} == {
        URLS[0]: (names.STATUS_OK, None), URLS[1]: (names.STATUS_ERROR, 404), URLS[2]: (names.STATUS_RATE_LIMITED, 429)}
    assert docs[URLS[0]].text == PAGE


@responses.activate
def test_exa_get_contents_nothing_read_is_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A page that came back blank is an empty document and an empty span, never ok."""
    responses.post("https://api.exa.ai/contents", json={
        "results": [{"id": URLS[0], "url": URLS[0], "title": "t", "text": ""}], "statuses": []})
    Exa(api_key="k").get_contents([URLS[0]], text=True)
    assert one_tool_span(cap)[names.TOOL_STATUS] == names.STATUS_EMPTY
    assert documents(cap)[URLS[0]].status == names.STATUS_EMPTY


@responses.activate
def test_langchain_tavily_extract_one_document_per_url(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """langchain-tavily's TavilyExtract over two URLs, one failed: the same per-URL documents as tavily-python's."""
    from langchain_tavily import TavilyExtract

    responses.post("https://api.tavily.com/extract", json={"results": [{"url": URLS[0], "raw_content": PAGE}],
                                                           "failed_results": [{"url": URLS[1], "error": "404"}]})
    TavilyExtract(tavily_api_key="k").invoke({"urls": URLS[:2]})
    attrs = one_tool_span(cap)
    assert (attrs[names.GEN_AI_TOOL_NAME], attrs[names.TOOL_STATUS]) == ("langchain_tavily.extract", names.STATUS_OK)
    assert {u: d.status for u, d in documents(cap).items()} == {URLS[0]: names.STATUS_OK, URLS[1]: names.STATUS_ERROR}
