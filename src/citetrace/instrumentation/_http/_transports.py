"""What each HTTP client's send method was asked, and what its response said.

Four clients, one shape: ``Sent`` (method, URL, body, streamed) is read from the wrapped call's arguments,
``Reply`` (status, body bytes, text) from its response. ``requests`` and ``httpx`` have read the body by the
time ``send`` returns. ``aiohttp`` (``ClientSession._request``, the one method every ``get``/``post``/
``request`` ends in, as ddtrace and Sentry wrap it) and ``urllib`` (``OpenerDirector.open``, which
``urlopen`` and every ``build_opener`` opener call) hand back an unread stream, so for a *recognised*
request only, ``buffer_*`` reads it (as ``requests`` would) and gives the response a body that reads the same
bytes again: the caller's ``.json()``/``.read()``/``.content`` see exactly what the server sent.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Mapping, Sequence
from urllib.parse import urlencode

from citetrace.capture._internal import decode_bytes, http_status_of

__all__ = ["BODY_CAP", "Reply", "Sent", "aiohttp_sent", "buffer_aiohttp", "buffer_urllib", "decode", "httpx_sent",
           "reply_of", "requests_sent", "urllib_sent"]

BODY_CAP = 8 * 1024 * 1024
"""A declared body larger than this is not read (the span says ok with no count, never a false empty)."""


@dataclass(frozen=True)
class Sent:
    """What a request said."""

    method: str
    url: str
    body: bytes | str | Mapping[str, Any] | None
    streamed: bool = False


class Reply:
    """What a response said: its status and, when read, its body; the decoded text only when asked for
    (a search reads JSON from the bytes, only a fetch needs the text)."""

    __slots__ = ("status", "body", "_response", "_text", "_decoded")

    def __init__(self, status: int | None, body: bytes | None, response: Any = None) -> None:
        self.status = status
        self.body = body
        self._response = response
        self._text: str | None = None
        self._decoded = False

    @property
    def content_type(self) -> str | None:
        """The response's ``Content-Type`` header (every client's headers answer ``get``)."""
        return _content_type(self._response)

    @property
    def text(self) -> str | None:
        """The body as text (the client's own decoding for requests and httpx); None when not read."""
        if not self._decoded:
            self._decoded = True
            if self.body is not None:
                response = self._response
                loaded = hasattr(response, "status_code") and getattr(response, "encoding", None)
                self._text = _text(response, self.body) if loaded else decode(self.body, _content_type(response))
        return self._text


def requests_sent(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Sent | None:
    """``Session.send(request, **kwargs)``."""
    request = args[0] if args else kwargs.get("request")
    if request is None:
        return None
    return Sent(str(request.method or ""), str(request.url or ""), request.body, bool(kwargs.get("stream")))


def httpx_sent(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Sent | None:
    """``Client.send(request, *, stream=False, ...)``."""
    request = args[0] if args else kwargs.get("request")
    if request is None:
        return None
    try:
        body = request.content
    except Exception:  # noqa: BLE001 - a streaming request body: not read here
        body = None
    return Sent(str(request.method), str(request.url), body, bool(kwargs.get("stream")))


def aiohttp_sent(session: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Sent | None:
    """``ClientSession._request(method, str_or_url, *, params, data, json, ...)``."""
    if len(args) < 2:
        return None
    method, url = str(args[0]), args[1]
    build = getattr(session, "_build_url", None)  # a session base_url and a relative path
    full = str(build(url)) if callable(build) else str(url)
    params = kwargs.get("params")
    if params:
        query = params if isinstance(params, str) else urlencode(params, doseq=True)
        full += ("&" if "?" in full else "?") + query
    body = kwargs.get("json")
    if body is None:
        data = kwargs.get("data")
        body = data if isinstance(data, (bytes, str, Mapping)) else None
    return Sent(method, full, body)


def urllib_sent(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Sent | None:
    """``OpenerDirector.open(fullurl, data=None, timeout=...)``: a URL string or a ``Request``."""
    target: Any = args[0] if args else kwargs.get("fullurl")
    data = args[1] if len(args) > 1 else kwargs.get("data")
    if isinstance(target, str):
        return Sent("POST" if data is not None else "GET", target, data if isinstance(data, (bytes, str)) else None)
    full_url = getattr(target, "full_url", None)
    if not isinstance(full_url, str):
        return None
    body = data if data is not None else getattr(target, "data", None)
    method = target.get_method() if data is None else "POST"
    return Sent(str(method), full_url, body if isinstance(body, (bytes, str)) else None)


def decode(body: bytes, content_type: str | None) -> str:
    """The body as text, decoded as capture decodes a fetch's bytes (``decode_bytes``: BOM, declared charset,
    the page's ``<meta charset>``, UTF-8, Windows-1252; never an exception)."""
    return decode_bytes(body, content_type)


def reply_of(response: Any, streamed: bool, buffered: bytes | None = None) -> Reply:
    """A response of any of the four clients (``buffered``: the body ``buffer_*`` read)."""
    status = http_status_of(response)
    if status is None:
        getcode = getattr(response, "getcode", None)
        status = getcode() if callable(getcode) else None
    body: bytes | None = buffered
    if body is None and not streamed and hasattr(response, "status_code"):  # requests, httpx: already read
        try:
            content = response.content
            body = content if isinstance(content, bytes) else None
        except Exception:  # noqa: BLE001 - httpx's ResponseNotRead on a stream
            body = None
    return Reply(status if isinstance(status, int) else None, body, response)


def _text(response: Any, body: bytes) -> str:
    try:
        text = response.text
        return text if isinstance(text, str) else decode(body, _content_type(response))
    except Exception:  # noqa: BLE001
        return decode(body, _content_type(response))


def _content_type(response: Any) -> str | None:
    headers = getattr(response, "headers", None)
    try:
        value = headers.get("content-type") if headers is not None else None
    except Exception:  # noqa: BLE001
        return None
    return value if isinstance(value, str) else None


def _too_large(length: Any) -> bool:
    return isinstance(length, int) and length > BODY_CAP


async def buffer_aiohttp(response: Any) -> bytes | None:
    """Read an ``aiohttp.ClientResponse`` body (cached by aiohttp for the caller's ``read``/``json``/``text``)
    and give it a ``content`` stream holding the same bytes. None when not read (an error status, too large)."""
    status = getattr(response, "status", None)
    if not isinstance(status, int) or status >= 400 or _too_large(getattr(response, "content_length", None)):
        return None
    body = await response.read()
    try:
        response.content = _replay_stream(body)
    except Exception:  # noqa: BLE001 - read()/json()/text() still answer from aiohttp's own cache
        pass
    return body if isinstance(body, bytes) and len(body) <= BODY_CAP else None


class _Idle:
    """The protocol of a stream fed up front: there is no connection to pause or resume."""

    connected = True
    _reading_paused = False

    def pause_reading(self) -> None:
        """Nothing to pause."""

    def resume_reading(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to resume."""


def _replay_stream(body: bytes) -> Any:
    import asyncio

    from aiohttp import StreamReader

    stream = StreamReader(_Idle(), max(len(body), 2**16), loop=asyncio.get_running_loop())  # type: ignore[arg-type]
    if body:
        stream.feed_data(body)
    stream.feed_eof()
    return stream


def buffer_urllib(response: Any) -> bytes | None:
    """Read an ``http.client.HTTPResponse`` body and put the same bytes back behind its ``read``/
    ``readline``/iteration. None when not read (not an HTTPResponse, an error status, too large)."""
    import http.client

    status = getattr(response, "status", None)
    if not isinstance(response, http.client.HTTPResponse) or not isinstance(status, int) or status >= 400:
        return None  # a custom handler's response object: its body is left to the caller, unread
    if response.fp is None:
        return None
    if _too_large(getattr(response, "length", None)) or getattr(response, "_method", "GET") == "HEAD":
        return None
    body = response.read()
    response.fp = io.BufferedReader(io.BytesIO(body))  # type: ignore[arg-type]
    response.length = len(body)
    response.chunked = False
    response.will_close = True
    return body if isinstance(body, bytes) and len(body) <= BODY_CAP else None

