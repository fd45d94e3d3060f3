"""gpt-researcher's own search and fetch paths: its retrievers (``gpt_researcher.retrievers.*``) and its
scrapers, which ``BrowserManager.browse_urls`` drives.

- **Retrievers.** Each is built with the query (``TavilySearch(query, ...)``) and searched with none
  (``.search(max_results=...)``): the row reads ``self.query`` (``pass_instance``). Results are
  ``[{"href", "body"}]``; PubMed Central's and the custom retriever's carry the page text (``raw_content``),
  stored as documents of the run. Most retrievers swallow their failures and return ``[]`` (Tavily prints
  "Failed fetching sources"): the ``requests`` probe tells a 429 (``rate_limited``) and any other 4xx/5xx
  (``error``) from a real nothing-found (``empty``). Their HTTP calls to recognised endpoints (Tavily,
  Serper, SerpApi, Bing, Google) pass through inside the retriever's span: one call, one span.
- **Scrapers: one fetch span per URL.** ``browse_urls(urls)`` hands the list to ``Scraper.run``, which
  gathers ``Scraper.extract_data_from_url(link, session)`` once per URL; that is the row. Each URL gets its
  own span, status and stored page (``raw_content``), so a list with one good page and one 404 is one read
  and one failed read, never one ``empty`` call. The scraper returns ``raw_content: None`` for every
  failure: the probe's status decides (429 ``rate_limited``, other 4xx/5xx ``error``), a page under 100
  characters after a 200 is ``empty``, and no response at all (a connection error the scraper swallowed)
  is ``error``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _probe, _shapes
from citetrace.instrumentation._instance import QUERY_FROM_INSTANCE
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS", "RETRIEVERS"]

DIST = "gpt-researcher"
_PAGE_MIN = 100
"""gpt-researcher's own bound: a result whose ``raw_content`` is longer is used as fetched text."""

RETRIEVERS = {
    "tavily": ("tavily.tavily_search", "TavilySearch"),
    "serper": ("serper.serper", "SerperSearch"),
    "serpapi": ("serpapi.serpapi", "SerpApiSearch"),
    "google": ("google.google", "GoogleSearch"),
    "bing": ("bing.bing", "BingSearch"),
    "searchapi": ("searchapi.searchapi", "SearchApiSearch"),
    "searx": ("searx.searx", "SearxSearch"),
    "duckduckgo": ("duckduckgo.duckduckgo", "Duckduckgo"),
    "exa": ("exa.exa", "ExaSearch"),
    "bocha": ("bocha.bocha", "BoChaSearch"),
    "xquik": ("xquik.xquik", "XquikSearch"),
    "arxiv": ("arxiv.arxiv", "ArxivSearch"),
    "semantic_scholar": ("semantic_scholar.semantic_scholar", "SemanticScholarSearch"),
    "pubmed_central": ("pubmed_central.pubmed_central", "PubMedCentralSearch"),
    "custom": ("custom.custom", "CustomRetriever"),
}
"""Retriever name (gpt-researcher's ``RETRIEVER`` setting) -> (module under ``gpt_researcher.retrievers``,
class). The MCP retriever is not here: its calls are ``mcp`` tool calls, which the MCP row covers."""


def _items(result: Any) -> list[Mapping[str, Any]] | None:
    if not isinstance(result, list):
        return None
    return [item for item in result if isinstance(item, Mapping)]


def _url_of(item: Mapping[str, Any]) -> str | None:
    url = item.get("href") or item.get("url")
    return url if isinstance(url, str) else None


def _result_urls(result: Any) -> list[str] | None:
    items = _items(result)
    return None if items is None else [u for u in map(_url_of, items) if u]


def _result_pages(result: Any) -> list[tuple[str, str]] | None:
    """Results that carry their page's text (PubMed Central, custom retrievers), as gpt-researcher uses them."""
    pages = []
    for item in _items(result) or ():
        url, text = _url_of(item), item.get("raw_content")
        if url and isinstance(text, str) and len(text) > _PAGE_MIN:
            pages.append((url, text))
    return pages or None


def _link(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    link = _shapes.arg(args, kwargs, 0, "link")
    return link if isinstance(link, str) else None


def _raw_content(result: Any) -> str | None:
    text = result.get("raw_content") if isinstance(result, Mapping) else None
    return text if isinstance(text, str) else None


def _scrape_status(result: Any) -> str | None:
    if _raw_content(result) is not None:
        return None
    if _probe.saw(429):
        return names.STATUS_RATE_LIMITED
    status = _probe.last_status()
    if status is None or status >= 400:
        return names.STATUS_ERROR
    return names.STATUS_EMPTY


def _retriever_spec(name: str) -> ToolSpec:
    return ToolSpec(f"gpt_researcher.{name}", names.TOOL_KIND_SEARCH, query_from=QUERY_FROM_INSTANCE,
                    result_urls=_result_urls, result_pages=_result_pages, classify=_shapes.swallowed_failure,
                    is_rate_limit=_shapes.rate_limited, skip_self=True)


SCRAPE = ToolSpec("gpt_researcher.scrape", names.TOOL_KIND_FETCH, url_from=_link, result_text=_raw_content,
                  classify=_scrape_status, is_rate_limit=_shapes.rate_limited)

ROWS = (
    *(Patch(DIST, f"gpt_researcher.retrievers.{module}", f"{cls}.search", _retriever_spec(name), pass_instance=True)
      for name, (module, cls) in RETRIEVERS.items()),
    Patch(DIST, "gpt_researcher.scraper.scraper", "Scraper.extract_data_from_url", SCRAPE, is_async=True),
)
