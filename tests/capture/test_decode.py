"""Bytes a fetch returned become the stored text in the page's own encoding: the BOM, the declared charset
(``Content-Type``), the page's ``<meta charset>`` / XML declaration, else UTF-8, else Windows-1252. Before,
bytes were UTF-8 with bad bytes replaced, so a Latin-1 page's "Café" was stored as "Caf\\ufffd" and a claim
quoting it could never meet its page; the HTTP layer read only the ``Content-Type`` charset."""

from __future__ import annotations

from typing import Iterator

import pytest
import requests

from citetrace import research_run, traced_tool
from citetrace.capture._extract import decode_bytes
from citetrace.store import MemoryStore
from citetrace.testing import capture_spans

from instrumentation._net import LocalServer

FRENCH = "Les installations solaires françaises ont augmenté de 12 % en 2024, à Café Naïve. " * 4
META = f"<html><head><meta charset='iso-8859-1'></head><body><p>{FRENCH}</p></body></html>"
HTTP_EQUIV = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
              f"</head><body><p>{FRENCH} “quoted”</p></body></html>")
BARE = f"<p>{FRENCH}</p>"


@pytest.mark.parametrize(("body", "content_type", "text"), [
    (META.encode("latin-1"), None, META),
    (HTTP_EQUIV.encode("cp1252"), None, HTTP_EQUIV),
    (BARE.encode("cp1252"), None, BARE),  # no declaration, not UTF-8: Windows-1252, as browsers read it
    (BARE.encode("utf-8"), None, BARE),
    (b"\xef\xbb\xbf" + BARE.encode("utf-8"), None, BARE),  # the BOM is not text
    (BARE.encode("latin-1"), "text/html; charset=ISO-8859-1", BARE),
    (META.replace("iso-8859-1", "utf-8").encode("utf-8"), "text/html; charset=utf-8", META.replace("iso-8859-1", "utf-8")),
    (BARE.encode("utf-8"), "text/html; charset=no-such-codec", BARE),
    ("<meta charset='no-such-codec'>é".encode("utf-8"), None, "<meta charset='no-such-codec'>é"),
])
def test_decode_bytes(body: bytes, content_type: str | None, text: str) -> None:
    """The one decoder of capture and the HTTP layer, over each way a page says (or does not say) its encoding."""
    assert decode_bytes(body, content_type) == text


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """A Latin-1 page that says so only in its ``<meta>``."""
    with LocalServer() as srv:
        srv.routes["/fr"] = (200, META.encode("latin-1"), "text/html")
        yield srv


@traced_tool(kind="fetch")
def read_bytes(url: str) -> bytes:
    """A fetch returning the body's bytes (``response.content``)."""
    response = requests.get(url, timeout=5)
    response.raise_for_status()
    return response.content


def test_a_latin1_page_returned_as_bytes_is_stored_as_its_text(server: LocalServer) -> None:
    """Stored in the run store as the page's text, so "Café" is findable by eval."""
    store = MemoryStore()
    with capture_spans(store=store):
        with research_run(question="q") as run:
            read_bytes(f"{server.base}/fr")
    doc = store.get(run.id, f"{server.base}/fr")
    assert doc is not None and "Café Naïve" in doc.text and "\ufffd" not in doc.text
