"""Opt-in fetch rules over plain HTTP (CITETRACE_FETCH_RULES): Jina Reader's r.jina.ai/<url> and a user's
own rules are fetch spans of the page fetched, stored as that page's document, through every watched
client; nothing else ever becomes a span. Real clients; only DNS points the hosts at 127.0.0.1."""

from __future__ import annotations

import json
import logging
from typing import Any, Iterator

import pytest

from citetrace import _fetchrules, names, research_run
from citetrace.config import load_settings
from citetrace.summary import SpanRecord, summarize
from citetrace.testing import Captured, capture_spans

from ._clients import CLIENTS, Call
from ._net import LocalServer, closed_port, fake_dns
from .conftest import one_tool_span

PAGE_URL = "https://example.org/solar/2024?lang=en"
PAGE = "Solar capacity grew 32 percent in 2024, the agency said. " * 4
_HOSTS = ("r.jina.ai", "fetch.internal")


@pytest.fixture
def rules_cap() -> Iterator[Captured]:
    """Spans in memory with the Jina Reader rule and one custom query-parameter rule turned on."""
    with capture_spans(empty_fetch_chars=20,
                       fetch_rules="jina_reader, proxy=https://fetch.internal/get?target={url}") as captured:
        yield captured


@pytest.fixture
def dns(server: LocalServer) -> Iterator[LocalServer]:
    """The reader hosts resolve to the local server."""
    with fake_dns(_HOSTS):
        yield server


def _jina(port: int, page: str = PAGE_URL) -> Call:
    return Call("GET", f"http://r.jina.ai:{port}/{page}", {})


def _send(client: str, call: Call) -> bytes | BaseException:
    try:
        return CLIENTS[client](call)
    except Exception as exc:  # urllib raises HTTPError on 4xx/5xx, as without citetrace
        return exc


@pytest.mark.parametrize("client", list(CLIENTS))
def test_jina_reader_is_a_fetch_of_the_page(instrumented: Any, rules_cap: Captured, dns: LocalServer,
                                            client: str) -> None:
    """r.jina.ai/<url> is one fetch span of <url>; the text is that page's document and counts as read."""
    dns.routes["/"] = (200, PAGE, "text/plain; charset=utf-8")
    with research_run("q") as run:
        assert _send(client, _jina(dns.port)) == PAGE.encode()
        run.record_answer(f"Capacity grew [1].\n\n[1] {PAGE_URL}")
    span = one_tool_span(rules_cap)
    assert span[names.GEN_AI_TOOL_NAME] == "jina_reader" and span[names.TOOL_KIND] == "fetch"
    assert (span[names.URL_FULL], span[names.SERVER_ADDRESS]) == (PAGE_URL, "example.org")
    assert (span[names.TOOL_STATUS], span[names.RESULT_SIZE]) == ("ok", len(PAGE))
    (doc,) = rules_cap.store.documents(run.id)
    assert (doc.url, doc.text) == (PAGE_URL, PAGE)
    summary = summarize([SpanRecord.from_readable_span(s) for s in rules_cap.spans])
    assert (summary.reads, summary.cited_not_fetched) == (1, 0)


@pytest.mark.parametrize("client", list(CLIENTS))
def test_jina_reader_post_names_the_page_in_the_body(instrumented: Any, rules_cap: Captured, dns: LocalServer,
                                                     client: str) -> None:
    """POST r.jina.ai/ with {"url": <url>} is a fetch of <url>, like the GET form."""
    dns.routes["/"] = (200, PAGE, "text/plain")
    _send(client, Call("POST", f"http://r.jina.ai:{dns.port}/", {}, {"url": PAGE_URL}))
    span = one_tool_span(rules_cap)
    assert (span[names.URL_FULL], span[names.TOOL_STATUS]) == (PAGE_URL, "ok")
    assert rules_cap.store.get_ref(str(span[names.STORE_REF])) == PAGE


def test_jina_post_without_a_page_is_no_fetch() -> None:
    """A POST with no url field, or to another path, is not a fetch."""
    assert _fetchrules.match("jina_reader", "POST", "https://r.jina.ai/", b'{"q": "x"}') is None
    assert _fetchrules.match("jina_reader", "POST", "https://r.jina.ai/other", {"url": PAGE_URL}) is None
    assert _fetchrules.match("jina_reader", "POST", "https://r.jina.ai/", "not json") is None
    found = _fetchrules.match("jina_reader", "POST", "https://r.jina.ai/", b'{"url": "example.org/a"}')
    assert found is not None and found[1] == "https://example.org/a"


