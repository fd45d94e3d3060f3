"""The tool spec of one recognised request: a search endpoint (``_endpoints``) or an opted-in fetch rule
(``citetrace._fetchrules``). The response is read once (``_transports.reply_of``) and every hook answers
from that one reading.

A search's status, count, URLs and page text come from the documented JSON; an error status is
``rate_limited`` (429) or ``error`` and its body is never read as results; a body that is not the documented
JSON (or was not read: streamed, too large) is ``ok`` with no count, never a false ``empty``. A fetch's URL is
the page the reader service fetched, and its text (or a JSON answer's ``json_content`` field) is stored as
that page's document; an error status stores no page text.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from citetrace import names
from citetrace._fetchrules import FetchRule
from citetrace.capture import ToolSpec
from citetrace.instrumentation._http._endpoints import Endpoint, RequestInfo, Results
from citetrace.instrumentation._http._transports import Reply

__all__ = ["fetch_spec", "search_spec"]

Read = Callable[[Any], Reply]
"""response -> what it said (memoised by the caller's spec)."""


def _memo(read: Read) -> Read:
    cache: dict[int, Reply] = {}

    def once(response: Any) -> Reply:
        key = id(response)
        if key not in cache:
            cache.clear()
            cache[key] = read(response)
        return cache[key]

    return once


def _status_class(status: int | None) -> str | None:
    if status is not None and status >= 400:
        return names.STATUS_RATE_LIMITED if status == 429 else names.STATUS_ERROR
    return None


def search_spec(endpoint: Endpoint, info: RequestInfo, read: Read) -> ToolSpec:
    """One search call to ``endpoint``; ``read`` gives the response's reply."""
    reply = _memo(read)
    parsed: dict[int, Results | None] = {}

    def results(response: Any) -> Results | None:
        key = id(response)
        if key not in parsed:
            parsed.clear()
            parsed[key] = _parse(endpoint, reply(response))
        return parsed[key]

    def classify(response: Any) -> str | None:
        failed = _status_class(reply(response).status)
        if failed is not None:
            return failed
        return names.STATUS_OK if results(response) is None else None

    def urls(response: Any) -> list[str]:
        found = results(response)  # never None: capture would read URLs off the response object itself
        return found.urls if found is not None else []

    def pages(response: Any) -> list[tuple[str, str]] | None:
        found = results(response)
        return found.pages if found is not None else None

    def count(response: Any) -> int | None:
        found = results(response)
        return len(found.urls) if found is not None else None

    return ToolSpec(name=f"{endpoint.name}_search", kind=names.TOOL_KIND_SEARCH,
                    query_from=lambda args, kwargs: endpoint.query(info), result_urls=urls, result_count=count,
                    result_pages=pages, classify=classify, description=f"{endpoint.name} search API over plain HTTP")


def _parse(endpoint: Endpoint, reply: Reply) -> Results | None:
    if reply.body is None or reply.status is None or reply.status >= 400:
        return None
    try:
        return endpoint.results(json.loads(reply.body))
    except Exception:  # noqa: BLE001 - not the documented JSON: an unknown shape, not an empty search
        return None


def fetch_spec(rule: FetchRule, target: str, read: Read) -> ToolSpec:
    """One fetch of ``target`` through the reader service ``rule`` describes."""
    reply = _memo(read)

    def text(response: Any) -> str | None:
        seen = reply(response)
        if _status_class(seen.status) is not None:
            return ""  # an error page is not the page's text
        page = _page_text(rule, seen)
        return page if page is not None else ""  # never None: capture would read the response object itself

    def classify(response: Any) -> str | None:
        seen = reply(response)
        failed = _status_class(seen.status)
        if failed is not None:
            return failed
        return names.STATUS_OK if seen.text is None else None  # not read (streamed): unknown, never empty

    def body(response: Any) -> tuple[bytes, str | None] | None:
        seen = reply(response)  # what every client's response said, read once: a PDF is read from these bytes
        if seen.body is None or _status_class(seen.status) is not None:
            return None
        return seen.body, seen.content_type

    return ToolSpec(name=rule.name, kind=names.TOOL_KIND_FETCH, url_from=lambda args, kwargs: target,
                    result_text=text, result_body=body, classify=classify,
                    description=f"{rule.name} reader over plain HTTP")


def _page_text(rule: FetchRule, reply: Reply) -> str | None:
    if reply.text is None:
        return None
    if rule.json_content and reply.text.lstrip().startswith("{"):
        try:
            data: Any = json.loads(reply.text)
        except ValueError:
            return reply.text
        for key in rule.json_content:
            data = data.get(key) if isinstance(data, dict) else None
        if isinstance(data, str):
            return data
    return reply.text
