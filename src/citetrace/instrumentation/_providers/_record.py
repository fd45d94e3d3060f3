"""Searches and fetches a model provider ran server-side, recorded as the tool spans citetrace makes anyway.

A provider module reads a finished response into ``ServerCall``s and the URLs the model cited, and hands them
to ``record``. Each call goes through capture's own ``invoke`` (the same attributes, redaction, status rules,
run records and store writes as a ``@traced_tool`` call), with a stand-in function that returns what the
provider reported. So there is one way to make a tool span, and provider-side calls cannot drift from it.

The response wrappers here are shared by every provider: plain results, ``with_raw_response`` results
(parsed once; the SDK caches the parse, so the caller sees the same object), and streams, which are proxied
event by event without changing what the caller receives, and read when they end.
"""

from __future__ import annotations

import inspect

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field as dataclass_field
from typing import Any, Callable, Iterable, Iterator, Sequence

import wrapt
from opentelemetry import trace

from citetrace import names
from citetrace.capture import current_run, invoke
from citetrace import _telemetry
from citetrace.capture import ToolSpec
from citetrace.instrumentation._table_types import Switch

__all__ = ["ServerCall", "Reading", "CitedSpan", "cited_span", "record", "response_wrapper", "field", "SEARCH",
           "FETCH", "in_sdk_call", "read_safely"]

_IN_SDK_CALL: ContextVar[bool] = ContextVar("citetrace_provider_sdk_call", default=False)


def in_sdk_call() -> bool:
    """True while a provider SDK call this module wraps is running: the HTTP layer's provider rules
    (``_http/_providers``) then leave its request alone, so one answer is read once, by the SDK row."""
    return _IN_SDK_CALL.get()


@contextmanager
def _sdk_call() -> Iterator[None]:
    token = _IN_SDK_CALL.set(True)
    try:
        yield
    finally:
        _IN_SDK_CALL.reset(token)

_log = logging.getLogger("citetrace.instrumentation")
SEARCH = names.TOOL_KIND_SEARCH
FETCH = names.TOOL_KIND_FETCH


@dataclass(frozen=True)
class ServerCall:
    """One server-side search or page fetch, as the provider reported it.

    ``urls`` None means the provider did not report the results (not the same as none); ``text`` None means
    it returned no page text (nothing is stored). ``status`` None lets capture's rules decide (empty when no
    result), else one of ``names.TOOL_STATUSES``.
    """

    provider: str
    tool: str
    kind: str
    query: str | None = None
    url: str | None = None
    urls: tuple[str, ...] | None = None
    text: str | None = None
    status: str | None = None
    error_code: str | None = None
    call_id: str | None = None
    content_returned: bool = False


CitedSpan = tuple[str, str, int, int, str]
"""(URL, the answer's text the provider tied to it, start, end, the provider's record type): offsets into the
text part the record came with, -1 when it gave none. Evaluation finds the text in the report and pairs the
URL with the claims it overlaps (``citetrace.eval``)."""


@dataclass
class Reading:
    """What a response said: its server-side calls, the URLs the model cited, and where in its text."""

    calls: list[ServerCall]
    citations: list[str]
    spans: list[CitedSpan] = dataclass_field(default_factory=list)


def cited_span(url: Any, text: Any, start: Any, end: Any, kind: str) -> CitedSpan | None:
    """The span ``text[start:end]`` cited to ``url`` (the whole ``text`` when no offsets are given), or None
    when the record is not usable (no URL, no text, offsets outside the text)."""
    if not isinstance(url, str) or not url or not isinstance(text, str):
        return None
    if start is None and end is None:
        return (url, text, -1, -1, kind) if text.strip() else None
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        return None
    piece = text[start:end]
    return (url, piece, start, end, kind) if piece.strip() else None


