"""A fetch that returns a PDF stores the PDF's text layer with content type application/pdf, never the raw
bytes decoded as text (outside check hout: a PDF was an ``ok`` read whose stored text was ``%PDF-1.4 ...``).
A PDF with nothing to extract (no text layer, damaged, pypdf missing) is an ``empty`` read with
``citetrace.content.unreadable`` saying why. Real PDFs (tests/_pdfbytes.py), real pypdf, real requests
against a local HTTP server."""

from __future__ import annotations

import sys
from typing import Any, Iterator

import pytest
import requests

from _pdfbytes import make_pdf
from citetrace import _telemetry, names, research_run, traced_tool
from citetrace.capture import _pdf
from citetrace.capture._extract import decode_bytes
from citetrace.store import MemoryStore
from citetrace.testing import Captured, capture_spans

from instrumentation._net import LocalServer

WIND = ("Offshore wind capacity reached 4.2 GW in 2024.\nThe ministry published the figures on Tuesday.\n"
        "Three new farms in the North Sea were connected to the grid in the autumn.\n"
        "Auctions for another 6 GW are planned for the spring of 2025.")
REPORT = make_pdf([WIND, "Onshore capacity stayed at 11 GW."])
SCAN = make_pdf([None, None])


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        srv.routes["/report.pdf"] = (200, REPORT, "application/pdf")
        srv.routes["/scan.pdf"] = (200, SCAN, "application/pdf")
        srv.routes["/download"] = (200, REPORT, "application/octet-stream")  # only the bytes say PDF
        yield srv


@pytest.fixture
def cap() -> Iterator[Captured]:
    with capture_spans(store=MemoryStore()) as captured:
        yield captured


@traced_tool(kind="fetch")
def fetch_bytes(url: str) -> bytes:
    """``response.content``."""
    return requests.get(url, timeout=5).content


@traced_tool(kind="fetch")
def fetch_response(url: str) -> requests.Response:
    """The response object itself."""
    return requests.get(url, timeout=5)


@traced_tool(kind="fetch")
def fetch_text(url: str) -> str:
    """``response.text``: requests decodes the PDF's bytes with a guessed charset."""
    return requests.get(url, timeout=5).text


def _read(cap: Captured, tool: Any, url: str) -> tuple[dict[str, Any], Any]:
    with research_run(question="q") as run:
        tool(url)
    (span,) = cap.tool_spans()
    doc = cap.store.get(run.id, url)
    assert doc is not None
    return dict(span.attributes or {}), doc


@pytest.mark.parametrize("tool", [fetch_bytes, fetch_response])
@pytest.mark.parametrize("path", ["/report.pdf", "/download"])
def test_a_pdf_is_stored_as_its_text(cap: Captured, server: LocalServer, tool: Any, path: str) -> None:
    """The text layer of both pages, content type application/pdf, an ok read of that many characters."""
    span, doc = _read(cap, tool, server.base + path)
    assert doc.text == WIND + "\n\nOnshore capacity stayed at 11 GW."
    assert doc.content_type == "application/pdf" and doc.status == "ok"
    assert span[names.TOOL_STATUS] == "ok" and span[names.RESULT_SIZE] == len(doc.text)
    assert names.CONTENT_UNREADABLE not in span


def test_a_pdf_already_decoded_by_the_client_stores_no_garbage(cap: Captured, server: LocalServer) -> None:
    """``response.text`` of a PDF: its bytes are read back when the decoding kept them, else the read is empty
    and unreadable; never the decoded bytes."""
    span, doc = _read(cap, fetch_text, server.base + "/report.pdf")
    assert "%PDF" not in doc.text and "endobj" not in doc.text and doc.content_type == "application/pdf"
    if doc.text:
        assert doc.text.startswith(WIND) and span[names.TOOL_STATUS] == "ok"
    else:
        assert (span[names.TOOL_STATUS], span[names.CONTENT_UNREADABLE]) == ("empty", names.PDF_DAMAGED)


def test_a_latin1_decoded_pdf_is_read_back() -> None:
    """A PDF someone decoded byte for byte (Latin-1) is still the PDF."""
    read = _pdf.pdf_of(REPORT.decode("latin-1"), REPORT.decode("latin-1"))
    assert read is not None and read.text.startswith(WIND)


@pytest.mark.parametrize(("body", "reason"), [
    (SCAN, names.PDF_NO_TEXT),
    (REPORT[: len(REPORT) // 3], names.PDF_DAMAGED),
    (b"%PDF-1.7\n" + b"\x00\xff" * 200, names.PDF_DAMAGED),
])
def test_a_pdf_with_nothing_to_extract_is_an_empty_read(cap: Captured, body: bytes, reason: str) -> None:
    """No text layer, a truncated or garbage file: stored empty (with its content type), status empty, why."""

    @traced_tool(kind="fetch")
    def fetch(url: str) -> bytes:
        return body

    span, doc = _read(cap, fetch, "https://example.org/x.pdf")
    assert (doc.text, doc.status, doc.content_type) == ("", "empty", "application/pdf")
    assert (span[names.TOOL_STATUS], span[names.CONTENT_UNREADABLE]) == ("empty", reason)


def test_without_pypdf_the_read_is_empty_and_counted(cap: Captured, monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """pypdf not installed: the read is empty, the span says so, the capture error is counted and the log
    line names the extra to install."""
    monkeypatch.setitem(sys.modules, "pypdf", None)  # an import of pypdf fails, as when it is not installed
    monkeypatch.setattr(_pdf, "_cache", [])
    before = _telemetry.current().hooks.error_counts().get("pdf_extract", 0)

    @traced_tool(kind="fetch")
    def fetch(url: str) -> bytes:
        return make_pdf(["A fresh page that no one has read."])

    with caplog.at_level("WARNING", logger="citetrace"):
        span, doc = _read(cap, fetch, "https://example.org/y.pdf")
    assert (doc.text, span[names.TOOL_STATUS], span[names.CONTENT_UNREADABLE]) == (
        "", "empty", names.PDF_NO_EXTRACTOR)
    assert _telemetry.current().hooks.error_counts()["pdf_extract"] == before + 1
    if before == 0:  # logged once per process
        assert "pip install 'citetrace[pdf]'" in caplog.text


def test_pages_past_the_bound_are_counted(cap: Captured, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only MAX_PAGES pages are extracted; the rest are counted on the span."""
    monkeypatch.setattr(_pdf, "MAX_PAGES", 2)
    body = make_pdf(["Page one.", "Page two.", "Page three.", "Page four."])

    @traced_tool(kind="fetch")
    def fetch(url: str) -> bytes:
        return body

    span, doc = _read(cap, fetch, "https://example.org/long.pdf")
    assert doc.text == "Page one.\n\nPage two." and span[names.CONTENT_PAGES_SKIPPED] == 2


def test_decode_bytes_reads_a_pdf_and_leaves_text_alone() -> None:
    """The one decoder (also used by the HTTP layer and the ddgs/STORM rows) gives a PDF's text layer."""
    assert decode_bytes(REPORT).startswith(WIND)
    assert decode_bytes(REPORT, "application/pdf; qs=0.9").startswith(WIND)
    assert decode_bytes(b"Plain text mentioning %PDF- later on.") == "Plain text mentioning %PDF- later on."
