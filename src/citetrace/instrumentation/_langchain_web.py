"""LangChain community's plain-HTTP web tools: ``RequestsGetTool``, ``WebBaseLoader``, the Serper wrapper
(``GoogleSerperAPIWrapper``, under ``GoogleSerperResults``/``GoogleSerperRun``) and ``BraveSearch``.

- ``RequestsGetTool._run``/``_arun`` returns the body's text (or JSON) whatever the status: the
  ``requests`` probe (``_requests_status``) makes a 429 ``rate_limited`` and any other 4xx/5xx ``error``.
  The async twin uses aiohttp, whose status is not seen: only a raised exception fails it.
- ``WebBaseLoader._scrape`` (sync, one call per URL of ``load``/``lazy_load``/``scrape``) and ``_fetch``
  (async, one call per URL of ``aload``/``alazy_load``): one fetch span per URL, each with its own status;
  the page text is the soup's text (sync) or the HTML (async). Without ``raise_for_status`` the loader
  keeps a 4xx/5xx page; the probe marks it (sync only).
- ``GoogleSerperAPIWrapper._google_serper_api_results`` and its async twin: every ``results``/``run``/
  ``aresults``/``arun`` and both tools go through them, so one row covers them all. Results are read from
  ``organic``/``news``/``places``/``images``. The sync path raises ``HTTPError`` (status on it); the async
  path returns Serper's error JSON, whose ``statusCode`` is read.
- ``BraveSearchWrapper._search_request`` (under ``BraveSearch``, ``run`` and ``download_documents``) returns
  Brave's result list and raises ``Exception("HTTP error 429")`` on a failure, classified by the probe.

The Serper and Brave calls go to recognised search endpoints (``_http``); inside these rows' spans they pass
through, so a call is one span.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _probe, _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "langchain-community"
_SERPER_KEYS = ("organic", "news", "places", "images")


def _http_failure(result: Any) -> str | None:
    """A failure the probe saw while the library kept going (a 4xx/5xx body returned as content)."""
    if _probe.saw(429):
        return names.STATUS_RATE_LIMITED
    return names.STATUS_ERROR if _probe.saw_failure() else None


def _clean_url(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    """The URL as ``RequestsGetTool`` uses it (it strips the quotes a model may put around it)."""
    url = _shapes.arg(args, kwargs, 0, "url")
    return url.strip("\"'") if isinstance(url, str) else None


def _soup_text(result: Any) -> str | None:
    get_text = getattr(result, "get_text", None)
    return get_text() if callable(get_text) else None


def _serper_items(result: Any) -> list[Any] | None:
    for key in _SERPER_KEYS:
        items = _shapes.items_attr(result, key)
        if items is not None:
            return items
    return None


def _serper_urls(result: Any) -> list[str] | None:
    items = _serper_items(result)
    if items is None:
        return None
    return [item["link"] for item in items if isinstance(item, Mapping) and isinstance(item.get("link"), str)]


def _serper_count(result: Any) -> int | None:
    items = _serper_items(result)
    return None if items is None else len(items)


def _serper_status(result: Any) -> str | None:
    if isinstance(result, Mapping) and _serper_items(result) is None:
        status = result.get("statusCode")
        if isinstance(status, int) and status >= 400:
            return names.STATUS_RATE_LIMITED if status == 429 else names.STATUS_ERROR
    return _http_failure(result)


REQUESTS_GET = ToolSpec("langchain.requests_get", names.TOOL_KIND_FETCH, url_from=_clean_url, classify=_http_failure,
                        is_rate_limit=_shapes.rate_limited)
WEB_LOADER = ToolSpec("langchain.web_base_loader", names.TOOL_KIND_FETCH, url_from=_shapes.url_list_from(0, "url"),
                      result_text=_soup_text, classify=_http_failure, is_rate_limit=_shapes.rate_limited)
SERPER = ToolSpec("langchain.google_serper", names.TOOL_KIND_SEARCH,
                  query_from=lambda args, kwargs: _shapes.arg(args, kwargs, 0, "search_term"),
                  result_urls=_serper_urls, result_count=_serper_count, classify=_serper_status,
                  is_rate_limit=_shapes.rate_limited)
BRAVE = ToolSpec("langchain.brave_search", names.TOOL_KIND_SEARCH, classify=_http_failure,
                 is_rate_limit=_shapes.rate_limited)

_SERPER_MODULE = "langchain_community.utilities.google_serper"
ROWS = (
    Patch(DIST, "langchain_community.tools.requests.tool", "RequestsGetTool._run", REQUESTS_GET),
    Patch(DIST, "langchain_community.tools.requests.tool", "RequestsGetTool._arun", REQUESTS_GET, is_async=True),
    Patch(DIST, "langchain_community.document_loaders.web_base", "WebBaseLoader._scrape", WEB_LOADER),
    Patch(DIST, "langchain_community.document_loaders.web_base", "WebBaseLoader._fetch", WEB_LOADER, is_async=True),
    Patch(DIST, _SERPER_MODULE, "GoogleSerperAPIWrapper._google_serper_api_results", SERPER),
    Patch(DIST, _SERPER_MODULE, "GoogleSerperAPIWrapper._async_google_serper_search_results", SERPER, is_async=True),
    Patch(DIST, "langchain_community.utilities.brave_search", "BraveSearchWrapper._search_request", BRAVE),
)
