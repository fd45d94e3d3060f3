"""knowledge-storm's own search and fetch paths: its retrievers (``knowledge_storm.rm.*``) and the page reads
of ``WebPageHelper.urls_to_articles``.

- **Retrievers.** ``forward(query_or_queries, exclude_urls)`` (what ``dspy.Retrieve.__call__`` and STORM's
  ``Retriever.retrieve`` call) is one search span. Its query is the query, or the queries of a list joined by
  newlines (one call, one span: STORM asks each conversation turn's queries at once). Results are
  ``[{"url", "snippets", ...}]``. Several retrievers swallow failures (``SerperRM`` skips a result set without
  ``organic``, so a 429 comes back as ``[]``): the status probe makes a 429 ``rate_limited`` and another
  4xx/5xx with nothing found ``error``. Their calls to Serper, Tavily (tavily-python), Brave, Bing or
  DuckDuckGo pass through inside the span: one call, one span.
- **Page reads: one fetch span per URL.** ``urls_to_articles(urls)`` (under ``urls_to_snippets``, which the
  retrievers call with ``ENABLE_EXTRA_SNIPPET_EXTRACTION``) maps ``download_webpage(url)`` over a thread pool;
  that is the row, so each URL is one read with its own status and stored page (the HTML it downloaded).
  ``download_webpage`` returns None for any failure: a 429 the httpx probe saw is ``rate_limited``, anything
  else ``error``. These reads run inside the retriever's search span and are still spans of their own
  (``Patch.own_span``): reading a result page is another operation than the search, and the search's
  status is not changed by a page's 429.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.capture._internal import decode_bytes
from citetrace.instrumentation import _probe, _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS", "RETRIEVERS"]

DIST = "knowledge-storm"
_MODULE = "knowledge_storm.rm"
RETRIEVERS = {"you": "YouRM", "bing": "BingSearch", "serper": "SerperRM", "brave": "BraveRM", "searxng": "SearXNG",
              "duckduckgo": "DuckDuckGoSearchRM", "tavily": "TavilySearchRM", "google": "GoogleSearch"}
"""The web retrievers of ``knowledge_storm.rm`` (name -> class). ``VectorRM`` and ``AzureAISearch`` search the
user's own index, not the web, and are not rows."""


def _queries(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    value = _shapes.arg(args, kwargs, 0, "query_or_queries")
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        found = [q for q in value if isinstance(q, str)]
        return "\n".join(found) if found else None
    return None


def _result_urls(result: Any) -> list[str] | None:
    if not isinstance(result, list):
        return None
    return [item["url"] for item in result if isinstance(item, Mapping) and isinstance(item.get("url"), str)]


def _page_url(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    url = _shapes.arg(args, kwargs, 0, "url")
    return url if isinstance(url, str) else None


def _page_text(result: Any) -> str | None:
    if isinstance(result, bytes):
        return decode_bytes(result)  # the page's own encoding (capture's one decoder)
    return result if isinstance(result, str) else None


def _read_status(result: Any) -> str | None:
    if result is not None:
        return None
    return names.STATUS_RATE_LIMITED if _probe.saw(429) else names.STATUS_ERROR


def _retriever_spec(name: str) -> ToolSpec:
    return ToolSpec(f"storm.{name}", names.TOOL_KIND_SEARCH, query_from=_queries, result_urls=_result_urls,
                    classify=_shapes.swallowed_failure, is_rate_limit=_shapes.rate_limited)


READ = ToolSpec("storm.download_webpage", names.TOOL_KIND_FETCH, url_from=_page_url, result_text=_page_text,
                classify=_read_status, is_rate_limit=_shapes.rate_limited)

ROWS = (
    *(Patch(DIST, _MODULE, f"{cls}.forward", _retriever_spec(name)) for name, cls in RETRIEVERS.items()),
    Patch(DIST, "knowledge_storm.utils", "WebPageHelper.download_webpage", READ, own_span=True),
)
