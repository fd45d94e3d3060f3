"""The one URL identity: canonical form and the key under which the summary, the store, eval and the gate
compare a citation, a search result and a fetched page. Redaction lives in ``citetrace._redact`` and the
extractor in ``citetrace._urlfind``; both are re-exported here.

Canonical form (documented in the README): scheme and host lower-cased; userinfo and default ports (80 for
http, 443 for https) dropped; ``www.`` kept (it can be a different site); empty path becomes ``/`` and a
trailing slash on any longer path is dropped; the fragment is dropped; common tracking parameters (``utm_*``,
``gclid``, ``fbclid``, ``mc_cid``, ``mc_eid``, ``ref_src``, ``igshid``, ``msclkid``, ``_ga``, ``yclid``...) are
removed; the remaining query parameters keep their order and values.

The key (``url_key``) is the canonical form of the *redacted* URL, with ``http`` and ``https`` folded together.
Capture records URLs redacted while an answer or a ``--report`` file cites them raw; since redaction is
idempotent, both meet in one key, and a key never holds a secret.
"""

from __future__ import annotations

import re
from typing import Collection
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from citetrace._redact import REDACTED, redact_text, redact_url, redact_urls
from citetrace._urlfind import first_url, url_spans, urls_in

__all__ = [
    "canonical_url", "url_key", "url_keys", "canonical_key", "clear_key_cache", "find_urls", "url_spans",
    "urls_in", "first_url", "same_page", "host_of", "redact_url", "redact_urls", "redact_text", "REDACTED",
]

_TRACKING_PREFIXES = ("utm_",)
_TRACKING = frozenset(
    {"gclid", "fbclid", "mc_cid", "mc_eid", "ref_src", "igshid", "msclkid", "_ga", "yclid", "dclid", "_hsenc", "_hsmi"}
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_WEB_SCHEMES = frozenset({"http", "https"})
_ERRORS = "surrogatepass"  # a lone surrogate (\ud800) gets a stable key instead of an exception


def _tracking(key: str) -> bool:
    k = key.lower()
    return k in _TRACKING or k.startswith(_TRACKING_PREFIXES)


def canonical_url(url: str) -> str:
    """The canonical form of a URL (http and https still distinct); any string in, never an exception."""
    raw = url.strip()
    try:
        parts = urlsplit(raw)
    except ValueError:
        return raw
    try:
        port = parts.port
    except ValueError:
        port = None
    scheme = parts.scheme.lower()
    if scheme not in _WEB_SCHEMES:
        return raw
    host = (parts.hostname or "").rstrip(".")
    netloc = host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc = f"{host}:{port}"
    path = quote(unquote(parts.path), safe="/:@!$&'()*+,;=-._~%", errors=_ERRORS)
    if not path:
        path = "/"
    elif len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _tracking(k)]
    return urlunsplit((scheme, netloc, path, urlencode(query, doseq=True, errors=_ERRORS), ""))


def canonical_key(url: str) -> str:
    """``canonical_url`` without the http/https distinction, no redaction (the reference of the fast path)."""
    canon = canonical_url(url)
    scheme, sep, rest = canon.partition("://")
    if sep and scheme in _WEB_SCHEMES:
        return rest
    return canon


# The key is the most expensive thing the summary computes (canonical_url costs about 5 µs) and a run sees
# hundreds of result URLs, so the common shape (lower-case http(s) host, unreserved path characters, simple
# k=v query) has a fast path that produces exactly what canonical_key would (property-tested), and keys are
# memoised.
_Q = r"[A-Za-z0-9._~-]"
_FAST = re.compile(rf"https?://([a-z0-9.-]+)(/[A-Za-z0-9._~/-]*)?(?:\?({_Q}+={_Q}*(?:&{_Q}+={_Q}*)*))?(?:#.*)?")
_CACHE_MAX = 65536
_cache: dict[str, str] = {}


def _key_of(url: str) -> str:
    url = redact_url(url)
    m = _FAST.fullmatch(url)
    if m is None:
        return canonical_key(url)
    host, path, query = m.group(1).rstrip("."), m.group(2) or "/", m.group(3)
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    if query:
        kept = [pair for pair in query.split("&") if not _tracking(pair.partition("=")[0])]
        if kept:
            return f"{host}{path}?{'&'.join(kept)}"
    return host + path


def url_key(url: str) -> str:
    """The one key of a URL, raw or already redacted: two URLs name the same page when their keys are equal."""
    key = _cache.get(url)
    if key is None:
        key = _key_of(url)
        if len(_cache) >= _CACHE_MAX:
            _cache.clear()  # cheaper than LRU bookkeeping on every miss; agents' URL sets are small
        _cache[url] = key
    return key


def url_keys(urls: Collection[str]) -> set[str]:
    """The set of keys of many URLs; memoised keys are looked up without a Python-level loop."""
    keys = list(map(_cache.get, urls))
    if None in keys:
        return {url_key(u) if k is None else k for u, k in zip(urls, keys)}
    return set(keys)  # type: ignore[arg-type]  # no None left


def clear_key_cache() -> None:
    """Forget memoised keys (benchmarks and tests)."""
    _cache.clear()


def same_page(a: str, b: str) -> bool:
    """True when two URLs name the same page (equal keys)."""
    return url_key(a) == url_key(b)


def host_of(url: str) -> str | None:
    """The lower-cased host of a URL, or None."""
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def find_urls(text: str) -> list[str]:
    """URLs in a text, in order of first appearance, de-duplicated by key (markdown links, angle brackets,
    reference lists and bare URLs alike; see ``citetrace._urlfind`` for where a URL ends)."""
    seen: set[str] = set()
    found: list[str] = []
    for url in urls_in(text):
        key = url_key(url)
        if key not in seen:
            seen.add(key)
            found.append(url)
    return found
