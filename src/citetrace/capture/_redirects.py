"""Redirects: the page a fetch really read when the server sent it elsewhere (``/old -301-> /new``).

A fetch span's ``url.full`` is the URL the tool was asked for; the text it got belongs to the final URL,
which is the one a report cites. Capture counts that final URL as read too (its text stored under it, and it
named in ``citetrace.pages_returned``, which the summary and the Go connector count as fetched). Two sources
say where a request ended:

- the result itself, when the tool returns the response object: requests, httpx and aiohttp keep the hops in
  ``.history`` (the first hop's URL is the origin) and the final URL in ``.url``;
- for a tool that returns only the text (trafilatura's ``fetch_url``, a library's ``response.text``) or a
  response that keeps no hops (urllib's), the HTTP probes of the zero-code instrumentation record each redirect
  they see during the call (origin: the URL the client was asked for; final: the response's) and
  register a source here, as they do for the status (``_status``). Capture itself imports no instrumentation.

Only a redirect whose origin is the call's own URL counts: a tool that fetched a page, then a redirected image
or a login hop of another URL, does not make that other URL read.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from citetrace._urls import url_key

__all__ = ["RedirectSource", "close_scope", "open_scope", "redirect_of", "redirect_target", "set_redirect_source"]

RedirectSource = Callable[[], Sequence[tuple[str, str]]]
"""() -> the (origin, final URL) redirects seen during the tool call running in this context."""
_source: list[RedirectSource] = []


_scope: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []


def set_redirect_source(source: RedirectSource | None,
                        scope: tuple[Callable[[], Any], Callable[[Any], None]] | None = None) -> None:
    """Install (or with None remove) the one redirect source, and the (open, close) of the probes' scope that
    ``@traced_tool`` fetches open around their call (the zero-code rows open their own)."""
    _source[:] = [source] if source is not None else []
    _scope[:] = [scope] if source is not None and scope is not None else []


def open_scope() -> Any:
    """Open the probes' scope for a ``@traced_tool`` fetch, so a tool returning only ``response.text`` still
    shows where its request ended; None without probes (no auto-instrumentation) or inside an open scope."""
    if not _scope:
        return None
    try:
        return _scope[0][0]()
    except Exception:  # noqa: BLE001 - never cost the call
        return None


def close_scope(opened: Any) -> None:
    """Close what ``open_scope`` opened (None: nothing)."""
    if opened is not None and _scope:
        try:
            _scope[0][1](opened)
        except Exception:  # noqa: BLE001
            pass


def _url_text(value: Any) -> str | None:
    """A URL as text: a str, or an httpx ``URL`` / yarl ``URL`` (both print as the URL)."""
    if isinstance(value, str):
        return value or None
    if value is None or isinstance(value, (bytes, int, float, bool)):
        return None
    text = str(value)
    return text if text.startswith(("http://", "https://")) else None


def redirect_of(response: Any, requested: str | None = None) -> tuple[str, str] | None:
    """(origin, final URL) of a response that was redirected; None otherwise. ``.history`` (requests, httpx,
    aiohttp) gives the origin; for an object with a ``.url`` and no ``.history`` (urllib's, urllib3's,
    trafilatura's response, read by the probes) the caller says what was ``requested``.
    Never raises: any surprise is "no redirect"."""
    if response is None or isinstance(response, (str, bytes, dict, list, tuple)):
        return None
    try:
        final = _url_text(getattr(response, "url", None))
        if final is None:
            return None
        history = getattr(response, "history", None)
        if isinstance(history, (list, tuple)):
            if not history:
                return None
            origin = _url_text(getattr(history[0], "url", None))
        else:  # urllib's, urllib3's, trafilatura's responses: no hops kept, only the final URL
            origin = requested
        if origin is None or url_key(origin) == url_key(final):
            return None
        return origin, final
    except Exception:  # noqa: BLE001 - reading a response-like object must never cost the span
        return None


def redirect_target(result: Any, requested: str) -> str | None:
    """The final URL ``requested`` was redirected to during this call: from the result, else from the probes'
    source. None when it was not redirected (or nothing says so)."""
    # the result's own hops only: a response without them may be a proxy's (a reader rule's ``url.full`` is the
    # page, the request went to the reader), so its ``.url`` alone says nothing about a redirect
    pair = redirect_of(result)
    pairs: Sequence[tuple[str, str]] = (pair,) if pair is not None else ()
    if not pairs and _source:
        try:
            pairs = _source[0]()
        except Exception:  # noqa: BLE001 - a broken source must not cost the span
            return None
    if not pairs:
        return None
    key = url_key(requested)
    for origin, final in pairs:
        if url_key(origin) == key and url_key(final) != key:
            return final
    return None
