"""The documented search endpoints citetrace recognises at the HTTP layer, and how to read each.

Most deep-research agents call Serper, Tavily, Brave, Bing, You.com, SerpAPI, Google Custom Search, Exa or
Jina's search with ``requests``/``httpx`` directly, never through an SDK. Each endpoint here is an exact
host (and path prefix): no other host ever becomes a span this way. Reading is pure: the query from the
request (JSON body or URL parameters), the result URLs and any page text from the documented JSON response.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping
from urllib.parse import parse_qs, unquote, urlsplit

from citetrace._fetchrules import json_object

__all__ = ["Endpoint", "ENDPOINTS", "HOSTS", "match", "RequestInfo", "Results"]


@dataclass(frozen=True)
class RequestInfo:
    """What a request said: method, URL parts, parameters and JSON body (empty when not JSON)."""

    method: str
    host: str
    path: str
    params: Mapping[str, str]
    body: Mapping[str, Any]


@dataclass(frozen=True)
class Results:
    """What a response said: result URLs and the page texts that came with some of them."""

    urls: list[str]
    pages: list[tuple[str, str]]


@dataclass(frozen=True)
class Endpoint:
    """One search API: where it answers, and how to read its request and response."""

    name: str
    host: str
    path: str
    query: Callable[[RequestInfo], str | None]
    results: Callable[[Any], Results]
    method: str = "POST"
    reads: str = ""
    """The response fields read, for docs/coverage.md (the query's source is found from ``query`` itself)."""


def _items(data: Any, *path: str) -> list[Any]:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, list) else []


def _urls(items: list[Any], key: str, text_keys: tuple[str, ...] = ()) -> Results:
    urls: list[str] = []
    pages: list[tuple[str, str]] = []
    for item in items:
        url = item.get(key) if isinstance(item, dict) else None
        if isinstance(url, str) and url:
            urls.append(url)
            text = next((item[k] for k in text_keys if isinstance(item.get(k), str) and item[k].strip()), None)
            if text is not None:
                pages.append((url, text))
    return Results(urls, pages)


def _body(key: str) -> Callable[[RequestInfo], str | None]:
    return lambda r: r.body.get(key) if isinstance(r.body.get(key), str) else None


def _param(key: str) -> Callable[[RequestInfo], str | None]:
    return lambda r: r.params.get(key)


def _jina_query(r: RequestInfo) -> str | None:
    tail = r.path.lstrip("/")
    return unquote(tail) if tail else (_param("q")(r) or _body("q")(r))


ENDPOINTS: tuple[Endpoint, ...] = (
    # Tavily: raw_content (include_raw_content=True) is the page's text; content is a snippet
    Endpoint("tavily", "api.tavily.com", "/search", _body("query"),
             lambda d: _urls(_items(d, "results"), "url", ("raw_content",)),
             reads="`results[].url`; page text from `raw_content`"),
    Endpoint("serper", "google.serper.dev", "/search", _body("q"), lambda d: _urls(_items(d, "organic"), "link"),
             reads="`organic[].link`"),
    Endpoint("serper", "google.serper.dev", "/news", _body("q"), lambda d: _urls(_items(d, "news"), "link"),
             reads="`news[].link`"),
    # Serper also answers GET with URL parameters (smolagents' GoogleSearchTool calls it so)
    Endpoint("serper", "google.serper.dev", "/search", _param("q"), lambda d: _urls(_items(d, "organic"), "link"),
             method="GET", reads="`organic[].link`"),
    Endpoint("serper", "google.serper.dev", "/news", _param("q"), lambda d: _urls(_items(d, "news"), "link"),
             method="GET", reads="`news[].link`"),
    Endpoint("serpapi", "serpapi.com", "/search", _param("q"),
             lambda d: _urls(_items(d, "organic_results"), "link"), method="GET",
             reads="`organic_results[].link`"),
    Endpoint("brave", "api.search.brave.com", "/res/v1/web/search", _param("q"),
             lambda d: _urls(_items(d, "web", "results"), "url"), method="GET", reads="`web.results[].url`"),
    Endpoint("bing", "api.bing.microsoft.com", "/v7.0/search", _param("q"),
             lambda d: _urls(_items(d, "webPages", "value"), "url"), method="GET", reads="`webPages.value[].url`"),
    Endpoint("you", "api.ydc-index.io", "/search", _param("query"),
             lambda d: _urls(_items(d, "hits") or _items(d, "results", "web"), "url"), method="GET",
             reads="`hits[].url` or `results.web[].url`"),
    Endpoint("google_cse", "www.googleapis.com", "/customsearch/v1", _param("q"),
             lambda d: _urls(_items(d, "items"), "link"), method="GET", reads="`items[].link`"),
    # Exa: with contents, each result carries its text
    Endpoint("exa", "api.exa.ai", "/search", _body("query"), lambda d: _urls(_items(d, "results"), "url", ("text",)),
             reads="`results[].url`; page text from `text`"),
    # Jina search: s.jina.ai/<query> answers JSON with each page's content
    Endpoint("jina", "s.jina.ai", "/", _jina_query, lambda d: _urls(_items(d, "data"), "url", ("content",)),
             method="GET",
             reads="query also from the path (`s.jina.ai/<query>`); `data[].url`; page text from `content`"),
)
"""Every recognised endpoint (a host may appear more than once, with different paths)."""

HOSTS = frozenset(e.host for e in ENDPOINTS)
"""The hosts to look at; any other request is passed through after one set lookup."""


def match(method: str, url: str, body: bytes | str | Mapping[str, Any] | None) -> tuple[Endpoint, RequestInfo] | None:
    """The endpoint a request goes to, with what the request said; None for every other request."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host not in HOSTS:
        return None
    path = parts.path or "/"
    endpoint = next((e for e in ENDPOINTS if e.host == host and path.startswith(e.path)
                     and e.method == method.upper()), None)
    if endpoint is None:
        return None
    params = {k: v[0] for k, v in parse_qs(parts.query).items() if v}
    return endpoint, RequestInfo(method.upper(), host, path, params, json_object(body))


