"""Firecrawl (``firecrawl-py`` v4, the v2 API): ``scrape``, ``search``, ``gov_search``, ``developer_search``,
``crawl`` and ``batch_scrape``, sync and async.

``scrape`` returns a ``Document`` (``markdown``, ``metadata.url``, and the page's own HTTP status in
``metadata.status_code``: a 4xx/5xx page is an ``error``, a 429 ``rate_limited``, with that status on the span;
such pages of a crawl, batch or scraped search are not stored as read); ``search`` returns ``SearchData`` with
results grouped under ``web``/``news``. With ``scrape_options`` a search result is a scraped ``Document``: its
markdown is page text that came with the result, stored as a document of the run. ``gov_search`` (the
Government Index) returns ``GovSearchResponse`` (results under ``data.web``) and ``developer_search`` (the
developer index) ``DeveloperSearchResponse`` (``results``, each with its ``url`` and evidence ``passages``,
excerpts rather than the page, so not stored). A 429 raises ``RateLimitError``. The deprecated v1 aliases
(``scrape_url``, ``crawl_url``, ``batch_scrape_urls``) call these methods, so they are covered. ``Firecrawl()`` binds its
client's methods when it is constructed, so clients built before instrumentation stay unwrapped.

``crawl`` (one start URL) and ``batch_scrape`` (a list of URLs) start a job and wait for it; the job's
``data`` is the pages read. Each is one search-kind span (as ``TavilyCrawl``): the query is the start URL (or
the first URL of the batch), the results are the pages, and each page's markdown is a document of the run
(one per URL). A job that ends ``failed`` or ``cancelled`` is an ``error``; one that read nothing ``empty``.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture import ToolSpec
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


def _search_pages(result: Any) -> list[tuple[str, str]] | None:
    """The scraped results' markdown (``scrape_options``): (URL, text) of each result that carries a page."""
    pages = [(url, text) for item in _search_items(result)
             if (url := _item_url(item)) and not _page_failed(item)
             and isinstance(text := getattr(item, "markdown", None), str) and text.strip()]
    return pages or None


def _index_items(result: Any) -> list[Any] | None:
    """``data.web`` of a Government Index answer, ``results`` of a developer index answer."""
    items = _shapes.items_attr(getattr(result, "data", None), "web")
    return items if items is not None else _shapes.items_attr(result, "results")


def _index_urls(result: Any) -> list[str] | None:
    items = _index_items(result)
    return None if items is None else [url for url in map(_item_url, items) if url]


def _scrape_text(result: Any) -> str | None:
    for key in ("markdown", "html", "raw_html", "summary"):
        value = getattr(result, key, None)
        if isinstance(value, str):
            return value
    return None


def _page_failed(item: Any) -> bool:
    """A scraped page whose own HTTP status (``metadata.status_code``) is a 4xx/5xx: its text is an error page."""
    code = getattr(getattr(item, "metadata", None), "status_code", None)
    return isinstance(code, int) and code >= 400


def _job_pages(result: Any) -> list[tuple[str, str]] | None:
    pages = [(url, text) for item in _shapes.items_attr(result, "data") or ()
             if (url := _item_url(item)) and not _page_failed(item) and (text := _scrape_text(item)) and text.strip()]
    return pages or None


def _job_urls(result: Any) -> list[str] | None:
    items = _shapes.items_attr(result, "data")
    return None if items is None else [url for url in map(_item_url, items) if url]


def _job_status(result: Any) -> str | None:
    return names.STATUS_ERROR if getattr(result, "status", None) in ("failed", "cancelled") else None


def _job_spec(name: str, arg: str) -> ToolSpec:
    return ToolSpec(name, names.TOOL_KIND_SEARCH,
                    query_from=lambda args, kwargs: _shapes.first_url(_shapes.arg(args, kwargs, 0, arg)),
                    result_urls=_job_urls, result_pages=_job_pages, classify=_job_status,
                    is_rate_limit=_shapes.rate_limited)


CRAWL = _job_spec("firecrawl.crawl", "url")
BATCH = _job_spec("firecrawl.batch_scrape", "urls")
SCRAPE = ToolSpec("firecrawl.scrape", names.TOOL_KIND_FETCH, result_text=_scrape_text,
                  is_rate_limit=_shapes.rate_limited)
SEARCH = ToolSpec("firecrawl.search", names.TOOL_KIND_SEARCH, result_urls=_search_urls,
                  result_count=_search_count, result_pages=_search_pages, is_rate_limit=_shapes.rate_limited)
GOV_SEARCH = ToolSpec("firecrawl.gov_search", names.TOOL_KIND_SEARCH, result_urls=_index_urls,
                      is_rate_limit=_shapes.rate_limited)
DEVELOPER_SEARCH = ToolSpec("firecrawl.developer_search", names.TOOL_KIND_SEARCH, result_urls=_index_urls,
                            is_rate_limit=_shapes.rate_limited)

ROWS = (
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.scrape", SCRAPE),
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.search", SEARCH),
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.gov_search", GOV_SEARCH),
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.developer_search", DEVELOPER_SEARCH),
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.crawl", CRAWL),
    Patch(DIST, "firecrawl.v2.client", "FirecrawlClient.batch_scrape", BATCH),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.scrape", SCRAPE, is_async=True),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.search", SEARCH, is_async=True),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.gov_search", GOV_SEARCH, is_async=True),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.developer_search", DEVELOPER_SEARCH,
          is_async=True),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.crawl", CRAWL, is_async=True),
    Patch(DIST, "firecrawl.v2.client_async", "AsyncFirecrawlClient.batch_scrape", BATCH, is_async=True),
)
