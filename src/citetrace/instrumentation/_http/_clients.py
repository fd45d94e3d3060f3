"""The HTTP clients' send methods, watched for the recognised search endpoints and the opted-in fetch rules.

``requests.Session.send``, ``httpx.Client.send`` / ``AsyncClient.send``, ``aiohttp.ClientSession._request``
and ``urllib.request.OpenerDirector.open`` see every request those clients make. A request to a recognised
search endpoint (``_endpoints``) becomes one search span, a request under a fetch rule the user turned on
(``citetrace._fetchrules``) one fetch span of the page it fetches, both through capture's ``invoke``; every
other request is passed through after one host lookup. A call already inside a tool span (tavily-python's
and exa-py's own rows, a ``@traced_tool``, a redirect ``urllib`` follows inside ``open``) passes through
too, so an SDK call that hits a recognised endpoint is one span, never two. Passing through inside a tool
call, each client records the status it got into the call's probe scope (``_probe``), so a library that
hides the status (tavily-python's async ``UsageLimitExceededError``, an error page returned as text) still
gets ``http.response.status_code`` and its 429 still counts as ``rate_limited``.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Mapping, Sequence

from citetrace import _fetchrules, _telemetry
from citetrace.capture import ToolSpec, ainvoke, in_tool_call, invoke
from citetrace.capture._internal import http_status_of, http_status_of_exc
from citetrace.instrumentation import _probe
from citetrace.instrumentation._http import _transports as t
from citetrace.instrumentation._http._endpoints import match
from citetrace.instrumentation._http._providers import ProviderAnswer, provider_answer
from citetrace.instrumentation._http._specs import Read, fetch_spec, search_spec
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["ROWS", "recognise"]


def recognise(sent: t.Sent | None, read: Read) -> ToolSpec | None:
    """The spec of a recognised request (a search endpoint, then an opted-in fetch rule); None otherwise."""
    if sent is None:
        return None
    found = match(sent.method, sent.url, sent.body)
    if found is not None:
        return search_spec(found[0], found[1], read)
    fetch = _fetchrules.match(_telemetry.current().settings.fetch_rules, sent.method, sent.url, sent.body)
    return fetch_spec(fetch[0], fetch[1], read) if fetch is not None else None


def _recognised(sent_of: Callable[[], t.Sent | None],
                read: Callable[[t.Sent], Read]) -> ToolSpec | ProviderAnswer | None:
    """A search/fetch spec, or a provider answer to read after the call (``_providers``), or None."""
    if in_tool_call() or not _telemetry.current().enabled:
        return None
    try:
        sent = sent_of()
        if sent is None:
            return None
        return recognise(sent, read(sent)) or provider_answer(sent)
    except Exception as exc:  # noqa: BLE001 - never let recognition break the request
        _telemetry.count_error("capture", exc)
        return None


def _answered(answer: ProviderAnswer, reply: Callable[[], t.Reply]) -> None:
    try:
        answer.read(reply())
    except Exception as exc:  # noqa: BLE001 - reading the answer must never break the request
        _telemetry.count_error("capture", exc)


def _through(wrapped: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Call straight through; inside a tool call's probe scope, record the status the client got."""
    if not _probe.in_scope():
        return wrapped(*args, **kwargs)
    try:
        response = wrapped(*args, **kwargs)
    except BaseException as exc:
        _probe.record(http_status_of_exc(exc))
        raise
    _probe.record(http_status_of(response))
    _probe.record_redirect(response, _requested(args))
    return response


