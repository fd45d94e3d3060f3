"""LangChain community tools built on the libraries above, so an agent's tool call is one span.

- ``TavilySearchResults._run``/``_arun`` (calls Tavily's HTTP API itself) return ``(results, raw)``, or
  ``(repr(exception), {})`` on failure, which is classified here; with ``include_raw_content`` each page's
  text is stored, read with the search (``_shapes.tavily_result_pages``, as tavily-python's row);
- ``DuckDuckGoSearchRun._run`` / ``DuckDuckGoSearchResults._run`` call ddgs (its row is suppressed inside);
- ``TavilySearchAPIRetriever._get_relevant_documents`` calls ``TavilyClient.search`` (suppressed inside)
  and returns Documents with ``metadata["source"]``.
"""

from __future__ import annotations

from typing import Any, Iterable

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.capture._internal import extract_urls, locate_results, text_size
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "langchain-community"


def _artifact(result: Any) -> Any:
    """The part of a ``content_and_artifact`` tuple that holds the results."""
    if isinstance(result, tuple) and len(result) == 2:
        content, artifact = result
        return artifact if artifact else content
    return result


def _tuple_failure(result: Any) -> str | None:
    if _shapes.probe_classify(result):
        return names.STATUS_RATE_LIMITED
    if _failed_tuple(result):
        return names.STATUS_RATE_LIMITED if _shapes.says_429(result[0]) else names.STATUS_ERROR
    return None


def _failed_tuple(result: Any) -> bool:
    """``(repr(exception), {})``: what the tool returns instead of raising."""
    return isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], str) and not result[1]


def _size(result: Any) -> int | None:
    """The text of the results only: never the query and request id of the raw part, never an error's repr."""
    if _failed_tuple(result):
        return 0
    results = _artifact(result)
    return text_size(results, locate_results(results))


def _urls(result: Any) -> Iterable[str]:
    return [] if _failed_tuple(result) else extract_urls(_artifact(result))[0]  # an error's text is no result list


def _count(result: Any) -> int | None:
    return 0 if _failed_tuple(result) else extract_urls(_artifact(result))[1]


# ddgs raises this when nothing was found (the LangChain DuckDuckGo tools let it through): an empty search
_NOTHING = _shapes.no_results_exception("No results found.")


def _spec(name: str, **hooks: Any) -> ToolSpec:
    return ToolSpec(name, names.TOOL_KIND_SEARCH, result_urls=_urls, result_count=_count, result_size=_size,
                    classify=_tuple_failure, is_rate_limit=_shapes.rate_limited, classify_exception=_NOTHING, **hooks)


def _tavily_pages(result: Any) -> list[tuple[str, str]] | None:
    """``include_raw_content=True``: the raw artifact's page texts (never from a failure's repr)."""
    return None if _failed_tuple(result) else _shapes.tavily_result_pages(_artifact(result))


TAVILY = _spec("langchain.tavily_search_results", result_pages=_tavily_pages)
DDG_RESULTS = _spec("langchain.duckduckgo_results")
_DDG_NOTHING = "No good DuckDuckGo Search Result was found"


def _snippets_count(result: Any) -> int | None:
    """``DuckDuckGoSearchRun`` joins the snippets into one string without URLs: 0 for its "nothing found"
    sentence, else 1 (at least one result; the exact number is not in the output)."""
    if not isinstance(result, str):
        return None
    return 0 if not result.strip() or result.startswith(_DDG_NOTHING) else 1


DDG_RUN = ToolSpec("langchain.duckduckgo_search", names.TOOL_KIND_SEARCH, result_count=_snippets_count,
                   classify=_shapes.probe_classify, is_rate_limit=_shapes.rate_limited, classify_exception=_NOTHING)
TAVILY_RETRIEVER = ToolSpec("langchain.tavily_retriever", names.TOOL_KIND_SEARCH, is_rate_limit=_shapes.rate_limited)

ROWS = (
    Patch(DIST, "langchain_community.tools.tavily_search.tool", "TavilySearchResults._run", TAVILY),
    Patch(DIST, "langchain_community.tools.tavily_search.tool", "TavilySearchResults._arun", TAVILY, is_async=True),
    Patch(DIST, "langchain_community.tools.ddg_search.tool", "DuckDuckGoSearchResults._run", DDG_RESULTS),
    Patch(DIST, "langchain_community.tools.ddg_search.tool", "DuckDuckGoSearchRun._run", DDG_RUN),
    Patch(DIST, "langchain_community.retrievers.tavily_search_api", "TavilySearchAPIRetriever._get_relevant_documents",
          TAVILY_RETRIEVER),
)
