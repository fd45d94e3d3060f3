"""A fetch that returns non-text content (an image, an archive, an office file, any bytes with NULs) is an
``empty`` read with ``citetrace.content.unreadable=binary`` and nothing stored as its text, never the bytes
decoded as Windows-1252 (they were an ``ok`` read of garbage, which eval then searched for the claim). Text
served with a generic or wrong type (a README as application/octet-stream, SVG, JSON) is still text. Real
requests against a local HTTP server; real PNG, gzip and zip bytes made by the standard library."""

from __future__ import annotations

import gzip
import io
import struct
import zipfile
import zlib
from typing import Any, Callable, Iterator

import pytest
import requests

from citetrace import names, research_run, traced_tool
from citetrace.testing import capture_spans

from instrumentation._net import LocalServer


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x80\x40\x20" * 16 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("report.txt", "Solar capacity grew 24 percent. " * 40)
    return out.getvalue()


TEXT = "Solar capacity grew 24 percent in 2024, the agency said. " * 8
BINARY: dict[str, tuple[bytes, str]] = {
    "png": (_png(), "image/png"),
    "zip": (_zip(), "application/zip"),
    "gzip as octet-stream": (gzip.compress(TEXT.encode()), "application/octet-stream"),
    "docx type": (_zip(), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    "png with no type": (_png(), "application/octet-stream"),
}
TEXTUAL: dict[str, tuple[bytes, str]] = {
    "readme as octet-stream": (TEXT.encode(), "application/octet-stream"),
    "svg": (("<svg xmlns='http://www.w3.org/2000/svg'><title>" + TEXT + "</title></svg>").encode(), "image/svg+xml"),
    "json": (('{"content": "' + TEXT + '"}').encode(), "application/json"),
    "utf-16 text": (b"\xff\xfe" + TEXT.encode("utf-16-le"), "text/plain; charset=utf-16"),
}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    srv = LocalServer()
    for name, (body, ctype) in {**BINARY, **TEXTUAL}.items():
        srv.routes["/" + name.replace(" ", "-")] = (200, body, ctype)
    try:
        yield srv
    finally:
        srv.close()


RETURNS: dict[str, Callable[[requests.Response], Any]] = {
    "content": lambda r: r.content, "response": lambda r: r, "text": lambda r: r.text,
}


@pytest.mark.parametrize("returns", sorted(RETURNS))
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_content_is_an_unreadable_read(server: LocalServer, name: str, returns: str) -> None:
    """Bytes, the response, or ``response.text`` of non-text content: empty, unreadable=binary, stored empty
    with the response's content type when known; the caller gets exactly what the tool returned."""
    got: list[Any] = []

    @traced_tool(kind="fetch")
    def fetch(url: str) -> Any:
        """The download as the tool returns it."""
        got.append(RETURNS[returns](requests.get(url, timeout=5)))
        return got[-1]

    with capture_spans() as cap, research_run("q") as run:
        result = fetch(f"{server.base}/{name.replace(' ', '-')}")
    assert result is got[0]
    (span,) = cap.tool_spans()
    attrs = dict(span.attributes or {})
    assert (attrs[names.TOOL_STATUS], attrs.get(names.CONTENT_UNREADABLE)) == ("empty", names.BINARY_CONTENT)
    (doc,) = cap.store.documents(run.id)
    assert doc.text == "" and doc.status == "empty"
    if returns == "response":
        assert doc.content_type == BINARY[name][1]


@pytest.mark.parametrize("name", sorted(TEXTUAL))
def test_text_with_a_generic_type_is_still_text(server: LocalServer, name: str) -> None:
    """A README served as octet-stream, SVG, JSON, UTF-16 text: ok reads of their text."""

    @traced_tool(kind="fetch")
    def fetch(url: str) -> requests.Response:
        """The response."""
        return requests.get(url, timeout=5)

    with capture_spans() as cap:
        fetch(f"{server.base}/{name.replace(' ', '-')}")
    attrs = dict(cap.tool_spans()[0].attributes or {})
    assert attrs[names.TOOL_STATUS] == "ok" and names.CONTENT_UNREADABLE not in attrs
