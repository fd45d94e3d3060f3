"""Tavily (``tavily-python``): search and extract, sync and async clients.

``search`` returns ``{"results": [{"url", "content", ...}]}``, with each page's text in ``raw_content`` when
asked (``include_raw_content``): those pages are documents of the run, read with the search; ``extract`` returns
``{"results": [{"url", "raw_content"}], "failed_results": [...]}`` for one URL or a list: each page read is its
own document, each failed URL a failed one (the span is ``ok`` when any URL was read, ``error`` when all
failed). A 429 raises ``UsageLimitExceededError``, which comes out ``rate_limited``.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "tavily-python"


def _extract_text(result: Any) -> str | None:
    return _shapes.join_texts(_shapes.items_attr(result, "results"), ("raw_content", "content"))


def _extract_status(result: Any) -> str | None:
    if _shapes.probe_classify(result):
        return names.STATUS_RATE_LIMITED
    if isinstance(result, dict) and not result.get("results") and result.get("failed_results"):
        return names.STATUS_ERROR
    return None


SEARCH = ToolSpec("tavily.search", names.TOOL_KIND_SEARCH, result_pages=_shapes.tavily_result_pages,
                  is_rate_limit=_shapes.rate_limited)
EXTRACT = ToolSpec(
    "tavily.extract",
    names.TOOL_KIND_FETCH,
    url_from=_shapes.url_list_from(0, "urls"),
    result_text=_extract_text,
    result_documents=_shapes.tavily_extract_documents,
    classify=_extract_status,
    is_rate_limit=_shapes.rate_limited,
)

ROWS = (
    Patch(DIST, "tavily.tavily", "TavilyClient.search", SEARCH),
    Patch(DIST, "tavily.tavily", "TavilyClient.extract", EXTRACT),
    Patch(DIST, "tavily.async_tavily", "AsyncTavilyClient.search", SEARCH, is_async=True),
    Patch(DIST, "tavily.async_tavily", "AsyncTavilyClient.extract", EXTRACT, is_async=True),
)
