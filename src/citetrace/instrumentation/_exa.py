"""Exa (``exa-py``): ``search``, ``search_and_contents``, ``find_similar``, ``find_similar_and_contents``,
``get_contents`` and ``answer``, sync and async.

Results are ``SearchResponse`` objects whose ``.results`` carry ``.url`` and ``.text``. exa-py 2 returns text
contents from ``search`` by default, so each search row stores the page texts that come with its results
(``result_pages``). ``find_similar`` searches by a URL: that URL is the span's query. ``answer`` returns an
``AnswerResponse``: its ``.citations`` (``AnswerResult`` with ``.url`` and, with ``text=True``, ``.text``) are
the results, their texts documents of the run; the answer's own text is Exa's model output, not a source,
and is not stored. ``get_contents`` fetches one URL or a list in one call: each URL's text is its own document,
and each URL Exa reports failed in ``statuses`` a failed document with its HTTP status (the span is ``ok`` when
any URL was read). The streaming ``stream_search``/``stream_answer`` are not wrapped. Exa reports any
HTTP failure as ``ValueError("Request failed with status code 429: ...")``; the status in the message is
what makes a 429 ``rate_limited``.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "exa-py"


def _contents_text(result: Any) -> str | None:
    return _shapes.join_texts(_shapes.items_attr(result, "results"), ("text", "summary"))


def _pages_of(items: list[Any] | None) -> list[tuple[str, str]] | None:
    pages = [(item.url, item.text) for item in items or ()
             if isinstance(getattr(item, "url", None), str) and isinstance(getattr(item, "text", None), str)
             and item.text.strip()]
    return pages or None


def _result_pages(result: Any) -> list[tuple[str, str]] | None:
    return _pages_of(_shapes.items_attr(result, "results"))


def _contents_documents(result: Any) -> list[tuple[str, str, str | None, int | None]] | None:
    """``get_contents``: each result's text under its URL, and each URL Exa could not read (``statuses`` with
    ``status="error"``) as a failed document with its HTTP status."""
    items = _shapes.items_attr(result, "results")
    if items is None:
        return None
    docs: list[tuple[str, str, str | None, int | None]] = [
        (item.url, item.text if isinstance(getattr(item, "text", None), str) else "", None, None)
        for item in items if isinstance(getattr(item, "url", None), str)]
    for status in _shapes.items_attr(result, "statuses") or ():
        if getattr(status, "status", None) == "error" and isinstance(getattr(status, "id", None), str):
            code = getattr(getattr(status, "error", None), "http_status_code", None)
            code = code if isinstance(code, int) else None
            docs.append((status.id, "", names.STATUS_RATE_LIMITED if code == 429 else names.STATUS_ERROR, code))
    return docs


def _citation_urls(result: Any) -> list[str] | None:
    items = _shapes.items_attr(result, "citations")
    return None if items is None else [c.url for c in items if isinstance(getattr(c, "url", None), str)]


def _search_spec(name: str, **hooks: Any) -> ToolSpec:
    return ToolSpec(name, names.TOOL_KIND_SEARCH, result_pages=_result_pages, is_rate_limit=_shapes.rate_limited,
                    **hooks)


SEARCH = _search_spec("exa.search")
SEARCH_AND_CONTENTS = _search_spec("exa.search_and_contents")
_BY_URL = {"query_from": lambda args, kwargs: _shapes.first_url(_shapes.arg(args, kwargs, 0, "url"))}
FIND_SIMILAR = _search_spec("exa.find_similar", **_BY_URL)
FIND_SIMILAR_AND_CONTENTS = _search_spec("exa.find_similar_and_contents", **_BY_URL)
ANSWER = ToolSpec("exa.answer", names.TOOL_KIND_SEARCH, result_urls=_citation_urls,
                  result_pages=lambda r: _pages_of(_shapes.items_attr(r, "citations")),
                  is_rate_limit=_shapes.rate_limited)
GET_CONTENTS = ToolSpec(
    "exa.get_contents",
    names.TOOL_KIND_FETCH,
    url_from=_shapes.url_list_from(0, "urls"),
    result_text=_contents_text,
    result_documents=_contents_documents,
    is_rate_limit=_shapes.rate_limited,
)

ROWS = (
    Patch(DIST, "exa_py.api", "Exa.search", SEARCH),
    Patch(DIST, "exa_py.api", "Exa.search_and_contents", SEARCH_AND_CONTENTS),
    Patch(DIST, "exa_py.api", "Exa.get_contents", GET_CONTENTS),
    Patch(DIST, "exa_py.api", "Exa.find_similar", FIND_SIMILAR),
    Patch(DIST, "exa_py.api", "Exa.find_similar_and_contents", FIND_SIMILAR_AND_CONTENTS),
    Patch(DIST, "exa_py.api", "Exa.answer", ANSWER),
    Patch(DIST, "exa_py.api", "AsyncExa.search", SEARCH, is_async=True),
    Patch(DIST, "exa_py.api", "AsyncExa.search_and_contents", SEARCH_AND_CONTENTS, is_async=True),
    Patch(DIST, "exa_py.api", "AsyncExa.get_contents", GET_CONTENTS, is_async=True),
    Patch(DIST, "exa_py.api", "AsyncExa.find_similar", FIND_SIMILAR, is_async=True),
    Patch(DIST, "exa_py.api", "AsyncExa.find_similar_and_contents", FIND_SIMILAR_AND_CONTENTS, is_async=True),
    Patch(DIST, "exa_py.api", "AsyncExa.answer", ANSWER, is_async=True),
)
