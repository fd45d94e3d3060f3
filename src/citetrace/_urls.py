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


# Cheap supersets of the two patterns above for the fast path of ``redact_url``, matched against the
# lower-cased URL (case-sensitive patterns of literals are ~7x faster than IGNORECASE alternations):
# every secret key name contains one of these fragments, every key shape starts with one of these prefixes.
_SECRET_KEY_HINT = re.compile(r"key|token|auth|secret|passw|pwd|sig|credential|session|code")
_TEXT_SECRET_HINT = re.compile(r"sk-|tvly-|fc-|gh[pousr]_|akia|xox[abpr]-|eyj")


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


def redact_url(url: str) -> str:
    """Remove credentials and secret-looking query parameter values (keys, tokens, signatures)."""
    low = url.lower()
    if "@" not in url and not _TEXT_SECRET_HINT.search(low):
        q = low.find("?")
        if q < 0 or ("%" not in url and not _SECRET_KEY_HINT.search(low, q)):
            return url  # nothing that could be a credential, a secret parameter or a key shape
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}:{REDACTED}@" + netloc.rsplit("@", 1)[1]
    if parts.query:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        if any(_is_secret_key(k) for k, _ in pairs):
            query = "&".join(
                f"{quote(k, safe='')}={REDACTED if _is_secret_key(k) else quote(v, safe='')}" for k, v in pairs
            )
        else:
            query = parts.query
    else:
        query = ""
    return redact_text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


# For ``redact_urls``: key shapes need one of these literals (``gh[pousr]_`` is checked only when "_" occurs);
# a secret query parameter needs a "?" and one of ``_SECRET_KEY_HINT``'s fragments after it in that URL.
_GITHUB_SHAPE = re.compile(r"gh[pousr]_")


_CLEAN_CAP = 8192
_clean: dict[str, None] = {}  # URLs a batch check found clean (a clean batch means each URL in it is clean)


def redact_urls(urls: Sequence[str]) -> list[str]:
    """``redact_url`` over a list (search results), checking the whole batch at once first.

    Result lists are almost always clean; a few substring scans of the joined, lower-cased text cost a
    fraction of one ``redact_url`` per URL. Anything that might need redaction takes the per-URL path.
    """
    clean = _clean
    for url in urls:
        if url not in clean:
            break
    else:
        return list(urls)  # every URL already checked clean (agents see the same pages again and again)
    joined = "\n".join(urls)
    if "@" in joined or "%" in joined or joined.count("\n") != len(urls) - 1:
        return [redact_url(u) for u in urls]
    low = joined.lower()
    if (
        "sk-" in low or "fc-" in low or "tvly-" in low or "xox" in low or "akia" in low or "eyj" in low
        or ("_" in low and _GITHUB_SHAPE.search(low) is not None)
    ):
        return [redact_url(u) for u in urls]
    q = low.find("?")
    while q >= 0:  # only a URL's query part (from "?" to the end of that URL) can hold a secret parameter
        end = low.find("\n", q)
        if end < 0:
            end = len(low)
        if _SECRET_KEY_HINT.search(low, q, end) is not None:
            return [redact_url(u) for u in urls]
        q = low.find("?", end)
    if len(clean) > _CLEAN_CAP:
        clean.clear()  # bounded: start over rather than track recency on the hot path
    for url in urls:
        clean[url] = None
    return list(urls)


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