def field(obj: Any, name: str, default: Any = None) -> Any:
    """``obj.name`` for SDK models, ``obj[name]`` for dicts (raw JSON), else ``default``."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _spec(call: ServerCall) -> ToolSpec:
    return ToolSpec(
        name=f"{call.provider}.{call.tool}",
        kind=call.kind,
        query_from=lambda args, kwargs: call.query,
        url_from=lambda args, kwargs: call.url,
        result_urls=lambda result: list(call.urls) if call.urls is not None else None,
        result_count=lambda result: len(call.urls) if call.urls is not None else None,
        result_text=lambda result: call.text,
        classify=lambda result: call.status,
        stores_text=call.text is not None,
        description=f"{call.tool}, run server-side by {call.provider}",
    )


def _stand_in(call: ServerCall) -> Callable[[], ServerCall]:
    def provider_side(**_call_id: Any) -> ServerCall:
        span = trace.get_current_span()
        if span.is_recording():
            attrs: dict[str, Any] = {names.TOOL_PROVIDER_SIDE: True, names.GEN_AI_TOOL_TYPE: names.TOOL_TYPE_EXTENSION}
            if call.kind == SEARCH:
                attrs[names.SEARCH_SOURCES_REPORTED] = call.urls is not None
                attrs[names.SEARCH_CONTENT_RETURNED] = call.content_returned and call.urls is not None
            if call.error_code:
                attrs[names.TOOL_ERROR_CODE] = call.error_code[:64]
            span.set_attributes(attrs)
        return call

    return provider_side


def record(reading: Reading) -> None:
    """Make one tool span per server-side call (children of the current span), then add the citations."""
    for call in reading.calls:
        kwargs = {"tool_call_id": call.call_id} if call.call_id else {}
        invoke(_spec(call), _stand_in(call), (), kwargs)
    if reading.citations or reading.spans:
        run = current_run()
        if run is not None:
            if reading.citations:
                run.add_model_citations(reading.citations)
            run.add_cited_spans(reading.spans)


_NOT_GIVEN = frozenset({"NotGiven", "Omit"})
"""Class names of the SDKs' "argument not given" sentinels (``openai.NOT_GIVEN``/``omit``, anthropic's twins)."""


def given(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's keyword arguments without the ones passed as an SDK's "not given" sentinel.

    Callers pass ``web_search_options=omit`` (PydanticAI's ``OpenAIChatModel`` does on every request) to mean
    "absent"; a reader asking ``kwargs.get(name) is not None`` would take it for a value, and did: every chat
    completion became a provider search. Readers get only the arguments really given.
    """
    if not any(type(v).__name__ in _NOT_GIVEN for v in kwargs.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if type(v).__name__ not in _NOT_GIVEN}


def read_safely(read: Callable[[Any, dict[str, Any]], Reading | None], result: Any, kwargs: dict[str, Any]) -> None:
    """``read(result, kwargs)`` recorded; a shape it cannot read is counted as a capture error, never raised.
    ``kwargs`` reach the reader without SDK "not given" sentinels (``given``)."""
    try:
        reading = read(result, given(kwargs))
        if reading is not None:
            record(reading)
    except Exception as exc:  # noqa: BLE001 - a response shape we misread must never reach the caller
        _telemetry.count_error("capture", exc)


def _parsed(result: Any) -> Any:
    """A ``with_raw_response`` result's parsed body (the SDK caches it), else the result itself."""
    if hasattr(result, "http_response") and callable(getattr(result, "parse", None)):
        return result.parse()
    return result


def _is_async_raw(result: Any) -> bool:
    """An async client's ``with_raw_response`` result, whose ``parse()`` is a coroutine to await (calling it
    without awaiting reads nothing and leaves a never-awaited coroutine)."""
    return hasattr(result, "http_response") and inspect.iscoroutinefunction(getattr(result, "parse", None))


class _StreamProxy(wrapt.ObjectProxy):  # type: ignore[misc,type-arg]
    """A provider stream, event for event, read once it ends (exhausted, closed, or its ``with`` left)."""

    def __init__(self, stream: Any, fold: "Folder", done: Callable[[Any], None]) -> None:
        super().__init__(stream)
        self._self_fold = fold
        self._self_done = done
        self._self_ended = False

    def _self_end(self) -> None:
        if not self._self_ended:
            self._self_ended = True
            self._self_done(self._self_fold.final())

    def _self_see(self, event: Any) -> None:
        try:
            self._self_fold.add(event)
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)

    def __iter__(self) -> "_StreamProxy":
        return self

    def __next__(self) -> Any:
        try:
            event = next(self.__wrapped__)
        except StopIteration:
            self._self_end()
            raise
        self._self_see(event)
        return event

    def __enter__(self) -> "_StreamProxy":
        self.__wrapped__.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        try:
            return self.__wrapped__.__exit__(*exc)
        finally:
            self._self_end()

    def close(self) -> Any:
        try:
            return self.__wrapped__.close()
        finally:
            self._self_end()

    def __aiter__(self) -> "_StreamProxy":
        return self

    async def __anext__(self) -> Any:
        try:
            event = await self.__wrapped__.__anext__()
        except StopAsyncIteration:
            self._self_end()
            raise
        self._self_see(event)
        return event

    async def __aenter__(self) -> "_StreamProxy":
        await self.__wrapped__.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        try:
            return await self.__wrapped__.__aexit__(*exc)
        finally:
            self._self_end()


class Folder:
    """Folds a stream's events into the finished response (each provider subclasses it)."""

    def add(self, event: Any) -> None:
        """See one event."""

    def final(self) -> Any:
        """The response the events added up to (None if the stream ended early)."""
        return None


def _is_stream(result: Any) -> bool:
    cls = type(result).__name__
    return cls in ("Stream", "AsyncStream") and hasattr(result, "response")


def _proxy_raw_stream(raw: Any, folder: Callable[[Any], Folder], done: Callable[[Any], None]) -> None:
    """A ``with_raw_response`` stream (langchain-anthropic streams this way): parse it now and put the proxy in
    the SDK's parse cache, so the caller's own ``parse()`` gets the proxied stream. Left alone if the SDK's
    cache is not where it is expected."""
    try:
        _cache_proxy(raw, raw.parse(), folder, done)
    except Exception as exc:  # noqa: BLE001 - never break the caller's stream
        _telemetry.count_error("capture", exc)


