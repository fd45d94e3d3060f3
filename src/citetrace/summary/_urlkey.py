"""The one key under which a citation, a search result and a fetched URL for the same page compare equal.

The key is ``citetrace._urls.canonical_url`` with ``http`` and ``https`` folded together (as
``_urls.same_page`` does). URLs on spans were already passed through ``redact_url`` by capture (result lists
and ``url.full`` alike), so ``span_url_key`` only canonicalises them; citations come raw from the answer, so
``url_key`` redacts them first, the same way (redaction is idempotent, so both sides meet in one form).

The key is the most expensive thing the summary computes (``canonical_url`` costs about 5 us), and a run
sees hundreds of result URLs, so ``span_url_key`` has a fast path for the common shape (lower-case
http(s) host, unreserved path characters, simple ``k=v`` query) that produces exactly what the full
function would (property-tested against it), and both are memoised.
"""

from __future__ import annotations

import functools
import re
from typing import Collection

from citetrace._urls import _TRACKING, _TRACKING_PREFIXES, canonical_url, redact_url

__all__ = ["url_key", "span_url_key", "span_url_keys", "canonical_key", "clear_cache"]

_WEB_SCHEMES = frozenset({"http", "https"})
_Q = r"[A-Za-z0-9._~-]"
_FAST = re.compile(rf"https?://([a-z0-9.-]+)(/[A-Za-z0-9._~/-]*)?(?:\?({_Q}+={_Q}*(?:&{_Q}+={_Q}*)*))?(?:#.*)?")
_CACHE_MAX = 65536
_cache: dict[str, str] = {}


def _tracking(key: str) -> bool:
    k = key.lower()
    return k in _TRACKING or k.startswith(_TRACKING_PREFIXES)


def canonical_key(url: str) -> str:
    """``canonical_url`` without the http/https distinction (the reference the fast path must equal)."""
    canon = canonical_url(url)
    scheme, sep, rest = canon.partition("://")
    if sep and scheme in _WEB_SCHEMES:
        return rest
    return canon


def span_url_key(url: str) -> str:
    """The key of a URL as capture recorded it on a span (already redacted)."""
    key = _cache.get(url)
    if key is None:
        key = _span_url_key(url)
        if len(_cache) >= _CACHE_MAX:
            _cache.clear()  # cheaper than LRU bookkeeping on every miss; agents' URL sets are small
        _cache[url] = key
    return key


def span_url_keys(urls: Collection[str]) -> set[str]:
    """The set of keys of many span URLs; memoised keys are looked up without a Python-level loop."""
    keys = list(map(_cache.get, urls))
    if None in keys:
        return {span_url_key(u) if k is None else k for u, k in zip(urls, keys)}
    return set(keys)  # type: ignore[arg-type]  # no None left


def clear_cache() -> None:
    """Forget memoised keys (benchmarks and tests)."""
    _cache.clear()
    url_key.cache_clear()


def _span_url_key(url: str) -> str:
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


@functools.lru_cache(maxsize=4096)
def url_key(url: str) -> str:
    """The key of a raw URL (a citation): redacted as capture redacts, then canonical."""
    return span_url_key(redact_url(url))  # the fast path equals canonical_key (property-tested)
