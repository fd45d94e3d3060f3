"""Non-text content a fetch returned: an image, audio, video, a font, an archive, an office file, or any bytes
with NULs. There is no text to store, so the read is ``empty`` with ``citetrace.content.unreadable=binary`` and
the stored document is empty with the content's type. Before, the bytes were decoded as Windows-1252 and stored
as an ``ok`` page of garbage that eval searched for the claim's words.

PDFs are not here: they have a text layer (``capture._pdf``), read first. Text served with a generic or wrong
type (a README as ``application/octet-stream``, SVG, JSON) is text: for a generic type only the bytes decide.
"""

from __future__ import annotations

from typing import Any

from citetrace.capture import _pdf

__all__ = ["binary_of"]

_BINARY_PREFIXES = ("image/", "audio/", "video/", "font/", "application/vnd.openxmlformats-officedocument.",
                    "application/vnd.oasis.opendocument.", "application/vnd.ms-")
_BINARY_TYPES = frozenset({
    "application/zip", "application/gzip", "application/x-gzip", "application/x-tar", "application/x-bzip2",
    "application/x-7z-compressed", "application/x-rar-compressed", "application/vnd.rar", "application/x-xz",
    "application/zstd", "application/wasm", "application/msword", "application/java-archive",
    "application/x-shockwave-flash", "application/x-msdownload", "application/vnd.android.package-archive",
})
_TEXT_IMAGES = frozenset({"image/svg+xml"})
"""Types under a binary prefix that are text (SVG is XML)."""
_SNIFF = 1024
"""How far into the content a NUL is looked for (text has none; images, archives and executables do early)."""
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")
"""UTF-16 text has NULs in every other byte: its BOM says it is text."""


def _binary_type(content_type: str | None) -> bool:
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if not mime or mime in _TEXT_IMAGES:
        return False
    return mime in _BINARY_TYPES or mime.startswith(_BINARY_PREFIXES)


def _binary_bytes(body: bytes) -> bool:
    head = body[:_SNIFF]
    return b"\x00" in head and not head.startswith(_WIDE_BOMS)


def binary_of(result: Any, text: str | None, body: tuple[bytes, str | None] | None = None) -> str | None:
    """The content type ("" when unknown) of non-text content a fetch returned; None when it returned text.

    ``body`` is (bytes, Content-Type) when the tool's spec knows what the result was read from
    (``ToolSpec.result_body``), else the result's own bytes are looked at (``bytes``, a loaded
    ``requests``/``httpx`` response); ``text`` is what the text readers made of it: a string with a NUL in its
    first KB was decoded from binary bytes (``response.text`` of an image)."""
    found = body if body is not None or result.__class__ is str else _pdf.body_of(result)
    if found is not None:
        data, ctype = found
        if _binary_type(ctype) or _binary_bytes(data):
            return (ctype or "").split(";", 1)[0].strip()
        return None
    if text is not None and text.find("\x00", 0, _SNIFF) >= 0 and not text.startswith("\ufeff"):
        return ""  # one search of the first KB, no copy: every fetch of text passes here
    return None
