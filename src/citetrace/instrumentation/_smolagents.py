"""smolagents' web tools: ``.forward`` of ``DuckDuckGoSearchTool``, ``WebSearchTool`` and ``VisitWebpageTool``.

The search tools return markdown (``[title](url)`` per result) and raise when nothing is found;
``DuckDuckGoSearchTool`` calls ddgs, whose own row is then suppressed (the tool's span wins).
``VisitWebpageTool`` never raises: it returns the page as markdown or an error sentence, which is
classified here (``429`` in it means ``rate_limited``).
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture._core import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "smolagents"
_MODULE = "smolagents.default_tools"
# the search tools raise these when nothing was found (the inner ddgs one when the tool wraps ddgs)
_NOTHING = _shapes.no_results_exception("No results found", "No results found.")
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


def _search_spec(name: str) -> ToolSpec:
    return ToolSpec(name, names.TOOL_KIND_SEARCH, result_urls=_shapes.markdown_links, result_count=_search_count,
                    classify=_shapes.probe_classify, is_rate_limit=_shapes.rate_limited,
                    classify_exception=_NOTHING)


VISIT = ToolSpec("smolagents.visit_webpage", names.TOOL_KIND_FETCH, classify=_visit_status,
                 is_rate_limit=_shapes.rate_limited)

ROWS = (
    Patch(DIST, _MODULE, "DuckDuckGoSearchTool.forward", _search_spec("smolagents.duckduckgo_search")),
    Patch(DIST, _MODULE, "WebSearchTool.forward", _search_spec("smolagents.web_search")),
    Patch(DIST, _MODULE, "VisitWebpageTool.forward", VISIT),
)
