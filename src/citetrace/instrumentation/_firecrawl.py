"""Firecrawl (``firecrawl-py`` v4, the v2 API): ``scrape`` and ``search``, sync and async.

``scrape`` returns a ``Document`` (``markdown``, ``metadata.url``); ``search`` returns ``SearchData`` with
results grouped under ``web``/``news``. A 429 raises ``RateLimitError``. ``Firecrawl()`` binds its
client's methods when it is constructed, so clients built before instrumentation stay unwrapped.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture._core import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "firecrawl-py"


def _item_url(item: Any) -> str | None:
    url = getattr(item, "url", None)
    if isinstance(url, str) and url:
        return url
    meta = getattr(item, "metadata", None)
    for key in ("url", "source_url"):
        value = getattr(meta, key, None)
        if isinstance(value, str) and value:
            return value
    return None


def _search_items(result: Any) -> list[Any]:
    items: list[Any] = []
    for group in ("web", "news"):
        items.extend(_shapes.items_attr(result, group) or ())
    return items


def _search_urls(result: Any) -> list[str]:
    return [url for url in map(_item_url, _search_items(result)) if url]


def _search_count(result: Any) -> int:
    return len(_search_items(result))


def _scrape_text(result: Any) -> str | None:
    for key in ("markdown", "html", "raw_html", "summary"):
        value = getattr(result, key, None)
        if isinstance(value, str):
            return value
    return None


SCRAPE = ToolSpec("firecrawl.scrape", names.TOOL_KIND_FETCH, result_text=_scrape_text,
                  is_rate_limit=_shapes.rate_limited)
SEARCH = ToolSpec("firecrawl.search", names.TOOL_KIND_SEARCH, result_urls=_search_urls,
                  result_count=_search_count, is_rate_limit=_shapes.rate_limited)

ROWS = (
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.scrape", SCRAPE),
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.search", SEARCH),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.scrape", SCRAPE, is_async=True),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.search", SEARCH, is_async=True),
)