async def _athrough(wrapped: Callable[..., Awaitable[Any]], args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Async twin of ``_through``."""
    if not _probe.in_scope():
        return await wrapped(*args, **kwargs)
    try:
        response = await wrapped(*args, **kwargs)
    except BaseException as exc:
        _probe.record(http_status_of_exc(exc))
        raise
    _probe.record(http_status_of(response))
    _probe.record_redirect(response, _requested(args))
    return response


def _requested(args: Sequence[Any]) -> str | None:
    """The URL a urllib ``open(url_or_request)`` asked for (its response keeps only the final URL); the other
    clients' responses carry their hops in ``.history``, so this is only their fallback."""
    first = args[0] if args else None
    if isinstance(first, str):
        return first
    url = getattr(first, "full_url", None)
    return url if isinstance(url, str) else None


def _read_loaded(sent: t.Sent) -> Read:
    """requests and httpx: the body is in the response (unless streamed)."""
    return lambda response: t.reply_of(response, sent.streamed)


def _sync(sent_of: Callable[[Sequence[Any], Mapping[str, Any]], t.Sent | None]) -> Callable[[Switch], Any]:
    def factory(switch: Switch) -> Any:
        def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
            spec = _recognised(lambda: sent_of(args, kwargs), _read_loaded) if switch.active else None
            if spec is None:
                return _through(wrapped, args, kwargs)
            if isinstance(spec, ProviderAnswer):
                response = wrapped(*args, **kwargs)
                _answered(spec, lambda: t.reply_of(response, False))
                return response
            return invoke(spec, wrapped, args, kwargs, current=False)

        return wrapper

    return factory


def _httpx_async(switch: Switch) -> Any:
    async def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        spec = _recognised(lambda: t.httpx_sent(args, kwargs), _read_loaded) if switch.active else None
        if spec is None:
            return await _athrough(wrapped, args, kwargs)
        if isinstance(spec, ProviderAnswer):
            response = await wrapped(*args, **kwargs)
            _answered(spec, lambda: t.reply_of(response, False))
            return response
        return await ainvoke(spec, wrapped, args, kwargs, current=False)

    return wrapper


class _Buffered:
    """The body a wrapper read off a streaming client's response, for the spec to parse."""

    __slots__ = ("body",)

    def __init__(self) -> None:
        self.body: bytes | None = None

    def read(self, sent: t.Sent) -> Read:
        return lambda response: t.reply_of(response, False, self.body)


def _buffering(read_body: Callable[[Any], bytes | None], holder: _Buffered) -> Callable[[Any], Any]:
    def call(wrapped: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            response = wrapped(*args, **kwargs)
            holder.body = _quietly(read_body, response)
            return response

        return run

    return call


def _quietly(read_body: Callable[[Any], bytes | None], response: Any) -> bytes | None:
    try:
        return read_body(response)
    except Exception as exc:  # noqa: BLE001 - the caller reads the body itself and sees the same failure
        _telemetry.count_error("capture", exc)
        return None


def _urllib(switch: Switch) -> Any:
    def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        holder = _Buffered()
        spec = _recognised(lambda: t.urllib_sent(args, kwargs), holder.read) if switch.active else None
        if spec is None:
            return _through(wrapped, args, kwargs)
        if isinstance(spec, ProviderAnswer):
            response = _buffering(t.buffer_urllib, holder)(wrapped)(*args, **kwargs)
            _answered(spec, lambda: t.reply_of(response, False, holder.body))
            return response
        return invoke(spec, _buffering(t.buffer_urllib, holder)(wrapped), args, kwargs, current=False)

    return wrapper


def _aiohttp(switch: Switch) -> Any:
    async def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        holder = _Buffered()
        spec = _recognised(lambda: t.aiohttp_sent(instance, args, kwargs), holder.read) if switch.active else None
        if spec is None:
            return await _athrough(wrapped, args, kwargs)

        async def run(*a: Any, **k: Any) -> Any:
            response = await wrapped(*a, **k)
            try:
                holder.body = await t.buffer_aiohttp(response)
            except Exception as exc:  # noqa: BLE001 - the caller's own read sees the same failure
                _telemetry.count_error("capture", exc)
            return response

        runner: Callable[..., Awaitable[Any]] = run
        if isinstance(spec, ProviderAnswer):
            response = await runner(*args, **kwargs)
            _answered(spec, lambda: t.reply_of(response, False, holder.body))
            return response
        return await ainvoke(spec, runner, args, kwargs, current=False)

    return wrapper


ROWS: tuple[Wrap, ...] = (
    Wrap("requests", "requests.sessions", "Session.send", _sync(t.requests_sent)),
    Wrap("httpx", "httpx", "Client.send", _sync(t.httpx_sent)),
    Wrap("httpx", "httpx", "AsyncClient.send", _httpx_async),
    Wrap("aiohttp", "aiohttp.client", "ClientSession._request", _aiohttp),
    Wrap("", "urllib.request", "OpenerDirector.open", _urllib),
)
