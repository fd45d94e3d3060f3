"""Perplexity Sonar: every answer searched server-side; ``search_results`` are what it returned,
``citations`` (URL strings) what the model cited.

One search per response that carries ``search_results`` (Perplexity does not report the query). The model
answers from those results, so citing one counts as read. Streams carry the same fields on their chunks;
the last chunk that has them is read when the stream ends. Perplexity through the OpenAI client
(``base_url="https://api.perplexity.ai"``) puts the same fields in the chat completion's extra fields, and
the OpenAI reader hands such a completion here.
"""

from __future__ import annotations

from typing import Any

from citetrace import names

from citetrace.instrumentation._providers._record import (
    SEARCH, CitedSpan, Folder, Reading, ServerCall, cited_span, field, response_wrapper,
)
from citetrace.instrumentation._table_types import Wrap

__all__ = ["ROWS", "read_perplexity", "carries_search"]

DIST = "perplexityai"
PROVIDER = "perplexity"


def carries_search(response: Any) -> bool:
    """Whether a completion carries Perplexity's search fields."""
    return isinstance(field(response, "search_results"), list) or isinstance(field(response, "citations"), list)


def read_perplexity(response: Any, kwargs: dict[str, Any]) -> Reading:
    """A Sonar completion (or chunk) -> its search and the model's citations."""
    results = field(response, "search_results")
    listed = list(field(response, "citations") or ())
    cited = [u for u in listed if isinstance(u, str)]
    spans = _markers(listed)
    if not isinstance(results, list):
        calls = [ServerCall(PROVIDER, "search", SEARCH, urls=None, status="ok")] if cited else []
        return Reading(calls, cited, spans)
    urls = tuple(u for u in (field(r, "url") for r in results) if isinstance(u, str))
    return Reading([ServerCall(PROVIDER, "search", SEARCH, urls=urls, content_returned=True)], cited, spans)


def _markers(listed: list[Any]) -> list[CitedSpan]:
    """The answer cites ``citations[n-1]`` with a bare ``[n]`` marker: each marker is the span citing it."""
    return [s for n, url in enumerate(listed, 1)
            if (s := cited_span(url, f"[{n}]", None, None, names.MODEL_CITATION_NUMBERED)) is not None]


class _LastWithResults(Folder):
    def __init__(self) -> None:
        self._last: Any = None

    def add(self, event: Any) -> None:
        if carries_search(event):
            self._last = event

    def final(self) -> Any:
        return self._last


def _rows() -> tuple[Wrap, ...]:
    return (
        Wrap(DIST, "perplexity.generated.api", "ChatCompletionsResource.create",
             response_wrapper(read_perplexity, lambda stream: _LastWithResults(), is_async=False)),
        Wrap(DIST, "perplexity.generated.api", "AsyncClientChatCompletionsResource.create",
             response_wrapper(read_perplexity, lambda stream: _LastWithResults(), is_async=True)),
    )


ROWS = _rows()
