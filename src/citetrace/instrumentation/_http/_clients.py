"""The HTTP clients' send methods, watched for the recognised search endpoints (``_endpoints``).

``requests.Session.send`` and ``httpx.Client.send`` / ``AsyncClient.send`` see every request those clients
make: a request to a recognised endpoint becomes one search span through capture's ``invoke`` (status,
count, URLs and page text read from the documented response; 429 rate_limited, other 4xx/5xx errors, a
raised exception as everywhere else); every other request is passed through after one host lookup. A call
already inside a tool span (tavily-python's and exa-py's own rows, a ``@traced_tool``) passes through too,
so an SDK call that hits a recognised endpoint is one span, never two. Streamed responses
(``stream=True``) and bodies that are not the documented JSON are not read: the span says ok, never a
false empty, and an error response's text is never taken for a result list.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from citetrace import names
from citetrace.capture import ToolSpec, ainvoke, in_tool_call, invoke
from citetrace import _telemetry
from citetrace.instrumentation._http._endpoints import Endpoint, RequestInfo, Results, match
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["ROWS", "spec_for"]


def spec_for(endpoint: Endpoint, info: RequestInfo, streamed: bool) -> ToolSpec:
    """The tool spec of one recognised call; the response is parsed once, on first use."""
    memo: dict[str, Results | None] = {}

    def results(response: Any) -> Results | None:
        if "r" not in memo:
            memo["r"] = _parse(endpoint, response, streamed)
        return memo["r"]

    def classify(response: Any) -> str | None:
        status = getattr(response, "status_code", None)
        if isinstance(status, int) and status >= 400:
            return names.STATUS_RATE_LIMITED if status == 429 else names.STATUS_ERROR
        return names.STATUS_OK if results(response) is None else None

    def urls(response: Any) -> list[str]:
        found = results(response)  # never None: capture would read URLs off the response object itself
        return found.urls if found is not None else []

    def pages(response: Any) -> list[tuple[str, str]] | None:
        found = results(response)
        return found.pages if found is not None else None

    return ToolSpec(name=f"{endpoint.name}_search", kind=names.TOOL_KIND_SEARCH,
                    query_from=lambda args, kwargs: endpoint.query(info), result_urls=urls,
                    result_count=lambda r: len(found.urls) if (found := results(r)) is not None else None,
                    result_pages=pages, classify=classify,
                    description=f"{endpoint.name} search API over plain HTTP")


def _parse(endpoint: Endpoint, response: Any, streamed: bool) -> Results | None:
    status = getattr(response, "status_code", None)
    if streamed or not isinstance(status, int) or status >= 400:
        return None
    try:
        return endpoint.results(response.json())
    except Exception:  # noqa: BLE001 - not the documented JSON: an unknown shape, not an empty search
        return None


def _requests_info(args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[str, str, Any, bool] | None:
    request = args[0] if args else kwargs.get("request")
    if request is None:
        return None
    return str(request.method or ""), str(request.url or ""), request.body, bool(kwargs.get("stream"))


def _httpx_info(args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[str, str, Any, bool] | None:
    request = args[0] if args else kwargs.get("request")
    if request is None:
        return None
    try:
        body = request.content
    except Exception:  # noqa: BLE001 - a streaming request body: not read here
        body = None
    return str(request.method), str(request.url), body, bool(kwargs.get("stream"))


def _recognised(info: Callable[[Sequence[Any], dict[str, Any]], tuple[str, str, Any, bool] | None],
                args: Sequence[Any], kwargs: dict[str, Any]) -> ToolSpec | None:
    if in_tool_call() or not _telemetry.current().enabled:
        return None
    try:
        seen = info(args, kwargs)
        found = match(seen[0], seen[1], seen[2]) if seen is not None else None
        return spec_for(found[0], found[1], seen[3]) if found is not None and seen is not None else None
    except Exception as exc:  # noqa: BLE001 - never let recognition break the request
        _telemetry.count_error("capture", exc)
        return None


def _sync(info: Callable[[Sequence[Any], dict[str, Any]], tuple[str, str, Any, bool] | None]) -> Callable[[Switch], Any]:
    def factory(switch: Switch) -> Any:
        def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
            spec = _recognised(info, args, kwargs) if switch.active else None
            if spec is None:
                return wrapped(*args, **kwargs)
            return invoke(spec, wrapped, args, kwargs)

        return wrapper

    return factory


def _async(info: Callable[[Sequence[Any], dict[str, Any]], tuple[str, str, Any, bool] | None]) -> Callable[[Switch], Any]:
    def factory(switch: Switch) -> Any:
        async def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
            spec = _recognised(info, args, kwargs) if switch.active else None
            if spec is None:
                return await wrapped(*args, **kwargs)
            return await ainvoke(spec, wrapped, args, kwargs)

        return wrapper

    return factory


ROWS: tuple[Wrap, ...] = (
    Wrap("requests", "requests.sessions", "Session.send", _sync(_requests_info)),
    Wrap("httpx", "httpx", "Client.send", _sync(_httpx_info)),
    Wrap("httpx", "httpx", "AsyncClient.send", _async(_httpx_info)),
)