async def _aproxy_raw_stream(raw: Any, folder: Callable[[Any], Folder], done: Callable[[Any], None]) -> None:
    """``_proxy_raw_stream`` for an async client's raw response (its ``parse()`` is awaited)."""
    try:
        _cache_proxy(raw, await raw.parse(), folder, done)
    except Exception as exc:  # noqa: BLE001 - never break the caller's stream
        _telemetry.count_error("capture", exc)


def _cache_proxy(raw: Any, stream: Any, folder: Callable[[Any], Folder], done: Callable[[Any], None]) -> None:
    cache = getattr(raw, "_parsed_by_type", None)  # the SDK's own parse cache (openai/anthropic legacy responses)
    if _is_stream(stream) and isinstance(cache, dict):
        proxy = _StreamProxy(stream, folder(stream), done)
        for key, value in list(cache.items()):
            if value is stream:
                cache[key] = proxy


def response_wrapper(read: Callable[[Any, dict[str, Any]], Reading | None],
                     folder: Callable[[Any], Folder] | None, *, is_async: bool) -> Callable[[Switch], Any]:
    """A ``Wrap`` factory: call through, then read the response (or proxy the stream and read it at its end)."""

    def handle(result: Any, kwargs: dict[str, Any]) -> Any:
        if _is_stream(result) and folder is None:
            return result  # a stream that carries nothing to read (chat completion deltas have no annotations)
        def done(final: Any) -> None:
            if final is not None:
                read_safely(read, final, kwargs)

        if folder is not None and _is_stream(result):
            return _StreamProxy(result, folder(result), done)
        if hasattr(result, "http_response") and kwargs.get("stream"):
            if folder is not None:
                _proxy_raw_stream(result, folder, done)
            return result
        try:
            body = _parsed(result)
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)
            return result
        read_safely(read, body, kwargs)
        return result

    async def ahandle(result: Any, kwargs: dict[str, Any]) -> Any:
        if not _is_async_raw(result):
            return handle(result, kwargs)
        def done(final: Any) -> None:
            if final is not None:
                read_safely(read, final, kwargs)

        if kwargs.get("stream"):
            if folder is not None:
                await _aproxy_raw_stream(result, folder, done)
            return result
        try:
            body = await result.parse()  # cached by the SDK: the caller's own parse() gets this object
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)
            return result
        read_safely(read, body, kwargs)
        return result

    def factory(switch: Switch) -> Any:
        if is_async:

            async def awrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
                with _sdk_call():
                    result = await wrapped(*args, **kwargs)
                return await ahandle(result, kwargs) if switch.active and _telemetry.current().enabled else result

            return awrapper

        def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
            with _sdk_call():
                result = wrapped(*args, **kwargs)
            return handle(result, kwargs) if switch.active and _telemetry.current().enabled else result

        return wrapper

    return factory


def texts(parts: Iterable[Any]) -> str:
    """The text of content parts that carry one."""
    return "".join(t for t in (field(p, "text") for p in parts) if isinstance(t, str))


class _LastChunk:
    """The last chunk of a stream that ``pick`` accepts, read once the stream ends (the sync and async relays
    of ``chunks_wrapper`` differ only in how they iterate)."""

    __slots__ = ("pick", "last")

    def __init__(self, pick: Callable[[Any], bool]) -> None:
        self.pick = pick
        self.last: Any = None

    def see(self, chunk: Any) -> Any:
        if self.pick(chunk):
            self.last = chunk
        return chunk

    def read(self, read: Callable[[Any, dict[str, Any]], Reading | None], kwargs: dict[str, Any]) -> None:
        if self.last is not None:
            read_safely(read, self.last, kwargs)


def chunks_wrapper(read: Callable[[Any, dict[str, Any]], Reading | None], pick: Callable[[Any], bool], *,
                   is_async: bool) -> Callable[[Switch], Any]:
    """A ``Wrap`` factory for calls returning an iterator of whole responses (Gemini's
    ``generate_content_stream``): every chunk is handed on; the last one ``pick`` accepts is read at the end."""

    def factory(switch: Switch) -> Any:
        def active() -> bool:
            return switch.active and _telemetry.current().enabled

        if is_async:

            async def awrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
                with _sdk_call():
                    chunks = await wrapped(*args, **kwargs)
                if not active():
                    return chunks

                async def relay() -> Any:
                    last = _LastChunk(pick)
                    try:
                        async for chunk in chunks:
                            yield last.see(chunk)
                    finally:
                        last.read(read, kwargs)

                return relay()

            return awrapper

        def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
            with _sdk_call():
                chunks = wrapped(*args, **kwargs)
            if not active():
                return chunks

            def relay() -> Any:
                last = _LastChunk(pick)
                try:
                    for chunk in chunks:
                        yield last.see(chunk)
                finally:
                    last.read(read, kwargs)

            return relay()

        return wrapper

    return factory
