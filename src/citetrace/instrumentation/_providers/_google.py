"""Google Gen AI: grounding with Google Search (``types.Tool(google_search=...)``).

A candidate's ``grounding_metadata`` is one server-side search per response: ``web_search_queries`` (joined)
as the query, the ``grounding_chunks``' ``web.uri`` as its result URLs (the pages the answer was grounded on,
so citing one counts as read), and the chunks that ``grounding_supports`` point at as the model's citations.
The URIs are Google's ``grounding-api-redirect`` links (the Gemini API leaves ``web.domain`` unset), so
results and citations match each other, not the publisher's URL. A response with no grounding metadata did
not search, nor did one whose metadata names no web search query and no web chunk (empty, or grounding on a
Vertex AI Search / RAG data store). ``generate_content_stream`` is read from its last chunk that carries grounding metadata.
"""

from __future__ import annotations

import re
from typing import Any

from citetrace.instrumentation._providers._record import (
    SEARCH, CitedSpan, Reading, ServerCall, chunks_wrapper, cited_span, field, response_wrapper,
)
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
    spans: list[CitedSpan] = []
    for candidate, meta in _grounded(response):
        chunks = [field(field(ch, "web"), "uri") for ch in field(meta, "grounding_chunks") or ()]
        queries = [str(q) for q in field(meta, "web_search_queries") or ()]
        if not queries and not any(isinstance(u, str) for u in chunks):
            continue  # no web search: empty metadata, or grounding on a data store (retrieved_context chunks)
        calls.append(ServerCall(PROVIDER, "google_search", SEARCH, query="; ".join(queries) or None,
                                urls=tuple(u for u in chunks if isinstance(u, str)), content_returned=True))
        for support in field(meta, "grounding_supports") or ():
            text = _segment_text(candidate, field(support, "segment"))
            for index in field(support, "grounding_chunk_indices") or ():
                if isinstance(index, int) and 0 <= index < len(chunks) and isinstance(chunks[index], str):
                    cited.append(chunks[index])
                    span = cited_span(chunks[index], text, None, None, "grounding_support")
                    if span is not None:
                        spans.append(span)
    return Reading(calls, cited, spans)


def _grounded(response: Any) -> list[tuple[Any, Any]]:
    return [(c, g) for c in field(response, "candidates") or () if (g := field(c, "grounding_metadata")) is not None]


def _segment_text(candidate: Any, segment: Any) -> str | None:
    """The answer text a grounding support covers: its ``segment.text``, else the segment's byte range
    (``start_index``/``end_index``, end exclusive) of the part it names."""
    text = field(segment, "text")
    if isinstance(text, str) and text.strip():
        return text
    parts = field(field(candidate, "content"), "parts") or ()
    index = field(segment, "part_index") or 0
    start, end = field(segment, "start_index") or 0, field(segment, "end_index")
    if not (isinstance(index, int) and 0 <= index < len(parts) and isinstance(end, int)):
        return None
    part = field(parts[index], "text")
    if not isinstance(part, str) or not isinstance(start, int):
        return None
    return part.encode("utf-8")[start:end].decode("utf-8", "replace")


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