@pytest.mark.parametrize("client", ["requests", "aiohttp"])
def test_jina_json_answer_stores_the_content(instrumented: Any, rules_cap: Captured, dns: LocalServer,
                                             client: str) -> None:
    """With Accept: application/json Jina answers {data: {content}}: the content is the page text."""
    dns.routes["/"] = (200, json.dumps({"code": 200, "data": {"url": PAGE_URL, "content": PAGE}}), "application/json")
    _send(client, _jina(dns.port))
    span = one_tool_span(rules_cap)
    assert rules_cap.store.get_ref(str(span[names.STORE_REF])) == PAGE


@pytest.mark.parametrize("client", list(CLIENTS))
def test_custom_query_parameter_rule(instrumented: Any, rules_cap: Captured, dns: LocalServer, client: str) -> None:
    """A user's rule (target in a query parameter) fetches that parameter's URL."""
    dns.routes["/get"] = (200, PAGE, "text/html")
    _send(client, Call("GET", f"http://fetch.internal:{dns.port}/get", {"target": PAGE_URL}))
    span = one_tool_span(rules_cap)
    assert (span[names.GEN_AI_TOOL_NAME], span[names.URL_FULL], span[names.TOOL_STATUS]) == ("proxy", PAGE_URL, "ok")


@pytest.mark.parametrize(("status", "expected"), [(429, "rate_limited"), (451, "error"), (502, "error")])
@pytest.mark.parametrize("client", list(CLIENTS))
def test_failures_store_no_page_text(instrumented: Any, rules_cap: Captured, dns: LocalServer, client: str,
                                     status: int, expected: str) -> None:
    """A 4xx/5xx is rate_limited or error with its status code; the error page is not stored as the page."""
    dns.routes["/"] = (status, "Error: target blocked " + "x" * 200, "text/plain")
    with research_run("q") as run:
        _send(client, _jina(dns.port))
    span = one_tool_span(rules_cap)
    assert (span[names.TOOL_STATUS], span[names.HTTP_RESPONSE_STATUS_CODE]) == (expected, status)
    assert [d.text for d in rules_cap.store.documents(run.id)] == [""]


@pytest.mark.parametrize("client", list(CLIENTS))
def test_blank_page_is_empty(instrumented: Any, rules_cap: Captured, dns: LocalServer, client: str) -> None:
    """A reader answer below the empty-fetch threshold is an empty read."""
    dns.routes["/"] = (200, "  ", "text/plain")
    _send(client, _jina(dns.port))
    assert one_tool_span(rules_cap)[names.TOOL_STATUS] == "empty"


@pytest.mark.parametrize("client", list(CLIENTS))
def test_refused_connection(instrumented: Any, rules_cap: Captured, client: str) -> None:
    """A refused connection raises as without citetrace; the fetch span is an error."""
    with fake_dns(_HOSTS):
        raised = _send(client, _jina(closed_port()))
    assert isinstance(raised, Exception)
    assert one_tool_span(rules_cap)[names.TOOL_STATUS] == "error"


@pytest.mark.parametrize("client", list(CLIENTS))
def test_not_opted_in_is_no_span(instrumented: Any, cap: Captured, dns: LocalServer, client: str) -> None:
    """Without the setting, r.jina.ai is an ordinary host: no span."""
    dns.routes["/"] = (200, PAGE, "text/plain")
    assert _send(client, _jina(dns.port)) == PAGE.encode()
    assert cap.tool_spans() == []


def test_uninstrumented_is_no_span(rules_cap: Captured, dns: LocalServer) -> None:
    """With the rule on but the instrumentor off, nothing is recorded."""
    dns.routes["/"] = (200, PAGE, "text/plain")
    _send("requests", _jina(dns.port))
    assert rules_cap.tool_spans() == []


@pytest.mark.parametrize(("url", "target"), [
    ("https://r.jina.ai/https://example.org/a?b=1", "https://example.org/a?b=1"),
    ("https://r.jina.ai/https%3A%2F%2Fexample.org%2Fa", "https://example.org/a"),
    ("https://r.jina.ai/example.org/a", "https://example.org/a"),
    ("https://r.jina.ai/http:/example.org/a", "http://example.org/a"),
    ("https://r.jina.ai/", None), ("https://r.jina.ai/ftp://example.org/a", None),
    ("https://s.jina.ai/https://example.org/a", None),
])
def test_jina_targets(url: str, target: str | None) -> None:
    """The page URL read off a Jina Reader request (no scheme: https; none or not a web URL: no fetch)."""
    found = _fetchrules.match("jina_reader", "GET", url)
    assert (found[1] if found is not None else None) == target


