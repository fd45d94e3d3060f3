"""langchain-tavily (LangChain's own deprecation warning for ``TavilySearchResults`` sends users here):
``TavilySearch``, ``TavilyExtract`` and ``TavilyCrawl`` (``_run``/``_arun`` of each).

Both tools return Tavily's JSON dict. They never raise on an HTTP failure: the wrapper raises
``ValueError("Error 429: ...")`` (or ``Exception("Error 429: Too Many Requests")`` from aiohttp) and the tool
returns ``{"error": <that exception>}``, which is classified here (429 ``rate_limited``, else ``error``;
the exception's text is never read as a result). Nothing found raises ``ToolException("No search
results found ...")``: ``empty`` for the search; for extract, every URL failing raises
``ToolException("No extracted results found ...")``, an ``error`` (nothing was read). An extract of a list of
URLs stores one document per URL with its own status, as tavily-python's (``_shapes.tavily_extract_documents``).
A crawl reads many pages from one start URL: it is a search-kind span whose query is the start URL, whose
results are the crawled pages, each page's ``raw_content`` a document of the run (one per URL, so each counts
as read); "No crawl results found" is ``empty``.
The HTTP call inside (``requests`` to ``api.tavily.com/search``) is a recognised endpoint, passed through
inside this row's span, so a call is one span.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "langchain-tavily"
_ERROR_429 = re.compile(r"\bError 429\b")


def _returned_error(result: Any) -> BaseException | None:
    """The exception a tool returned as ``{"error": exc}`` instead of raising it."""
    error = result.get("error") if isinstance(result, Mapping) else None
    return error if isinstance(error, BaseException) else None


def _status(result: Any) -> str | None:
    error = _returned_error(result)
    if error is None:
        return _shapes.probe_classify(result)
    text = str(error)
    return names.STATUS_RATE_LIMITED if _ERROR_429.search(text) or _shapes.says_429(text) else names.STATUS_ERROR


def _urls(result: Any) -> list[str] | None:
    if _returned_error(result) is not None:
        return []  # an error's text is never a result list
    items = _shapes.items_attr(result, "results")
    if items is None:
        return None
    return [item["url"] for item in items if isinstance(item, Mapping) and isinstance(item.get("url"), str)]


def _extract_text(result: Any) -> str | None:
    if _returned_error(result) is not None:
        return ""
    return _shapes.join_texts(_shapes.items_attr(result, "results"), ("raw_content", "content"))


SEARCH = ToolSpec("langchain_tavily.search", names.TOOL_KIND_SEARCH, result_urls=_urls, result_pages=_shapes.tavily_result_pages,
                  classify=_status, is_rate_limit=_shapes.rate_limited,
                  classify_exception=_shapes.no_results_exception("No search results found"))
EXTRACT = ToolSpec("langchain_tavily.extract", names.TOOL_KIND_FETCH, url_from=_shapes.url_list_from(0, "urls"),
                   result_text=_extract_text, result_documents=_shapes.tavily_extract_documents, classify=_status,
                   is_rate_limit=_shapes.rate_limited)
CRAWL = ToolSpec("langchain_tavily.crawl", names.TOOL_KIND_SEARCH,
                 query_from=lambda args, kwargs: _shapes.first_url(_shapes.arg(args, kwargs, 0, "url")),
                 result_urls=_urls, result_pages=_shapes.tavily_result_pages, classify=_status, is_rate_limit=_shapes.rate_limited,
                 classify_exception=_shapes.no_results_exception("No crawl results found"))

_CRAWL_MODULE = "langchain_tavily.tavily_crawl"
_SEARCH_MODULE = "langchain_tavily.tavily_search"
_EXTRACT_MODULE = "langchain_tavily.tavily_extract"
ROWS = (
    Patch(DIST, _SEARCH_MODULE, "TavilySearch._run", SEARCH),
    Patch(DIST, _SEARCH_MODULE, "TavilySearch._arun", SEARCH, is_async=True),
    Patch(DIST, _EXTRACT_MODULE, "TavilyExtract._run", EXTRACT),
    Patch(DIST, _EXTRACT_MODULE, "TavilyExtract._arun", EXTRACT, is_async=True),
    Patch(DIST, _CRAWL_MODULE, "TavilyCrawl._run", CRAWL),
    Patch(DIST, _CRAWL_MODULE, "TavilyCrawl._arun", CRAWL, is_async=True),
)
