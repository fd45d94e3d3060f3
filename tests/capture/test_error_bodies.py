"""A fetch (or search) whose body is an error envelope is a failed read, not an ``ok`` one.

Scraping and proxy APIs answer HTTP 200 with the target page's failure in a JSON body
(``{"status": 404, "error": "not found"}``), and hand-written tools return that body as ``response.text``
or ``response.json()``. Before, a body over the size rule was an ``ok`` read of the error JSON, and a dict's
``status`` was not read at all. The body's shape decides, never its words: a page, an article or a JSON
document that merely contains "status" or "error" stays ``ok``. Real requests against a server on
127.0.0.1 that answers 200 with each body.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
import requests

from citetrace import names, research_run, traced_tool
from citetrace.testing import capture_spans

from instrumentation._net import LocalServer

_TRACE = "\n\tat org.example.pages.PageController.show(PageController.java:41)" * 12
FAILED: dict[str, tuple[Any, str, int | None]] = {
    # name: (body served with HTTP 200, expected status, expected http.response.status_code)
    "status and error": ({"status": 404, "error": "not found"}, "error", 404),
    "spring boot error": ({"timestamp": "2026-12-01T21:00:00.000+00:00", "status": 500,
                           "error": "Internal Server Error", "message": "Request processing failed" + _TRACE,
                           "path": "/api/pages/7"}, "error", 500),
    "status_code with detail": ({"status_code": 403, "error": "Forbidden",
                                 "detail": "The target site refused the scraper. " * 10}, "error", 403),
    "status with the error page's html": ({"status": 404, "url": "https://news.example/a/1",
                                           "content": "<html><body><h1>Not Found</h1>" + "<p>Sorry.</p>" * 30
                                                      + "</body></html>"}, "error", 404),
    "google api error": ({"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries'. " * 4,
                                    "status": "RESOURCE_EXHAUSTED"}}, "rate_limited", None),
    "status 429": ({"status": 429, "error": "Too Many Requests", "retry_after": 30}, "rate_limited", 429),
    "code and message": ({"code": 404, "message": "Page not found: " + "x" * 300, "data": None}, "error", None),
    "success false": ({"success": False, "error": "Failed to scrape URL. Timeout after 30000 ms. " * 5,
                       "data": None}, "error", None),
    "graphql errors": ({"errors": [{"message": "Document not found", "path": ["page"]}] * 8, "data": None},
                       "error", None),
}
FAILED_ENCODED = {name: json.dumps(body, indent=2) for name, (body, _s, _h) in FAILED.items()}

_ARTICLE = ("The status of a page is its HTTP code: 404 means not found, 500 a server error. "
            "An error JSON looks like {\"status\": 404, \"error\": \"not found\"}. ") * 6
OK_BODIES: dict[str, tuple[str, str]] = {
    # name: (body served with HTTP 200, its content type)
    "article about status codes": (_ARTICLE, "text/plain"),
    "html page quoting an error json": (
        "<html><body><pre>{\"status\": 404, \"error\": \"not found\"}</pre><p>" + _ARTICLE + "</p></body></html>",
        "text/html"),
    "json document with a status field": (json.dumps({"status": 200, "title": "HTTP status codes",
                                                      "content": _ARTICLE}), "application/json"),
    "json success envelope": (json.dumps({"status": "ok", "error": None, "errors": [],
                                          "data": {"content": _ARTICLE}}), "application/json"),
    "json with an error note and content": (json.dumps({"error": "partial: images skipped",
                                                        "content": _ARTICLE}), "application/json"),
    "link check report": (json.dumps({"page": "https://a.example/", "links": [
        {"url": f"https://a.example/{i}", "status": 404, "error": "not found"} for i in range(8)]}),
        "application/json"),
    "json starting like an object but not json": ("{status: 404} is how the old wiki wrote it. " + _ARTICLE,
                                                  "text/plain"),
    "json list of errors": (json.dumps([{"status": 404, "error": "not found", "note": _ARTICLE}]),
                            "application/json"),
}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    """Every body served with HTTP 200, as the scraping APIs do."""
    srv = LocalServer()
    for name, text in FAILED_ENCODED.items():
        srv.routes["/failed/" + name.replace(" ", "-")] = (200, text, "application/json")
    for name, (text, ctype) in OK_BODIES.items():
        srv.routes["/ok/" + name.replace(" ", "-")] = (200, text, ctype)
    try:
        yield srv
    finally:
        srv.close()


def _one(cap: Any) -> dict[str, Any]:
    (span,) = cap.tool_spans()
    return dict(span.attributes or {})


@pytest.mark.parametrize("returns", ["text", "content", "json"])
@pytest.mark.parametrize("name", sorted(FAILED))
def test_an_error_envelope_is_a_failed_read(server: LocalServer, name: str, returns: str) -> None:
    """``response.text``, ``.content`` or ``.json()`` of an error envelope: error (rate_limited for a 429),
    with the body's HTTP status on the span when it names one; the stored document says the same."""
    body, expected, http = FAILED[name]

    @traced_tool(kind="fetch")
    def fetch(url: str) -> Any:
        """A scraping API's answer as the tool returns it."""
        response = requests.get(url, timeout=5)
        return getattr(response, returns)() if returns == "json" else getattr(response, returns)

    with capture_spans() as cap, research_run("q") as run:
        fetch(f"{server.base}/failed/{name.replace(' ', '-')}")
    attrs = _one(cap)
    assert attrs[names.TOOL_STATUS] == expected
    assert attrs.get(names.HTTP_RESPONSE_STATUS_CODE, 200) == (http or 200)
    (doc,) = cap.store.documents(run.id)
    assert doc.status == expected


