"""PDF bytes a fetch returned: their text layer, or nothing, never the raw bytes as text.

A fetch tool that returns ``response.content`` for a PDF (or a response whose ``Content-Type`` is
``application/pdf``) used to be stored as the bytes decoded as Windows-1252: megabytes of ``%PDF-1.7 ... endobj``
that read as an ``ok`` page, which eval then searched for the claim's words. Now the text layer is extracted
with pypdf (the ``[pdf]`` extra) and stored with content type ``application/pdf``. When there is nothing to
extract (no pypdf, a scanned PDF without a text layer, a damaged or encrypted file, or a PDF that was already
decoded to a string and cannot be recovered) the page's text is empty, so the read is ``empty``, and
``citetrace.content.unreadable`` on the span says why (``names.UNREADABLE_REASONS``). A missing pypdf is also
counted once per occurrence in ``citetrace_capture_errors_total`` and logged once, naming the extra.

Extraction runs inside the agent's tool call, so it is bounded: at most ``MAX_PAGES`` pages are read (the
rest are counted on the span in ``citetrace.content.pages_skipped``), and the last few results are cached by
the bytes object, because one fetch's body is looked at by the text reader and by the status reader.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from typing import Any

from citetrace import _extras, _telemetry, names

__all__ = ["MAX_PAGES", "PDF_MIME", "PdfRead", "body_of", "is_pdf", "pdf_of", "read_pdf"]

PDF_MIME = "application/pdf"
MAX_PAGES = 200
"""Pages of one PDF whose text is extracted (pypdf reads a text page in milliseconds; a 2,000-page scan
must not stall the agent's call)."""
_MAGIC = b"%PDF-"
_HEADER_WINDOW = 1024
"""How far into a result a PDF header is looked for (after leading whitespace, as readers accept)."""


@dataclass(frozen=True)
class PdfRead:
    """What a PDF held: its text (empty when unreadable), why it is unreadable, and pages left unread."""

    text: str
    unreadable: str | None = None
    pages_skipped: int = 0


def _mime(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_pdf(body: bytes, content_type: str | None = None) -> bool:
    """The bytes are a PDF: they start with the ``%PDF-`` header, or a ``Content-Type`` says so (a text that
    mentions "%PDF-" is text)."""
    return body[:_HEADER_WINDOW].lstrip().startswith(_MAGIC) or _mime(content_type) == PDF_MIME


_cache: list[tuple[bytes, PdfRead]] = []
_CACHE_SIZE = 4


def read_pdf(body: bytes) -> PdfRead:
    """The text layer of a PDF (pages joined by blank lines), never an exception."""
    for seen, read in _cache:
        if seen is body:
            return read
    read = _extract(body)
    _cache.append((body, read))
    del _cache[:-_CACHE_SIZE]
    return read


def _extract(body: bytes) -> PdfRead:
    if not _extras.installed("pypdf"):
        _telemetry.count_error("pdf_extract", message="PDF text needs the [pdf] extra (pypdf not installed): "
                                                      "pip install 'citetrace[pdf]'; the read is stored empty")
        return PdfRead("", names.PDF_NO_EXTRACTOR)
    import pypdf

    quiet = logging.getLogger("pypdf")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # a damaged file is a status on the span, not warnings in the host's log
    try:
        reader = pypdf.PdfReader(io.BytesIO(body))
        if reader.is_encrypted and not reader.decrypt(""):
            return PdfRead("", names.PDF_DAMAGED)
        pages = reader.pages
        total = len(pages)
        parts = [(pages[k].extract_text() or "").strip() for k in range(min(total, MAX_PAGES))]
    except Exception:  # noqa: BLE001 - pypdf raises many kinds on broken files; the host's call is unharmed
        return PdfRead("", names.PDF_DAMAGED)
    finally:
        quiet.setLevel(level)
    text = "\n\n".join(p for p in parts if p)
    skipped = max(0, total - MAX_PAGES)
    return PdfRead(text, None if text else names.PDF_NO_TEXT, skipped)


def body_of(result: Any) -> tuple[bytes, str | None] | None:
    """The raw bytes a fetch result holds, with its Content-Type: bytes, or a loaded requests/httpx response."""
    if isinstance(result, (bytes, bytearray, memoryview)):
        return bytes(result) if not isinstance(result, bytes) else result, None
    if hasattr(result, "status_code") and hasattr(result, "headers"):
        content = getattr(result, "_content", None)
        if isinstance(content, bytes):
            try:
                ctype = result.headers.get("content-type")
            except Exception:  # noqa: BLE001
                ctype = None
            return content, ctype if isinstance(ctype, str) else None
    return None


def pdf_of(result: Any, text: str | None, body: tuple[bytes, str | None] | None = None) -> PdfRead | None:
    """The PDF a fetch returned, read; None when it returned no PDF.

    ``body`` is (bytes, Content-Type) when the tool's spec knows what the result was read from
    (``ToolSpec.result_body``); otherwise the result's own bytes are looked for (``bytes``, a loaded
    ``requests``/``httpx`` response). ``text`` is what the text readers made of the result: a string starting
    with ``%PDF-`` is a PDF someone already decoded (``response.text``); it is read back when it was decoded
    byte for byte (Latin-1), else it is unreadable, and in both cases its characters are not stored as a page.
    """
    found = body if body is not None else body_of(result)
    if found is not None and is_pdf(*found):
        return read_pdf(found[0])
    if text is not None and text[:_HEADER_WINDOW].lstrip().startswith("%PDF-"):
        try:
            return read_pdf(text.encode("latin-1"))
        except UnicodeEncodeError:  # decoded with replacement characters: the binary streams are gone
            return PdfRead("", names.PDF_DAMAGED)
    return None
