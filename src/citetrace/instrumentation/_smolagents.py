"""smolagents' web tools: ``.forward`` of ``DuckDuckGoSearchTool``, ``WebSearchTool``, ``ApiWebSearchTool``,
``GoogleSearchTool`` and ``VisitWebpageTool``.

The search tools return markdown (``[title](url)`` per result) and raise when nothing is found;
``DuckDuckGoSearchTool`` calls ddgs, whose own row is then suppressed (the tool's span wins).
``VisitWebpageTool`` never raises: it returns the page as markdown or an error sentence, which is
classified here (``429`` in it means ``rate_limited``) and never stored as the page's text; the status code
comes from the ``requests`` probe.

``ApiWebSearchTool`` (Brave by default) calls ``raise_for_status``: its ``HTTPError`` carries the status.
``GoogleSearchTool`` (serper or serpapi) raises ``ValueError(<the error JSON>)``, which carries no status,
so the ``requests`` probe (``_requests_status``) records the status of the ``requests.get`` it makes. Both return "No results found..." markdown for an empty list (count 0: ``empty``);
``GoogleSearchTool`` also raises "No results found for query" when the answer has no organic results.
Their HTTP calls go to recognised search endpoints (``_http``), passed through inside this row's span.
"""

from __future__ import annotations

from typing import Any, Callable

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "smolagents"
_MODULE = "smolagents.default_tools"
# the search tools raise these when nothing was found (the inner ddgs one when the tool wraps ddgs)
_NOTHING = _shapes.no_results_exception("No results found", "No results found.")
# GoogleSearchTool's raise when the answer has no organic results at all
_GOOGLE_NOTHING = _shapes.no_results_exception("No results found for query")
_VISIT_ERRORS = ("Error fetching the webpage:", "The request timed out.", "An unexpected error occurred:")


def _search_count(result: Any) -> int | None:
    links = _shapes.markdown_links(result)
    return None if links is None else len(links)


def _visit_status(result: Any) -> str | None:
    if _shapes.probe_classify(result):
        return names.STATUS_RATE_LIMITED
    if isinstance(result, str) and result.startswith(_VISIT_ERRORS):
        return names.STATUS_RATE_LIMITED if _shapes.says_429(result) else names.STATUS_ERROR
    return None


def _search_spec(name: str, nothing: Callable[[BaseException], str | None] = _NOTHING) -> ToolSpec:
    return ToolSpec(name, names.TOOL_KIND_SEARCH, result_urls=_shapes.markdown_links, result_count=_search_count,
                    classify=_shapes.probe_classify, is_rate_limit=_shapes.rate_limited,
                    classify_exception=nothing)


def _visit_text(result: Any) -> str | None:
    """The page's markdown; the tool's error sentence is not the page's text (an empty document)."""
    if isinstance(result, str) and result.startswith(_VISIT_ERRORS):
        return ""
    return None


VISIT = ToolSpec("smolagents.visit_webpage", names.TOOL_KIND_FETCH, classify=_visit_status,
                 is_rate_limit=_shapes.rate_limited, result_text=_visit_text)

ROWS = (
    Patch(DIST, _MODULE, "DuckDuckGoSearchTool.forward", _search_spec("smolagents.duckduckgo_search")),
    Patch(DIST, _MODULE, "WebSearchTool.forward", _search_spec("smolagents.web_search")),
    Patch(DIST, _MODULE, "ApiWebSearchTool.forward", _search_spec("smolagents.api_web_search")),
    Patch(DIST, _MODULE, "GoogleSearchTool.forward", _search_spec("smolagents.google_search", _GOOGLE_NOTHING)),
    Patch(DIST, _MODULE, "VisitWebpageTool.forward", VISIT),
)
