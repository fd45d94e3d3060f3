"""The one key under which a citation, a search result and a fetched URL for the same page compare equal.

``url_key`` is ``citetrace._urls.canonical_url`` applied after ``redact_url`` (fetch spans carry the redacted
``url.full``, so both sides must be redacted the same way), with ``http`` and ``https`` folded together as
``_urls.same_page`` does. It is memoised: agents see the same pages again and again, and the key is the
most expensive thing the summary computes.
"""

from __future__ import annotations

import functools

from citetrace._urls import canonical_url, redact_url

__all__ = ["url_key"]

_WEB_SCHEMES = frozenset({"http", "https"})


@functools.lru_cache(maxsize=16384)
def url_key(url: str) -> str:
    """The matching key of a URL: canonical form, redacted, without the http/https distinction."""
    canon = canonical_url(redact_url(url))
    scheme, sep, rest = canon.partition("://")
    if sep and scheme in _WEB_SCHEMES:
        return rest
    return canon
