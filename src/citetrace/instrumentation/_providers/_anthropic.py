"""Anthropic Messages: the server tools ``web_search`` and ``web_fetch``, and the text blocks' citations.

Each ``web_search_tool_result`` block is one search: its query comes from the ``server_tool_use`` block it
answers, its result URLs from the ``web_search_result`` entries. Their page content is encrypted (there is
no text to store) but was given to the model, so citing one of them counts as read. A
``web_search_tool_result_error`` is a failed search: ``too_many_requests`` is rate_limited, every other code
an error, with the code in ``citetrace.tool.error_code``. Each ``web_fetch_tool_result`` is one fetch whose
text document goes into the run store like any fetch (a PDF's base64 data is not text: nothing is stored).
``citations`` on text blocks with a URL are the model's citations. A ``server_tool_use`` still waiting for
its result (``stop_reason: pause_turn``) is recorded when the continued turn returns it, with the query
(or URL) of the paused turn's use, which the continued request sends back.

Covered: ``messages.create`` (plain, ``stream=True`` folded with the SDK's own ``accumulate_event``,
``with_raw_response``), ``messages.parse``, ``messages.stream()`` (read from the SDK's message snapshot when
the stream ends), each in the regular and the beta classes, sync and async.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Callable

from citetrace import names
from citetrace import _telemetry
from citetrace.instrumentation._providers._record import (
    FETCH, SEARCH, CitedSpan, Folder, Reading, ServerCall, cited_span, read_safely, field, response_wrapper,
)
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["ROWS", "read_message"]

DIST = "anthropic"
PROVIDER = "anthropic"
_RATE_LIMITED = frozenset({"too_many_requests"})


def _failed(content: Any) -> tuple[str, str] | None:
    """(status, error code) when a tool result's content is an error object."""
    if isinstance(content, list) or content is None:
        return None
    code = field(content, "error_code")
    if code is None:
        return None
    return (names.STATUS_RATE_LIMITED if code in _RATE_LIMITED else names.STATUS_ERROR), str(code)


def _document_text(doc: Any) -> str | None:
    source = field(doc, "source")
    if field(source, "type") == "text" and isinstance(field(source, "data"), str):
        return str(field(source, "data"))
    if field(source, "type") == "base64" and str(field(source, "media_type", "")).startswith("text/"):
        try:
            return base64.b64decode(str(field(source, "data"))).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    return None


def _search(block: Any, use: Any) -> ServerCall:
    content = field(block, "content")
    query = field(field(use, "input"), "query")
    failure = _failed(content)
    if failure is not None:
        return ServerCall(PROVIDER, "web_search", SEARCH, query=query, urls=(), status=failure[0],
                          error_code=failure[1], call_id=field(block, "tool_use_id"))
    urls = tuple(u for u in (field(r, "url") for r in content or () if field(r, "type") == "web_search_result")
                 if isinstance(u, str))
    return ServerCall(PROVIDER, "web_search", SEARCH, query=query, urls=urls, call_id=field(block, "tool_use_id"),
                      content_returned=True)


def _fetch(block: Any, use: Any) -> ServerCall:
    content = field(block, "content")
    asked = field(field(use, "input"), "url")
    failure = _failed(content)
    if failure is not None:
        return ServerCall(PROVIDER, "web_fetch", FETCH, url=asked, status=failure[0], error_code=failure[1],
                          call_id=field(block, "tool_use_id"))
    document = field(content, "content")
    text = _document_text(document)
    # a document that is not text (a PDF in base64) is a read with nothing to store; no document at all (a
    # malformed result) is a read that brought nothing back, so empty, never an ok read
    status = None if text is not None else names.STATUS_OK if document is not None else names.STATUS_EMPTY
    return ServerCall(PROVIDER, "web_fetch", FETCH, url=field(content, "url") or asked, text=text,
                      status=status, call_id=field(block, "tool_use_id"))


def _earlier_uses(kwargs: dict[str, Any]) -> dict[Any, Any]:
    """``server_tool_use`` blocks of the assistant turns the request sends back: after ``pause_turn`` the
    continued turn returns only the result, and the query (or fetched URL) is in the use the paused turn made."""
    uses: dict[Any, Any] = {}
    for turn in kwargs.get("messages") or ():
        content = field(turn, "content")
        if field(turn, "role") == "assistant" and isinstance(content, (list, tuple)):
            uses.update({field(b, "id"): b for b in content if field(b, "type") == "server_tool_use"})
    return uses


