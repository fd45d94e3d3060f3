"""ddgs ``DDGS.extract`` as a fetch: the real ddgs, with its primp client forwarding to a local server."""

from __future__ import annotations

import ddgs
import ddgs.ddgs as ddgs_mod
import ddgs.http_client
import pytest
from ddgs.exceptions import DDGSException

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import FakePrimp, LocalServer
from .conftest import assert_restores, one_tool_span, status_of

URL = "https://page.example/article"
PATH = "/page.example/article"
PAGE = "Readable article text that ddgs extracted from the page. " * 4


@pytest.fixture
def primp(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> LocalServer:
    """ddgs' primp replaced by the forwarding stand-in."""
    monkeypatch.setattr(ddgs.http_client, "primp", FakePrimp(server))
    return server


def test_extract_ok_stores_page(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """extract is one ok fetch span with its URL; the content returned is what the store holds."""
    primp.routes[PATH] = (200, PAGE, "text/plain")
    out = ddgs.DDGS().extract(URL)
    assert out == {"url": URL, "content": PAGE}
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "ddgs.extract"
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_FETCH
    assert attrs[names.URL_FULL] == URL
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_SIZE] == len(PAGE)
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE


def test_extract_bytes_format(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """fmt="content" returns bytes: stored decoded, the caller still gets the bytes."""
    primp.routes[PATH] = (200, PAGE, "text/plain")
    assert ddgs.DDGS().extract(url=URL, fmt="content")["content"] == PAGE.encode()
    attrs = one_tool_span(cap)
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE


def test_extract_empty_page(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer) -> None:
    """A 200 with next to no text is an empty read."""
    primp.routes[PATH] = (200, " ", "text/plain")
    ddgs.DDGS().extract(URL)
    assert status_of(cap) == names.STATUS_EMPTY


@pytest.mark.parametrize(("status", "expected"), [(429, names.STATUS_RATE_LIMITED), (404, names.STATUS_ERROR)])
def test_extract_http_failures(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer,
                               status: int, expected: str) -> None:
    """DDGSException("... HTTP 429") is rate_limited through the probe; a 404 is an error; re-raised unchanged."""
    primp.routes[PATH] = (status, "nope", "text/plain")
    with pytest.raises(DDGSException, match=f"HTTP {status}"):
        ddgs.DDGS().extract(URL)
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == expected
    assert attrs[names.RESULT_SIZE] == 0


def test_extract_connection_failure(instrumented: CiteTraceInstrumentor, cap: Captured,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that is gone: ddgs wraps the connection error in DDGSException, an error span."""
    gone = LocalServer()
    gone.close()
    monkeypatch.setattr(ddgs.http_client, "primp", FakePrimp(gone))
    with pytest.raises(DDGSException):
        ddgs.DDGS().extract(URL)
    assert status_of(cap) == names.STATUS_ERROR


def test_uninstrument_restores(cap: Captured, primp: LocalServer) -> None:
    """After uninstrument extract is the original and makes no span."""
    assert_restores([(ddgs_mod.DDGS, "extract")])
    primp.routes[PATH] = (200, PAGE, "text/plain")
    ddgs.DDGS().extract(URL)
    assert cap.tool_spans() == []
