"""OpenAI: the Responses API's ``web_search`` tool, and the citations of search-model chat completions.

Responses: each ``web_search_call`` output item is one server-side call. ``action.type`` ``search`` is a
search (its ``query``, or its ``queries`` joined, and ``action.sources`` as the result URLs);
``open_page`` and ``find_in_page`` are page fetches with no text returned. The result URLs exist only when
the caller asked for ``include=["web_search_call.action.sources"]``: without it the search says
``citetrace.search.sources_reported=false`` and never counts as empty. Sources are the pages the model
consulted, so citing one counts as read. ``url_citation`` annotations on the output text are the model's
citations.

Chat Completions with a search model (``web_search_options``): one search per call with unreported sources,
and the ``url_citation`` annotations as citations.

Streams of ``responses.create(stream=True)`` (and ``responses.stream()``, which calls it) are read from
their ``response.completed`` / ``response.incomplete`` / ``response.failed`` event, which carries the whole
response.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.instrumentation._providers._record import (
    FETCH, SEARCH, CitedSpan, Folder, Reading, ServerCall, cited_span, field, response_wrapper,
)
from citetrace.instrumentation._providers._perplexity import carries_search, read_perplexity
from citetrace.instrumentation._table_types import Wrap

__all__ = ["ROWS", "read_response", "read_chat_completion"]

DIST = "openai"
PROVIDER = "openai"
_SOURCES = "web_search_call.action.sources"
_FINAL_EVENTS = frozenset({"response.completed", "response.incomplete", "response.failed"})


def _sources_asked(kwargs: dict[str, Any]) -> bool:
    include = kwargs.get("include")
    return isinstance(include, (list, tuple)) and any(str(i) == _SOURCES for i in include)


def _search_call(item: Any, asked: bool) -> ServerCall:
    action = field(item, "action")
    failed = field(item, "status") == "failed"
    kind = field(action, "type")
    call_id = field(item, "id")
    if kind in ("open_page", "find_in_page"):
        return ServerCall(PROVIDER, kind, FETCH, url=field(action, "url"), call_id=call_id,
                          status=names.STATUS_ERROR if failed else names.STATUS_OK)
    queries = field(action, "queries") or ()
    query = field(action, "query") or ("; ".join(str(q) for q in queries) if queries else None)
    sources = field(action, "sources")
    if sources is not None:
        urls: tuple[str, ...] | None = tuple(u for u in (field(s, "url") for s in sources) if isinstance(u, str))
    else:
        urls = () if asked else None
    status = names.STATUS_ERROR if failed else (names.STATUS_OK if urls is None else None)
    return ServerCall(PROVIDER, "web_search", SEARCH, query=query, urls=urls, status=status, call_id=call_id,
                      content_returned=True)


def _url_citations(annotations: Any, nested: bool = False) -> list[str]:
    out = []
    for ann in annotations or ():
        if field(ann, "type") == "url_citation":
            url = field(field(ann, "url_citation"), "url") if nested else field(ann, "url")
            if isinstance(url, str):
                out.append(url)
    return out


def _citation_spans(text: Any, annotations: Any, nested: bool = False) -> list[CitedSpan]:
    """Each ``url_citation``'s ``text[start_index:end_index]``: the span of the answer it cites."""
    out = []
    for ann in annotations or ():
        if field(ann, "type") == "url_citation":
            record = field(ann, "url_citation") if nested else ann
            span = cited_span(field(record, "url"), text, field(record, "start_index"), field(record, "end_index"),
                              "url_citation")
            if span is not None:
                out.append(span)
    return out


def read_response(response: Any, kwargs: dict[str, Any]) -> Reading:
    """A Responses API ``Response`` (or its JSON) -> its server-side calls and the model's citations."""
    asked = _sources_asked(kwargs)
    calls: list[ServerCall] = []
    cited: list[str] = []
    spans: list[CitedSpan] = []
    for item in field(response, "output") or ():
        kind = field(item, "type")
        if kind == "web_search_call":
            calls.append(_search_call(item, asked))
        elif kind == "message":
            for part in field(item, "content") or ():
                cited.extend(_url_citations(field(part, "annotations")))
                spans.extend(_citation_spans(field(part, "text"), field(part, "annotations")))
    return Reading(calls, cited, spans)


def read_chat_completion(completion: Any, kwargs: dict[str, Any]) -> Reading:
    """A search-model chat completion: one search with unreported sources, and the ``url_citation``s
    (a Perplexity completion through this client is read as Perplexity's)."""
    if carries_search(completion):
        return read_perplexity(completion, kwargs)
    messages = [field(choice, "message") for choice in field(completion, "choices") or ()]
    cited = [u for m in messages for u in _url_citations(field(m, "annotations"), nested=True)]
    spans = [s for m in messages for s in _citation_spans(field(m, "content"), field(m, "annotations"), nested=True)]
    searched = kwargs.get("web_search_options") is not None or bool(cited)
    calls = [ServerCall(PROVIDER, "web_search", SEARCH, urls=None, status=names.STATUS_OK)] if searched else []
    return Reading(calls, cited, spans)


class _ResponseFolder(Folder):
    """The whole response rides on the stream's last event."""

    def __init__(self) -> None:
        self._final: Any = None

    def add(self, event: Any) -> None:
        if field(event, "type") in _FINAL_EVENTS:
            self._final = field(event, "response")

    def final(self) -> Any:
        return self._final


def _rows() -> tuple[Wrap, ...]:
    rows = []
    for cls, is_async in (("Responses", False), ("AsyncResponses", True)):
        for method, folder in (("create", lambda stream: _ResponseFolder()), ("parse", None)):
            rows.append(Wrap(DIST, "openai.resources.responses.responses", f"{cls}.{method}",
                             response_wrapper(read_response, folder, is_async=is_async)))
    for cls, is_async in (("Completions", False), ("AsyncCompletions", True)):
        for method in ("create", "parse"):
            rows.append(Wrap(DIST, "openai.resources.chat.completions.completions", f"{cls}.{method}",
                             response_wrapper(read_chat_completion, None, is_async=is_async)))
    return tuple(rows)


ROWS = _rows()