def read_message(message: Any, kwargs: dict[str, Any]) -> Reading:
    """A ``Message`` / ``BetaMessage`` (or its JSON) -> its server-side calls and the model's citations."""
    blocks = list(field(message, "content") or ())
    uses = _earlier_uses(kwargs)
    uses.update({field(b, "id"): b for b in blocks if field(b, "type") == "server_tool_use"})
    calls: list[ServerCall] = []
    cited: list[str] = []
    spans: list[CitedSpan] = []
    for block in blocks:
        kind = field(block, "type")
        use = uses.get(field(block, "tool_use_id"))
        if kind == "web_search_tool_result":
            calls.append(_search(block, use))
        elif kind == "web_fetch_tool_result":
            calls.append(_fetch(block, use))
        elif kind == "text":  # a text block with citations is the span they cite
            for c in field(block, "citations") or ():
                url = field(c, "url")
                if isinstance(url, str):
                    cited.append(url)
                    span = cited_span(url, field(block, "text"), None, None, str(field(c, "type") or "citation"))
                    if span is not None:
                        spans.append(span)
    return Reading(calls, cited, spans)


class _MessageFolder(Folder):
    """Folds raw stream events into the message with the SDK's own accumulator."""

    def __init__(self, accumulate: Callable[..., Any], extra: dict[str, Any]) -> None:
        self._accumulate = accumulate
        self._extra = extra
        self._snapshot: Any = None
        self._bufs: dict[int, bytes] = {}

    def add(self, event: Any) -> None:
        if self._snapshot is None and field(event, "type") != "message_start":
            return
        self._snapshot = self._accumulate(event=event, current_snapshot=self._snapshot, json_bufs=self._bufs,
                                          **self._extra)

    def final(self) -> Any:
        return self._snapshot


def _folder(module: str) -> Callable[[Any], Folder]:
    def make(stream: Any) -> Folder:
        import importlib
        import inspect

        accumulate = importlib.import_module(module).accumulate_event
        extra: dict[str, Any] = {}
        if "request_headers" in inspect.signature(accumulate).parameters:  # the beta accumulator reads them
            extra["request_headers"] = stream.response.request.headers
        return _MessageFolder(accumulate, extra)

    return make


def _snapshot_reader(is_async: bool) -> Callable[[Switch], Any]:
    """Wrap ``MessageStream.__stream__``: when the SDK's stream ends, read its message snapshot."""

    def done(instance: Any) -> None:
        try:
            snapshot = instance._current_snapshot_or_none()  # noqa: SLF001 - the SDK's own accumulated message
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)
            return
        if snapshot is not None:
            read_safely(read_message, snapshot, {})

    def factory(switch: Switch) -> Any:
        def wrapper(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            events = wrapped(*args, **kwargs)
            if not (switch.active and _telemetry.current().enabled):
                return events
            if is_async:
                async def agen() -> Any:
                    try:
                        async for event in events:
                            yield event
                    finally:
                        done(instance)

                return agen()

            def gen() -> Any:
                try:
                    yield from events
                finally:
                    done(instance)

            return gen()

        return wrapper

    return factory


def _rows() -> tuple[Wrap, ...]:
    rows: list[Wrap] = []
    for module, lib in (("anthropic.resources.messages.messages", "anthropic.lib.streaming._messages"),
                        ("anthropic.resources.beta.messages.messages", "anthropic.lib.streaming._beta_messages")):
        for cls, is_async in (("Messages", False), ("AsyncMessages", True)):
            rows.append(Wrap(DIST, module, f"{cls}.create", response_wrapper(read_message, _folder(lib), is_async=is_async)))
            rows.append(Wrap(DIST, module, f"{cls}.parse", response_wrapper(read_message, None, is_async=is_async)))
    for lib, prefix in (("anthropic.lib.streaming._messages", ""), ("anthropic.lib.streaming._beta_messages", "Beta")):
        rows.append(Wrap(DIST, lib, f"{prefix}MessageStream.__stream__", _snapshot_reader(False)))
        rows.append(Wrap(DIST, lib, f"{prefix}AsyncMessageStream.__stream__", _snapshot_reader(True)))
    return tuple(rows)


ROWS = _rows()
