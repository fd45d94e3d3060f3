"""LlamaIndex tool specs: ``TavilyToolSpec`` (llama-index-tools-tavily-research), ``BraveSearchToolSpec``
(llama-index-tools-brave-search) and ``DuckDuckGoSearchToolSpec`` (llama-index-tools-duckduckgo).

The specs' methods are what an agent's ``FunctionTool`` calls (``to_tool_list()`` binds them when it is
called, so a spec turned into tools before instrumentation keeps the unwrapped methods; the library rows
underneath still see its calls). Each returns LlamaIndex ``Document`` objects or plain dicts:

- ``TavilyToolSpec.search`` returns one ``Document`` per result (``text`` = the snippet, ``metadata["url"]``);
  the ``TavilyClient.search`` row inside passes through, so a call is one span.
- ``TavilyToolSpec.extract(urls)`` has no row of its own: the ``TavilyClient.extract`` row underneath is its
  span, because it sees Tavily's answer whole, failed URLs included (the spec drops them and returns only the
  pages read, so from above, every URL failing would look like an empty read rather than an error).
- ``BraveSearchToolSpec.brave_search`` returns ONE ``Document`` whose text is Brave's raw JSON answer: the URLs
  and count are read from its ``web.results``. A 4xx/5xx raises ``requests.HTTPError`` (``raise_for_status``),
  whose response carries the status. The recognised Brave endpoint (``_http``) inside passes through.
- ``DuckDuckGoSearchToolSpec.duckduckgo_full_search`` returns duckduckgo_search's result dicts (``href``);
  ``duckduckgo_instant_search`` the instant answers (``url``). duckduckgo_search's ``RatelimitException`` is
  ``rate_limited`` through the exception chain.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

_TAVILY = "llama-index-tools-tavily-research"
_BRAVE = "llama-index-tools-brave-search"
_DDG = "llama-index-tools-duckduckgo"


def _doc_url(doc: Any) -> str | None:
    metadata = getattr(doc, "metadata", None)
    url = metadata.get("url") if isinstance(metadata, Mapping) else None
    return url if isinstance(url, str) and url else None


def _doc_urls(result: Any) -> list[str] | None:
    if not isinstance(result, list):
        return None
    return [url for url in map(_doc_url, result) if url]


def _brave_items(result: Any) -> list[Any] | None:
    """``web.results`` of the raw JSON in the spec's single Document (None when it is not Brave's answer)."""
    if not isinstance(result, list) or len(result) != 1:
        return None
    try:
        body = json.loads(getattr(result[0], "text", ""))
    except (TypeError, ValueError):
        return None
    web = body.get("web") if isinstance(body, dict) else None
    items = web.get("results") if isinstance(web, dict) else None
    if items is None and isinstance(body, dict) and body.get("type") == "search":
        return []  # Brave leaves ``web`` out when nothing was found
    return items if isinstance(items, list) else None


def _brave_urls(result: Any) -> list[str] | None:
    items = _brave_items(result)
    return None if items is None else [i["url"] for i in items if isinstance(i, dict) and isinstance(i.get("url"), str)]


def _brave_count(result: Any) -> int | None:
    items = _brave_items(result)
    return None if items is None else len(items)


TAVILY_SEARCH = ToolSpec("llama_index.tavily_search", names.TOOL_KIND_SEARCH, result_urls=_doc_urls,
                         is_rate_limit=_shapes.rate_limited)
BRAVE = ToolSpec("llama_index.brave_search", names.TOOL_KIND_SEARCH, result_urls=_brave_urls,
                 result_count=_brave_count, is_rate_limit=_shapes.rate_limited)
DDG_FULL = ToolSpec("llama_index.duckduckgo_full_search", names.TOOL_KIND_SEARCH,
                    is_rate_limit=_shapes.rate_limited)
DDG_INSTANT = ToolSpec("llama_index.duckduckgo_instant_search", names.TOOL_KIND_SEARCH,
                       is_rate_limit=_shapes.rate_limited)

ROWS = (
    Patch(_TAVILY, "llama_index.tools.tavily_research.base", "TavilyToolSpec.search", TAVILY_SEARCH),
    Patch(_BRAVE, "llama_index.tools.brave_search.base", "BraveSearchToolSpec.brave_search", BRAVE),
    Patch(_DDG, "llama_index.tools.duckduckgo.base", "DuckDuckGoSearchToolSpec.duckduckgo_full_search", DDG_FULL),
    Patch(_DDG, "llama_index.tools.duckduckgo.base", "DuckDuckGoSearchToolSpec.duckduckgo_instant_search",
          DDG_INSTANT),
)
