"""Crawl4AI: ``AsyncWebCrawler.arun``, and through it ``arun_many`` and deep crawls, as fetches.

``arun(url)`` returns a ``CrawlResultContainer`` proxying one ``CrawlResult``: ``success``, ``status_code``,
``error_message`` and ``markdown`` (a str with ``raw_markdown``). It never raises for a failed page: a 4xx/5xx,
an anti-bot block, a refused connection all come back as a result. So the row classifies the result:

- a 4xx/5xx ``status_code`` is ``error`` (``rate_limited`` for a 429), with the status on the span;
- ``success`` False with no status (a navigation or connection failure; the non-browser
  ``AsyncHTTPCrawlerStrategy`` reports a 4xx/5xx this way, "HTTP 429: Unexpected status code") is ``error``,
  ``rate_limited`` when the message names a 429;
- ``success`` False after a 2xx is crawl4ai's anti-bot verdict: a near-empty page is ``empty`` by its size,
  a page with text (a challenge or block page) is ``error``; its text is not the page the agent asked for.

The stored text is the page's full markdown (``raw_markdown``, before any content filter), so the citation
checks see everything the agent could have read. A ``raw:`` input is HTML the caller already has: it is recorded
under the URL ``raw:``, never with the HTML in the span or the store's URL.

One call, many URLs: ``arun_many(urls)`` hands each URL to its dispatcher, which calls ``arun`` once per URL
(and again for each rate-limit retry) in tasks that copy the caller's context. So a multi-URL fetch is one
fetch span per URL attempt, each with its own status and its own stored document, under whatever span was
current at the ``arun_many`` call; an ``arun_many`` is never a single (false) empty. A deep crawl
(``deep_crawl_strategy``) is the same: every page it visits is an ``arun`` of its own. ``AsyncWebCrawler``
decorates ``arun`` on the instance in ``__init__``, so a crawler built before instrumentation keeps the
unwrapped method.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "crawl4ai"
_HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")


def _url(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    url = _shapes.arg(args, kwargs, 0, "url")
    if not isinstance(url, str):
        return None
    return "raw:" if url.startswith("raw:") else url


def _text(result: Any) -> str | None:
    markdown = getattr(result, "markdown", None)
    raw = getattr(markdown, "raw_markdown", None)
    if isinstance(raw, str):
        return raw
    if isinstance(markdown, str):
        return markdown
    return "" if getattr(result, "success", None) is not None else None


def _status(result: Any) -> str | None:
    """None (the default: a 4xx/5xx ``status_code`` is an error, else ok or empty by size) except for the failed
    results that carry no 4xx/5xx status."""
    success = getattr(result, "success", None)
    if success is not False:
        return None
    code = getattr(result, "status_code", None)
    if isinstance(code, int) and code >= 400:
        return None
    message = getattr(result, "error_message", None) or ""
    if code is None:
        found = _HTTP_STATUS.search(message)
        return names.STATUS_RATE_LIMITED if found and found.group(1) == "429" else names.STATUS_ERROR
    text = _text(result) or ""
    return None if not text.strip() or "near-empty" in message.lower() else names.STATUS_ERROR


ARUN = ToolSpec("crawl4ai.arun", names.TOOL_KIND_FETCH, url_from=_url, result_text=_text, classify=_status,
                is_rate_limit=_shapes.rate_limited)

ROWS = (Patch(DIST, "crawl4ai.async_webcrawler", "AsyncWebCrawler.arun", ARUN, is_async=True),)