def test_prefix_template_and_methods() -> None:
    """A path-prefix template takes the tail as the page URL; other paths and methods are not fetches."""
    raw = "mine=https://reader.example/v1/read/{url}"
    assert _fetchrules.match(raw, "GET", "https://reader.example/v1/read/https://a.example/x") is not None
    assert _fetchrules.match(raw, "GET", "https://reader.example/v2/read/https://a.example/x") is None
    assert _fetchrules.match(raw, "POST", "https://reader.example/v1/read/https://a.example/x") is None
    assert _fetchrules.match(None, "GET", "https://r.jina.ai/https://a.example/x") is None


@pytest.mark.parametrize(("raw", "problem"), [
    ("jina", "unknown rule"), ("bad name=https://x.example/{url}", "rule name"),
    ("a=https://x.example/read", "exactly once"), ("a=ftp://x.example/{url}", "http(s) URL"),
    ("a=https://x.example/{url}/tail", "end the path"), ("a=https://x.example/r?u={url}&v={url}", "exactly once"),
])
def test_bad_rules_raise_one_line(raw: str, problem: str) -> None:
    """A bad configure() argument raises one line naming the entry and the problem."""
    with pytest.raises(ValueError) as raised:
        load_settings(fetch_rules=raw)
    message = str(raised.value)
    assert "fetch_rules" in message and problem in message and raw.split(",")[0] in message
    assert "\n" not in message


def test_env_var_read_and_bad_value_falls_back(caplog: pytest.LogCaptureFixture) -> None:
    """CITETRACE_FETCH_RULES is read; a bad value warns once naming the variable and turns nothing on."""
    assert load_settings({names.ENV_FETCH_RULES: "jina_reader"}).fetch_rules == "jina_reader"
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        settings = load_settings({names.ENV_FETCH_RULES: "nope=ftp://x/{url}"})
    assert settings.fetch_rules is None
    assert names.ENV_FETCH_RULES in caplog.text and "http(s) URL" in caplog.text


@pytest.mark.parametrize("client", list(CLIENTS))
def test_a_pdf_through_a_reader_is_stored_as_its_text(instrumented: Any, rules_cap: Captured, dns: LocalServer,
                                                      client: str) -> None:
    """A reader that passes a PDF through (application/pdf): the page's document is the PDF's text layer with
    content type application/pdf, not its bytes decoded as text; the caller still gets the bytes."""
    from _pdfbytes import make_pdf

    pdf = make_pdf([PAGE.strip()])
    dns.routes["/"] = (200, pdf, "application/pdf")
    with research_run("q") as run:
        assert _send(client, _jina(dns.port)) == pdf
    span = one_tool_span(rules_cap)
    (doc,) = rules_cap.store.documents(run.id)
    assert (doc.url, doc.content_type, span[names.TOOL_STATUS]) == (PAGE_URL, "application/pdf", "ok")
    assert doc.text == PAGE.strip() and "%PDF" not in doc.text


@pytest.mark.parametrize("reason", [names.PDF_NO_TEXT, names.PDF_DAMAGED])
@pytest.mark.parametrize("client", list(CLIENTS))
def test_an_unreadable_pdf_says_why_through_every_client(instrumented: Any, rules_cap: Captured, dns: LocalServer,
                                                         client: str, reason: str) -> None:
    """A scan (no text layer) or a cut-off PDF through a reader: an empty read stored with content type
    application/pdf and ``citetrace.content.unreadable`` naming why, the same for urllib and aiohttp as for
    requests and httpx (their responses hold no bytes capture could look at again: the HTTP layer hands them
    over); the caller still gets the bytes."""
    from _pdfbytes import make_pdf

    pdf = make_pdf([None]) if reason == names.PDF_NO_TEXT else make_pdf([PAGE.strip()] * 3)[:300]
    dns.routes["/"] = (200, pdf, "application/pdf")
    with research_run("q") as run:
        assert _send(client, _jina(dns.port)) == pdf
    span = one_tool_span(rules_cap)
    (doc,) = rules_cap.store.documents(run.id)
    assert (span[names.TOOL_STATUS], span.get(names.CONTENT_UNREADABLE)) == ("empty", reason)
    assert (doc.content_type, doc.text) == ("application/pdf", "")


@pytest.mark.parametrize("client", list(CLIENTS))
def test_an_image_through_a_reader_is_unreadable_binary(instrumented: Any, rules_cap: Captured, dns: LocalServer,
                                                        client: str) -> None:
    """An image a reader passes through: an empty read, unreadable=binary, stored empty with its content type,
    the same through every client; the caller still gets the bytes."""
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    dns.routes["/"] = (200, png, "image/png")
    with research_run("q") as run:
        assert _send(client, _jina(dns.port)) == png
    span = one_tool_span(rules_cap)
    (doc,) = rules_cap.store.documents(run.id)
    assert (span[names.TOOL_STATUS], span.get(names.CONTENT_UNREADABLE)) == ("empty", names.BINARY_CONTENT)
    assert (doc.content_type, doc.text) == ("image/png", "")
