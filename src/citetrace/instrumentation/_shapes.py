"""Result-shape and exception helpers shared by the per-library table modules.

They only read what a library returned or raised; nothing here imports a wrapped library.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, Mapping, Sequence

from citetrace import names
from citetrace._urlfind import url_spans
from citetrace.capture._internal import extract_urls, http_status_of_exc, is_rate_limit_exc
from citetrace.instrumentation import _probe

__all__ = [
    "exception_chain",
    "rate_limited",
    "markdown_links",
    "kept_failure",
    "kept_search_failure",
    "probe_classify",
    "unrecovered_429",
    "first_url",
    "items_attr",
    "join_texts",
    "says_429",
    "no_results_exception",
    "arg",
    "url_list_from",
    "tavily_extract_documents",
]

_STATUS_429 = re.compile(r"status(?:\s+code)?[:=\s]+429\b|\b429\s+(?:client error|too many requests)", re.I)


def exception_chain(exc: BaseException, limit: int = 6) -> Iterator[BaseException]:
    """``exc``, exceptions passed as its args, its cause and its context (bounded, no repeats)."""
    todo: list[BaseException] = [exc]
    seen: set[int] = set()
    while todo and len(seen) < limit:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo.extend(a for a in current.args if isinstance(a, BaseException))
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                todo.append(linked)


def rate_limited(exc: BaseException) -> bool:
    """A rate limit anywhere in the chain, a 429 in the message, or a 429 the probe saw during the call."""
    if _probe.saw(429):
        return True
    for current in exception_chain(exc):
        if is_rate_limit_exc(current, http_status_of_exc(current)):
            return True
        if says_429(str(current)):
            return True
    return False


def says_429(text: str) -> bool:
    """Whether an error message reports an HTTP 429."""
    return _STATUS_429.search(text) is not None


def no_results_exception(*messages: str) -> Callable[[BaseException], str | None]:
    """A ``classify_exception`` hook for libraries that RAISE when a search finds nothing: an exception
    whose message starts with one of ``messages`` is ``empty``, unless the probe saw the HTTP layer fail
    (a 429 is ``rate_limited``, any other 4xx/5xx falls back to the default, ``error``)."""

    def hook(exc: BaseException) -> str | None:
        if _probe.saw(429):
            return names.STATUS_RATE_LIMITED
        if not str(exc).startswith(messages) or _probe.saw_failure():
            return None
        return names.STATUS_EMPTY

    return hook


def unrecovered_429(result: Any) -> bool:
    """The call met a 429 and did not get past it: its last HTTP status is the 429, or it gave nothing back.
    A 429 that a retry (urllib3's ``Retry``, trafilatura's own strategy) or another backend (ddgs) got past
    is not the call's outcome: the call returned what it came for."""
    return _probe.saw(429) and (_probe.last_status() == 429 or not result)


def kept_failure(result: Any) -> str | None:
    """For the user's own functions (``CITETRACE_TOOLS``), which may keep a failure instead of raising (a
    search returning ``[]`` on a 429, a fetch returning a 404 page's text): ``rate_limited`` or ``error``
    when the call's last HTTP status is a 429 or another 4xx/5xx, else the default classification."""
    last = _probe.last_status()
    if last is None or last < 400:
        return None
    return names.STATUS_RATE_LIMITED if last == 429 else names.STATUS_ERROR


def kept_search_failure(result: Any) -> str | None:
    """``kept_failure`` for a search: only when it returned no result URL (a search that found results and
    then met a 404 on something else, a thumbnail, a page it also tried, still found its results)."""
    status = kept_failure(result)
    return status if status is not None and not extract_urls(result)[0] else None


def probe_classify(result: Any) -> str | None:
    """``rate_limited`` when the call met a 429 it did not recover from, else the default classification."""
    return names.STATUS_RATE_LIMITED if unrecovered_429(result) else None


def swallowed_failure(result: Any) -> str | None:
    """A ``classify`` hook for retrievers that catch their failures and return nothing: ``rate_limited`` when
    the call met a 429 it did not recover from, ``error`` when it saw another 4xx/5xx and nothing came back,
    else the default (``empty`` for no results)."""
    if unrecovered_429(result):
        return names.STATUS_RATE_LIMITED
    if not result and _probe.saw_failure():
        return names.STATUS_ERROR
    return None


def markdown_links(text: Any) -> list[str] | None:
    """URLs of ``[title](url)`` links in a markdown string (None for non-strings)."""
    if not isinstance(text, str):
        return None
    return [text[s:e] for s, e in url_spans(text) if text[max(0, s - 2):s] == "]("]


def first_url(value: Any) -> str | None:
    """A URL argument that may be a list of URLs: its first string."""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        for item in value:
            if isinstance(item, str):
                return item
            url = getattr(item, "url", None)
            if isinstance(url, str):
                return url
    return None


def arg(args: Sequence[Any], kwargs: Mapping[str, Any], index: int, name: str) -> Any:
    """A call's argument by keyword, else by position."""
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else None


def url_list_from(index: int, name: str) -> Callable[[Sequence[Any], Mapping[str, Any]], str | None]:
    """A ``url_from`` hook for an argument that is one URL or a list of them."""

    def hook(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
        return first_url(arg(args, kwargs, index, name))

    return hook


def items_attr(result: Any, attr: str) -> list[Any] | None:
    """``result.<attr>`` (or ``result[attr]``) when it is a list."""
    value = result.get(attr) if isinstance(result, Mapping) else getattr(result, attr, None)
    return list(value) if isinstance(value, (list, tuple)) else None


def join_texts(items: Sequence[Any] | None, keys: Sequence[str]) -> str | None:
    """The first string field among ``keys`` of each item, joined by blank lines (None when nothing)."""
    if not items:
        return None
    parts: list[str] = []
    for item in items:
        for key in keys:
            value = item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)
            if isinstance(value, str) and value:
                parts.append(value)
                break
    return "\n\n".join(parts) if parts else None


def tavily_extract_documents(result: Any) -> list[tuple[str, str, str | None, int | None]] | None:
    """Tavily's extract answer (``results``, ``failed_results``; tavily-python and langchain-tavily): each page
    read under its own URL, and each failed URL as a failed document (a 429 in its error text is
    ``rate_limited``)."""
    if not isinstance(result, dict) or not isinstance(result.get("results"), list):
        return None
    docs: list[tuple[str, str, str | None, int | None]] = []
    for item in result["results"]:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            text = item.get("raw_content") or item.get("content")
            docs.append((item["url"], text if isinstance(text, str) else "", None, None))
    for item in result.get("failed_results") or ():
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            failed = names.STATUS_RATE_LIMITED if says_429(str(item.get("error", ""))) else names.STATUS_ERROR
            docs.append((item["url"], "", failed, None))
    return docs


def tavily_result_pages(result: Any) -> list[tuple[str, str]] | None:
    """Tavily search results' page text (``include_raw_content``): each a document of the run, read with its
    search (``pages_from_search``). One reader for tavily-python's and langchain-tavily's rows."""
    pages = [(item["url"], item["raw_content"]) for item in items_attr(result, "results") or ()
             if isinstance(item, Mapping) and isinstance(item.get("url"), str)
             and isinstance(item.get("raw_content"), str) and item["raw_content"].strip()]
    return pages or None
