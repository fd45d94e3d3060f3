"""Google Gen AI: grounding with Google Search (``types.Tool(google_search=...)``).

A candidate's ``grounding_metadata`` is one server-side search per response: ``web_search_queries`` (joined)
as the query, the ``grounding_chunks``' ``web.uri`` as its result URLs (the pages the answer was grounded on,
so citing one counts as read), and the chunks that ``grounding_supports`` point at as the model's citations.
The URIs are Google's ``grounding-api-redirect`` links (the Gemini API leaves ``web.domain`` unset), so
results and citations match each other, not the publisher's URL. A response with no grounding metadata did
not search. ``generate_content_stream`` is read from its last chunk that carries grounding metadata.
"""

from __future__ import annotations

import re
from typing import Any

from citetrace.instrumentation._providers._record import SEARCH, Reading, ServerCall, chunks_wrapper, field, response_wrapper
from citetrace.instrumentation._table_types import Wrap

__all__ = ["ROWS", "read_generate_content", "read_wire_json"]

DIST = "google-genai"
PROVIDER = "google"


def _grounding(response: Any) -> list[Any]:
    return [g for g in (field(c, "grounding_metadata") for c in field(response, "candidates") or ()) if g is not None]


def read_generate_content(response: Any, kwargs: dict[str, Any]) -> Reading:
    """A ``GenerateContentResponse`` -> one search per grounded candidate, and the supported chunks' URIs."""
    calls: list[ServerCall] = []
    cited: list[str] = []
    for meta in _grounding(response):
        chunks = [field(field(ch, "web"), "uri") for ch in field(meta, "grounding_chunks") or ()]
        queries = [str(q) for q in field(meta, "web_search_queries") or ()]
        calls.append(ServerCall(PROVIDER, "google_search", SEARCH, query="; ".join(queries) or None,
                                urls=tuple(u for u in chunks if isinstance(u, str)), content_returned=True))
        for support in field(meta, "grounding_supports") or ():
            for index in field(support, "grounding_chunk_indices") or ():
                if isinstance(index, int) and 0 <= index < len(chunks) and isinstance(chunks[index], str):
                    cited.append(chunks[index])
    return Reading(calls, cited)


def _snake(value: Any) -> Any:
    """The REST API's camelCase JSON keys in the SDK's snake_case (``groundingMetadata`` -> ``grounding_metadata``)."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)(?=[A-Z])", "_", str(k)).lower(): _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value


def read_wire_json(data: Any, kwargs: dict[str, Any]) -> Reading:
    """A ``generateContent`` answer as the REST API sends it (camelCase JSON), for the HTTP layer."""
    return read_generate_content(_snake(data), kwargs)


def _rows() -> tuple[Wrap, ...]:
    rows = []
    for cls, is_async in (("Models", False), ("AsyncModels", True)):
        rows.append(Wrap(DIST, "google.genai.models", f"{cls}.generate_content",
                         response_wrapper(read_generate_content, None, is_async=is_async)))
        rows.append(Wrap(DIST, "google.genai.models", f"{cls}.generate_content_stream",
                         chunks_wrapper(read_generate_content, lambda chunk: bool(_grounding(chunk)), is_async=is_async)))
    return tuple(rows)


ROWS = _rows()
