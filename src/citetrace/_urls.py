"""URL canonical form and redaction, shared by capture, summary, store and eval.

Canonical form (documented in the README): scheme and host lower-cased; default ports (80 for http, 443 for
https) dropped; ``www.`` kept (it can be a different site); empty path becomes ``/`` and a trailing slash on
any longer path is dropped; the fragment is dropped; common tracking parameters (``utm_*``, ``gclid``,
``fbclid``, ``mc_cid``, ``mc_eid``, ``ref_src``, ``igshid``, ``msclkid``, ``_ga``, ``yclid``) are removed;
the remaining query parameters keep their order and values. ``http`` and ``https`` stay distinct only in
``canonical_url``; ``same_page`` treats them as the same page.
"""

from __future__ import annotations

import re
from typing import Sequence
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

__all__ = [
    "canonical_url", "find_urls", "redact_url", "redact_urls", "redact_text", "same_page", "host_of", "REDACTED"
]

REDACTED = "REDACTED"

_TRACKING_PREFIXES = ("utm_",)
_TRACKING = frozenset(
    {"gclid", "fbclid", "mc_cid", "mc_eid", "ref_src", "igshid", "msclkid", "_ga", "yclid", "dclid", "_hsenc", "_hsmi"}
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_SECRET_KEY = re.compile(
    r"(^|[_\-.])(key|apikey|api_key|token|access_token|auth|authorization|secret|password|passwd|pwd|"
    r"signature|sig|x-amz-signature|x-amz-credential|x-goog-signature|credential|session|sessionid|code)($|[_\-.])",
    re.IGNORECASE,
)
_TEXT_SECRETS = re.compile(
    r"(?i)\b(sk-[A-Za-z0-9_\-]{8,}|tvly-[A-Za-z0-9_\-]{8,}|fc-[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|"
    r"AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9\-]{10,}|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]+)"
)


# A cheap superset of both patterns above, matched against the lower-cased query and fragment only (a case-
# sensitive alternation of literals is ~7x faster than an IGNORECASE one): every key shape starts with one of
# the first group, every secret key name contains one of the second; "%" may hide either.
_TAIL_HINT = re.compile(
    r"%|sk-|tvly-|fc-|gh[pousr]_|akia|xox[abpr]-|eyj|key|token|auth|secret|passw|pwd|sig|credential|session|code"
)


def _is_secret_key(key: str) -> bool:
    k = key.lower()
    return bool(_SECRET_KEY.search(k)) or k in {"key", "token", "sig", "code"}


def canonical_url(url: str) -> str:
    """The one form in which a citation and a search result for the same page compare equal."""
    raw = url.strip()
    try:
        parts = urlsplit(raw)
    except ValueError:
        return raw
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return raw
    host = (parts.hostname or "").rstrip(".")
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc = f"{host}:{port}"
    path = quote(unquote(parts.path), safe="/:@!$&'()*+,;=-._~%")
    if not path:
        path = "/"
    elif len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if k.lower() not in _TRACKING and not k.lower().startswith(_TRACKING_PREFIXES)
    ]
    return urlunsplit((scheme, netloc, path, urlencode(query, doseq=True), ""))


def same_page(a: str, b: str) -> bool:
    """True when two URLs name the same page (canonical form, ignoring http versus https)."""
    ca, cb = canonical_url(a), canonical_url(b)
    if ca == cb:
        return True
    return ca.split("://", 1)[-1] == cb.split("://", 1)[-1] and ca.split("://", 1)[0] in ("http", "https")


def host_of(url: str) -> str | None:
    """The lower-cased host of a URL, or None."""
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _tail_at(url: str) -> int:
    """Where the query or fragment starts (the first "?" or "#"), or the length of the URL."""
    q = url.find("?")
    h = url.find("#", 0, q if q >= 0 else len(url))
    if h >= 0:
        return h
    return q if q >= 0 else len(url)


def _redact_params(qs: str) -> str:
    pairs = parse_qsl(qs, keep_blank_values=True)
    if not any(_is_secret_key(k) for k, _ in pairs):
        return qs
    return "&".join(f"{quote(k, safe='')}={REDACTED if _is_secret_key(k) else quote(v, safe='')}" for k, v in pairs)


def redact_url(url: str) -> str:
    """Remove credentials, secret-looking parameters (keys, tokens, signatures) and API-key shapes.

    Secrets travel in a URL's userinfo (``user:pw@``), its query, and a ``key=value`` fragment (the OAuth
    implicit flow's ``#access_token=``); those are redacted. The scheme, host and path are left alone: a path
    names a page (``/sk-hynix-q3-results``), and masking it would make two pages one.
    """
    if "@" not in url:
        at = _tail_at(url)
        if at == len(url) or _TAIL_HINT.search(url[at:].lower()) is None:
            return url  # no userinfo, and nothing in the query or fragment that could be a secret
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}:{REDACTED}@" + netloc.rsplit("@", 1)[1]
    query = redact_text(_redact_params(parts.query)) if parts.query else ""
    fragment = parts.fragment
    if fragment:
        fragment = redact_text(_redact_params(fragment) if "=" in fragment else fragment)
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


_TAILS = re.compile(r"\?[^\n]*")  # each query (and fragment, once "#" reads as "?") of a newline-joined batch
_last_clean: list[list[str]] = [[]]  # the last batch found clean (one slot: a dict memo costs never-seen URLs more)


def redact_urls(urls: Sequence[str]) -> list[str]:
    """``redact_url`` over a list (search results), checking the whole batch at once first.

    Result lists are almost always clean and mostly pages not seen before, so this is a few C-level scans of
    the joined text (no "@", no hint in any query or fragment) instead of work per URL. A batch that might
    need redaction takes the per-URL path. The last clean batch is remembered, so a repeated query (or a
    retried one) costs one list comparison.
    """
    if urls == _last_clean[0]:
        return list(urls)
    joined = "\n".join(urls)
    if "@" in joined or joined.count("\n") != len(urls) - 1:
        return [redact_url(u) for u in urls]
    fragments = "#" in joined
    if fragments or "?" in joined:
        tails = "\n".join(_TAILS.findall(joined.replace("#", "?") if fragments else joined)).lower()
        if _TAIL_HINT.search(tails) is not None:
            return [redact_url(u) for u in urls]
    clean = list(urls)
    _last_clean[0] = clean[:]  # a copy the caller cannot change
    return clean


def redact_text(text: str) -> str:
    """Mask well-known API-key shapes inside free text (arguments, queries)."""
    return _TEXT_SECRETS.sub(REDACTED, text)


_FIND_URL = re.compile(r"https?://[^\s<>\"'`\]\[]+")
_TRAILING = ".,;:!?*_'\""


def find_urls(text: str) -> list[str]:
    """URLs in a report, in order of first appearance, de-duplicated by canonical form.

    Handles markdown links ``[t](url)``, angle brackets, reference lists and bare URLs; trailing punctuation
    and an unbalanced closing parenthesis are not part of the URL.
    """
    seen: set[str] = set()
    found: list[str] = []
    for match in _FIND_URL.finditer(text):
        url = match.group(0)
        while url and (url[-1] in _TRAILING or (url[-1] == ")" and url.count("(") < url.count(")"))):
            url = url[:-1]
        if len(url) <= len("https://"):
            continue
        key = canonical_url(url)
        if key not in seen:
            seen.add(key)
            found.append(url)
    return found
