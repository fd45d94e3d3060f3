"""Opt-in URL rules: which plain-HTTP requests are fetches of another URL, and of which.

A reader service fetches a page for the agent: Jina Reader's ``GET https://r.jina.ai/<url>`` answers with
the text of ``<url>``. Such a request is a fetch of ``<url>``, not of ``r.jina.ai``, so citetrace stores the
text as the document of ``<url>`` and the fetch counts as reading it. Unlike the search endpoints (``_http``),
these rules are opt-in: only a rule named in ``CITETRACE_FETCH_RULES`` (or ``configure(fetch_rules=...)``)
ever makes a span, and no other request is touched.

The value is a comma-separated list of entries:

- ``jina_reader``: a rule citetrace ships (``SHIPPED``), turned on by its name;
- ``name=template``: a rule of your own. ``template`` is an ``http(s)`` URL holding ``{url}`` exactly once,
  either as the tail of the path (``https://reader.internal/fetch/{url}``: everything after the prefix,
  query string included, is the page's URL) or as the whole value of one query parameter
  (``https://proxy.internal/get?target={url}``: that parameter, URL-decoded, is the page's URL).

``name`` (letters, digits, ``_``, ``.``, ``-``) becomes the span's ``gen_ai.tool.name``. A page URL without a
scheme (``r.jina.ai/example.com``) is read as ``https://``. Kept free of heavy imports: ``config`` validates
with it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["FetchRule", "SHIPPED", "json_object", "match", "normalise", "parse_rules"]

_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_PLACEHOLDER = "{url}"


@dataclass(frozen=True)
class FetchRule:
    """One reader service: requests to ``host`` whose path starts with ``path`` fetch the page URL found
    at the path's tail (``param`` None) or in the query parameter ``param``."""

    name: str
    host: str
    path: str
    param: str | None = None
    methods: tuple[str, ...] = ("GET",)
    json_content: tuple[str, ...] = ()
    """Where a JSON answer keeps the page text (Jina's ``Accept: application/json``: ``data.content``)."""
    body_field: str | None = None
    """A POST to exactly ``path`` names the page in this field of its JSON body (Jina: ``{"url": ...}``)."""

    def target(self, method: str, path: str, query: str, body: Any = None) -> str | None:
        """The page URL a request fetches, or None when the request is not this rule's."""
        if method.upper() not in self.methods:
            return None
        if method.upper() == "POST" and self.body_field is not None:
            value = json_object(body).get(self.body_field) if path == self.path else None
            return _page_url(value) if isinstance(value, str) else None
        if self.param is None:
            if not path.startswith(self.path):
                return None
            tail = path[len(self.path):] + (f"?{query}" if query else "")
        else:
            if path != self.path:
                return None
            values = parse_qs(query).get(self.param)
            tail = values[0] if values else ""
        if self.param is None and not re.match(r"^https?:/", tail, flags=re.I):
            tail = unquote(tail)  # an encoded page URL (r.jina.ai/https%3A%2F%2F...); a plain one is kept as is
        return _page_url(tail)


def json_object(body: Any) -> Mapping[str, Any]:
    """A request body as a JSON object: a mapping as it is (aiohttp's ``json=`` before encoding), bytes or text
    parsed, anything else (no body, not JSON, a JSON list) an empty mapping. Shared with the HTTP search rules."""
    if isinstance(body, Mapping):
        return body
    if not isinstance(body, (bytes, str)) or not body:
        return {}
    try:
        data = json.loads(body)
    except (ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def _page_url(tail: str) -> str | None:
    tail = tail.strip()
    if not tail:
        return None
    # a path keeps one slash of "https://": r.jina.ai/https:/example.com after some proxies
    tail = re.sub(r"^(https?):/(?!/)", r"\1://", tail, flags=re.I)
    if not re.match(r"^https?://", tail, flags=re.I):
        if "://" in tail:
            return None  # ftp://, file://...: not a web page
        tail = "https://" + tail
    return tail if urlsplit(tail).hostname else None


SHIPPED: dict[str, FetchRule] = {
    # https://jina.ai/reader: GET r.jina.ai/<url>, or POST r.jina.ai/ with {"url": <url>}; with
    # Accept: application/json the answer is {"code": 200, "data": {"url", "title", "content"}}
    "jina_reader": FetchRule("jina_reader", "r.jina.ai", "/", methods=("GET", "POST"),
                             json_content=("data", "content"), body_field="url"),
}
"""The rules citetrace ships, each turned on by naming it."""


def _custom(name: str, template: str, entry: str) -> FetchRule:
    if not _NAME.match(name):
        raise ValueError(f"entry {entry!r}: rule name {name!r} may hold only letters, digits, _ . -")
    if template.count(_PLACEHOLDER) != 1:
        raise ValueError(f"entry {entry!r}: the template must hold {_PLACEHOLDER} exactly once")
    parts = urlsplit(template.replace(_PLACEHOLDER, "URL"))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"entry {entry!r}: the template must be an http(s) URL")
    host = parts.hostname.lower()
    if template.endswith(_PLACEHOLDER) and "?" not in template:
        path = parts.path[: -len("URL")]
        return FetchRule(name, host, path or "/")
    params = [(k, v) for k, v in parse_qs(parts.query, keep_blank_values=True).items()]
    holders = [k for k, values in params if values == ["URL"]]
    if len(holders) != 1 or parts.fragment:
        raise ValueError(f"entry {entry!r}: {_PLACEHOLDER} must end the path or be a whole query parameter value")
    return FetchRule(name, host, parts.path or "/", param=holders[0])


@lru_cache(maxsize=32)
def parse_rules(raw: str) -> tuple[FetchRule, ...]:
    """The rules a setting names, in order; a bad entry raises ``ValueError`` naming it."""
    rules: list[FetchRule] = []
    for entry in raw.split(","):
        entry = entry.strip()
        if not entry:
            continue
        name, sep, template = entry.partition("=")
        name, template = name.strip(), template.strip()
        if not sep:
            if name not in SHIPPED:
                raise ValueError(f"entry {entry!r}: unknown rule; shipped rules are {', '.join(sorted(SHIPPED))}, "
                                 "or give name=template")
            rules.append(SHIPPED[name])
        else:
            rules.append(_custom(name, template, entry))
    return tuple(rules)


def normalise(raw: str) -> str:
    """A validated rules string (the settings parser: bad input raises, naming the entry)."""
    parse_rules(raw.strip())
    return raw.strip()


def match(raw: str | None, method: str, url: str, body: Any = None) -> tuple[FetchRule, str] | None:
    """The opted-in rule a request falls under and the page URL it fetches; None for every other request."""
    if not raw:
        return None
    try:
        rules = parse_rules(raw)
    except ValueError:  # validated when read; a string that no longer parses turns nothing on
        return None
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    for rule in rules:
        if rule.host == host:
            target = rule.target(method, parts.path or "/", parts.query, body)
            if target is not None:
                return rule, target
    return None
