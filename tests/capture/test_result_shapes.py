"""``@traced_tool`` reads the result shapes real search and fetch code returns, never calling one it cannot
read ``empty``: raw Serper (``organic``, ``news``), Bing (``webPages.value``), ``sources``, Elastic
(``hits.hits[]._source.url``), a set of URLs, a ``{url: title}`` dict, ``(title, url)`` pairs; fetches
returning str chunks, ``(status, text)``, ``{"text_content"}``, LangChain Documents. Before, these were
``empty`` (size 0) or counted without their URLs. Real requests against a server on 127.0.0.1; real
langchain-core Documents."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator

import pytest
import requests
from langchain_core.documents import Document

from citetrace import names, traced_tool
from citetrace.testing import capture_spans

from instrumentation._net import LocalServer

A, B = "https://a.example/solar", "https://b.example/wind?id=2"
BODIES = {
    "/serper": {"searchParameters": {"q": "x"}, "knowledgeGraph": {"title": "K"},
                "organic": [{"title": "A", "link": A, "snippet": "a", "position": 1},
                            {"title": "B", "link": B, "snippet": "b", "position": 2}]},
    "/serper-news": {"searchParameters": {"q": "x", "type": "news"},
                     "news": [{"title": "A", "link": A, "date": "1 day ago"}, {"title": "B", "link": B}]},
    "/bing": {"_type": "SearchResponse", "queryContext": {"originalQuery": "x"},
              "webPages": {"totalEstimatedMatches": 2, "value": [{"name": "A", "url": A, "snippet": "a"},
                                                                  {"name": "B", "url": B, "snippet": "b"}]}},
    "/sources": {"answer": "Solar and wind.", "sources": [{"url": A, "title": "A"}, {"url": B, "title": "B"}]},
    "/elastic": {"took": 3, "hits": {"total": {"value": 2}, "hits": [
        {"_index": "web", "_id": "1", "_score": 1.0, "_source": {"url": A, "title": "A", "body": "solar text"}},
        {"_index": "web", "_id": "2", "_score": 0.5, "_source": {"url": B, "title": "B", "body": "wind text"}}]}},
}
PAGE = "<html><body><p>" + "A paragraph of a real page, long enough to be a read. " * 8 + "</p></body></html>"


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    """The search APIs' answers and a page, on 127.0.0.1."""
    srv = LocalServer()
    for path, body in BODIES.items():
        srv.routes[path] = (200, json.dumps(body), "application/json")
    srv.routes["/page"] = (200, PAGE, "text/html")
    srv.routes["/gone"] = (404, "<html>" + "Not found. " * 20 + "</html>", "text/html")
    try:
        yield srv
    finally:
        srv.close()


def _json(base: str, path: str) -> Any:
    return requests.get(base + path, timeout=5).json()


SEARCHES: dict[str, Callable[[str], Any]] = {
    "serper organic": lambda base: _json(base, "/serper"),
    "serper news": lambda base: _json(base, "/serper-news"),
    "bing webPages.value": lambda base: _json(base, "/bing"),
    "sources": lambda base: _json(base, "/sources"),
    "elastic hits.hits._source": lambda base: _json(base, "/elastic"),
    "a set of URLs": lambda base: {item["link"] for item in _json(base, "/serper")["organic"]},
    "a {url: title} dict": lambda base: {item["link"]: item["title"] for item in _json(base, "/serper")["organic"]},
    "(title, url) pairs": lambda base: tuple((item["title"], item["link"]) for item in _json(base, "/serper")["organic"]),
}


@pytest.mark.parametrize("shape", sorted(SEARCHES))
def test_search_shapes_give_their_urls(server: LocalServer, shape: str) -> None:
    """Each shape is ok with both URLs, counted 2, with a size."""

    @traced_tool(kind="search")
    def search(query: str) -> Any:
        """A search returning the shape under test."""
        return SEARCHES[shape](server.base)

    with capture_spans() as cap:
        search("solar and wind")
    attrs = dict(cap.tool_spans()[0].attributes or {})
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert sorted(attrs[names.URLS_RETURNED]) == sorted([A, B])
    assert attrs[names.RESULT_COUNT] == 2
    assert attrs[names.RESULT_SIZE] > len(A) + len(B) - 1


def test_a_search_shape_nobody_reads_is_ok_not_empty(server: LocalServer) -> None:
    """A mapping with none of the known keys is ok with no count (unknown), never empty; an empty list is empty."""

    @traced_tool(kind="search")
    def search(query: str) -> Any:
        """Returns what the API said under a key of its own, or nothing."""
        return {"payload": _json(server.base, "/serper")["organic"]} if query == "own key" else []

    with capture_spans() as cap:
        search("own key")
        search("nothing")
    unknown, nothing = (dict(s.attributes or {}) for s in cap.tool_spans())
    assert unknown[names.TOOL_STATUS] == names.STATUS_OK and names.RESULT_COUNT not in unknown
    assert nothing[names.TOOL_STATUS] == names.STATUS_EMPTY and nothing[names.RESULT_COUNT] == 0


FETCHES: dict[str, Callable[[requests.Response], Any]] = {
    "str chunks": lambda r: list(r.iter_content(chunk_size=64, decode_unicode=True)),
    "(status, text)": lambda r: (r.status_code, r.text),
    "text_content": lambda r: {"url": r.url, "text_content": r.text},
    "LangChain Documents": lambda r: [Document(page_content=r.text[:200], metadata={"source": r.url}),
                                      Document(page_content=r.text[200:], metadata={"source": r.url})],
}


@pytest.mark.parametrize("shape", sorted(FETCHES))
def test_fetch_shapes_are_read_with_their_text(server: LocalServer, shape: str) -> None:
    """Each shape is an ok read of the page's size, its text stored."""

    @traced_tool(kind="fetch")
    def fetch(url: str) -> Any:
        """A fetch returning the shape under test."""
        return FETCHES[shape](requests.get(url, timeout=5))

    with capture_spans() as cap:
        fetch(f"{server.base}/page")
    attrs = dict(cap.tool_spans()[0].attributes or {})
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_SIZE] >= len(PAGE) - 2  # two documents are joined by a blank line
    stored = cap.store.get_ref(str(attrs[names.STORE_REF]))
    assert stored is not None and "A paragraph of a real page" in stored


def test_a_status_text_pair_with_a_404_is_an_error(server: LocalServer) -> None:
    """``(404, text)`` is an error read with HTTP 404, not an ok page."""

    @traced_tool(kind="fetch")
    def fetch(url: str) -> tuple[int, str]:
        """Returns (status, text) as many hand-written fetches do."""
        r = requests.get(url, timeout=5)
        return r.status_code, r.text

    with capture_spans() as cap:
        fetch(f"{server.base}/gone")
    attrs = dict(cap.tool_spans()[0].attributes or {})
    assert attrs[names.TOOL_STATUS] == names.STATUS_ERROR
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 404


def test_a_fetch_shape_nobody_reads_is_ok_not_empty(server: LocalServer) -> None:
    """A fetch returning a mapping with no known text field is ok with no size, never an empty read."""

    @traced_tool(kind="fetch")
    def fetch(url: str) -> dict[str, Any]:
        """Returns the page under a key of its own."""
        return {"page_html": requests.get(url, timeout=5).text}

    with capture_spans() as cap:
        fetch(f"{server.base}/page")
    attrs = dict(cap.tool_spans()[0].attributes or {})
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK and names.RESULT_SIZE not in attrs
