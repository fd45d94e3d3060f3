"""DuckDuckGo: ``ddgs.DDGS.text``/``.news`` and the older ``duckduckgo_search.DDGS.text``/``.news``.

Both return a list of dicts (``href`` for text, ``url`` for news). Both talk HTTP through ``primp`` (a Rust
client), so the 429 is seen by a probe on the last Python function above it. ddgs 9 turns every failure,
429s included, into ``DDGSException("No results found.")``; the probe is what tells an empty search
(every engine answered 200 with nothing) from a rate limit (a 429) and an error (any other 4xx/5xx).
``ddgs.DDGS.extract(url, fmt)`` is a fetch: it returns ``{"url", "content"}`` (markdown, plain or rich text,
HTML, or bytes for ``fmt="content"``) and raises ``DDGSException("Failed to fetch <url>: HTTP <status>")``
on any non-200, which the probe makes ``rate_limited`` for a 429 and ``error`` otherwise.
duckduckgo_search raises ``RatelimitException``, wrapped as the argument of a
``DuckDuckGoSearchException``; the exception-chain check finds it.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.capture._internal import decode_bytes
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch, Probe

__all__ = ["ROWS"]


def _response_status(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Any:
    return getattr(result, "status_code", None)


def _extracted_text(result: Any) -> str | None:
    """The extracted content (``fmt="content"`` gives bytes, decoded in the page's own encoding for the store)."""
    content = result.get("content") if isinstance(result, dict) else None
    if isinstance(content, bytes):
        return decode_bytes(content)  # the page's own encoding (capture's one decoder)
    return content if isinstance(content, str) else None


_NOTHING = _shapes.no_results_exception("No results found.")
DDGS_TEXT = ToolSpec("ddgs.text", names.TOOL_KIND_SEARCH, classify=_shapes.probe_classify,
                     is_rate_limit=_shapes.rate_limited, classify_exception=_NOTHING)
DDGS_NEWS = ToolSpec("ddgs.news", names.TOOL_KIND_SEARCH, classify=_shapes.probe_classify,
                     is_rate_limit=_shapes.rate_limited, classify_exception=_NOTHING)
DDGS_EXTRACT = ToolSpec("ddgs.extract", names.TOOL_KIND_FETCH, url_from=_shapes.url_list_from(0, "url"), result_text=_extracted_text,
                        classify=_shapes.probe_classify, is_rate_limit=_shapes.rate_limited)
LEGACY_TEXT = ToolSpec("duckduckgo_search.text", names.TOOL_KIND_SEARCH, is_rate_limit=_shapes.rate_limited)
LEGACY_NEWS = ToolSpec("duckduckgo_search.news", names.TOOL_KIND_SEARCH, is_rate_limit=_shapes.rate_limited)

ROWS = (
    Patch("ddgs", "ddgs.ddgs", "DDGS.text", DDGS_TEXT),
    Patch("ddgs", "ddgs.ddgs", "DDGS.news", DDGS_NEWS),
    Patch("ddgs", "ddgs.ddgs", "DDGS.extract", DDGS_EXTRACT),
    Probe("ddgs", "ddgs.http_client", "HttpClient.request", _response_status),
    Patch("duckduckgo-search", "duckduckgo_search.duckduckgo_search", "DDGS.text", LEGACY_TEXT),
    Patch("duckduckgo-search", "duckduckgo_search.duckduckgo_search", "DDGS.news", LEGACY_NEWS),
)