@pytest.mark.parametrize("name", sorted(OK_BODIES))
def test_a_body_that_only_mentions_status_stays_ok(server: LocalServer, name: str) -> None:
    """Pages and JSON documents that contain "status" and "error" (an article, a quoted error JSON, a link
    report, a JSON list, a success envelope) are ok reads."""

    @traced_tool(kind="fetch")
    def fetch(url: str) -> str:
        """The page's text."""
        return requests.get(url, timeout=5).text

    with capture_spans() as cap:
        fetch(f"{server.base}/ok/{name.replace(' ', '-')}")
    attrs = _one(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs.get(names.HTTP_RESPONSE_STATUS_CODE, 200) == 200


def test_a_json_dict_with_content_and_a_2xx_status_stays_ok(server: LocalServer) -> None:
    """``.json()`` of a document with ``status: 200`` and its content is ok, with 200 on the span."""

    @traced_tool(kind="fetch")
    def fetch(url: str) -> Any:
        """The API's JSON."""
        return requests.get(url, timeout=5).json()

    with capture_spans() as cap:
        fetch(f"{server.base}/ok/json-document-with-a-status-field")
    attrs = _one(cap)
    assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (names.STATUS_OK, 200)


def test_a_search_answering_an_error_envelope_is_not_an_empty_search(server: LocalServer) -> None:
    """A search tool returning the API's error body as text: rate_limited / error, not an empty search."""

    @traced_tool(kind="search")
    def search(query: str) -> str:
        """The search API's raw answer."""
        return requests.get(f"{server.base}/failed/{query}", timeout=5).text

    with capture_spans() as cap:
        search("status-429")
        search("success-false")
    limited, failed = (dict(s.attributes or {}) for s in cap.tool_spans())
    assert limited[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert failed[names.TOOL_STATUS] == names.STATUS_ERROR


def test_a_large_json_body_is_not_parsed_as_an_envelope(server: LocalServer) -> None:
    """Over ``ENVELOPE_MAX_CHARS`` a JSON text is a document whatever it holds (the bound keeps an ok read's
    cost flat): a 40 KB export that happens to carry a top-level error stays ok."""
    from citetrace.capture._extract import ENVELOPE_MAX_CHARS

    big = json.dumps({"status": 404, "error": "stale", "rows": ["x" * 100] * (ENVELOPE_MAX_CHARS // 100)})
    server.routes["/big"] = (200, big, "application/json")

    @traced_tool(kind="fetch")
    def fetch(url: str) -> str:
        """The export's text."""
        return requests.get(url, timeout=5).text

    with capture_spans() as cap:
        fetch(f"{server.base}/big")
    assert _one(cap)[names.TOOL_STATUS] == names.STATUS_OK
