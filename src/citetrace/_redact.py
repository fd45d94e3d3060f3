"""Secret redaction, applied centrally: URLs, free text (exception messages, queries, arguments), argument
structures and report text. Every sink (span attributes and events, the store, eval, gate, ``show``) gets its
text through one of these functions.

What counts as a secret (documented in docs/privacy.md):

- a URL's userinfo (``user:pw@``);
- a parameter whose name says key, token, secret, password, signature, credential, session or auth, in any case
  style (``api_key``, ``apiKey``, ``X-Api-Key``, ``accessToken``, ``clientSecret``, ``sessionId``), in the
  query, in a ``key=value`` fragment (OAuth's ``#access_token=``) or as a path parameter (``;jsessionid=``);
  ``code`` (OAuth) counts in URLs only; a URL or form nested in a parameter's value (``redirect_uri=``,
  ``next=``) is redacted inside, a few levels deep;
- well-known key shapes anywhere in a query, fragment or free text: ``sk-``, ``sk_live_``/``rk_live_``,
  ``tvly-``, ``fc-``, ``ghp_``/``github_pat_``, ``AKIA``/``ASIA``, ``AIza``, ``hf_``, ``xox[abpr]-``, ``xapp-``,
  ``whsec_``, ``ya29.``, ``glpat-``, ``npm_`` and JWTs;
- private key blocks and the userinfo of a URL of any scheme (``postgresql://bob:pw@db``) wherever key shapes
  are masked;
- in free text, also ``Bearer``/``Basic`` credentials and ``name: value`` / ``name=value`` pairs with a
  secret name.

Path segments are left alone on purpose: a path names a page (``/tech/sk-hynix-q3-results``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Sequence
from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from citetrace._urlfind import url_spans

__all__ = [
    "REDACTED",
    "SPAN_CONTENT_CHARS",
    "is_secret_name",
    "mask_key_shapes",
    "redact_url",
    "redact_urls",
    "redact_text",
    "redact_report",
    "redact_arguments",
    "sink_safe",
]

REDACTED = "REDACTED"
SPAN_CONTENT_CHARS = 262_144
"""Captured content on a span (the answer, the question, a query) is cut here, after redaction: one 20 MB answer
made its batch's OTLP export a 413 (serve's 16 MiB cap, a collector's 4 MiB), losing the other runs in the
batch. The store keeps the whole text; ``citetrace.answer.hash`` is the hash of the whole answer."""

_WORDS = (
    r"key|apikey|token|auth|authorization|secret|password|passwd|pwd|signature|sig|credential|credentials|"
    r"session|sessionid|jsessionid|phpsessid|cookie|bearer|accesstoken|authtoken|refreshtoken|idtoken|"
    r"clientsecret|secretkey|accesskey|privatekey|sessiontoken|apitoken|authkey|"
    r"cookies|tokens|secrets|passwords"  # plurals: ``cookies={"sid": ...}`` is requests' cookie jar
)
_SECRET_WORD = re.compile(rf"(?:^|[_\-.\s])(?:{_WORDS})(?:$|[_\-.\s])")
_URL_ONLY_NAMES = frozenset({"code"})  # OAuth's authorization code: a secret in a URL, a common word in prose
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

_KEY_SHAPES = re.compile(
    r"\b(?:sk-[A-Za-z0-9_\-]{8,}|[sr]k_(?:live|test)_[A-Za-z0-9]{8,}|tvly-[A-Za-z0-9_\-]{8,}|fc-[A-Za-z0-9]{16,}|"
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,}|"
    r"hf_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9\-]{10,}|xapp-[A-Za-z0-9\-]{10,}|whsec_[A-Za-z0-9]{20,}|"
    r"ya29\.[A-Za-z0-9_\-]{20,}|glpat-[A-Za-z0-9_\-]{20,}|npm_[A-Za-z0-9]{36}|"
    r"eyJ[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]+)",
    re.IGNORECASE,
)
# A private key block, whole or cut off (a service-account JSON in an error message quotes one)
_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----.*?(?:-----END \1PRIVATE KEY-----|\Z)", re.DOTALL)
# The userinfo of a URL of any scheme in text (``postgresql://bob:pw@db``, ``redis://:pw@cache``, ``wss://``):
# http(s) URLs in text go through redact_url; the others get only this
_USERINFO = re.compile(r"(?i)(?<![\w+.\-])([a-z][a-z0-9+.\-]*+://)[^\s/?#@'\"<>]*+@")
_AUTH_SCHEME = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{6,}")
# A name starts only where a word does (the lookbehind) and is taken whole (``*+``): a name could start anywhere
# before, so one long token (a base64 body in an exception message) cost quadratic time: 40,000 letters took 27 s.
# It starts with a letter or "_", never a digit: "[::1:8080/?accessToken=1" would read as the name "1" with the
# value "8080/?accessToken=1" and hide the secret name behind it
_NAMED_VALUE = re.compile(
    r"(?i)(?<![\w.\-])([^\W\d][\w.\-]*+)([\"']?\s*[:=]\s*[\"']?)((?:bearer\s+|basic\s+|token\s+)?[^\s\"'&,;}\])]+)"
)
_CUT_MARGIN = 4096  # see redact_text(limit=)
_NOT_A_NAME = ("error", "exception", "warning")  # "KeyError: 'x'" in a traceback names a class, not a secret

# A cheap superset of the secret names and key shapes, searched in the lower-cased query and fragment only. It
# is factored by first letter on purpose: the regex engine tries every alternative at each position whose
# character starts one, so a flat list of 28 literals cost 1.4x the old 18; grouped, it costs what they did
# (0.59 against 0.60 µs on ten result queries, thread CPU time). Case-sensitive, because IGNORECASE is ~7x
# slower; "%" may hide either. A shape whose first letter no other alternative has enters by a substring under
# one that does ("pm_" for npm_, "hsec_" for whsec_, "a29." for ya29.): a new first letter ("n") made every
# such character a candidate, +4,500 instructions on ten query URLs, against none this way.
_TAIL_HINT = re.compile(
    r"%|s(?:k(?:-|_live|_test)|ecret|ig|ession)|rk_(?:live|test)|t(?:vly-|oken)|fc-|g(?:h[pousr]_|ithub_pat_|lpat-)|"
    r"a(?:kia|sia|iza|uth|29\.)|h(?:f_|sec_)|x(?:oxa-|oxb-|oxp-|oxr-|app-)|eyj|key|p(?:assw|wd|hpsess|m_)|"
    r"c(?:redential|ookie|ode)|bearer"
)


_SURROGATE = re.compile("[\ud800-\udfff]")


def sink_safe(text: str) -> str:
    """``text`` with lone surrogates (``\\ud800``) replaced by U+FFFD: UTF-8 sinks (OTLP protobuf, SQLite) refuse
    them, and one in a URL or a page must never cost a span attribute, a summary or a store write."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


def is_secret_name(name: str, *, in_url: bool = True) -> bool:
    """True for a parameter or argument name that holds a secret (``api_key``, ``apiKey``, ``X-Api-Key``...)."""
    low = _CAMEL.sub("_", name).lower()
    if not in_url and low.endswith(_NOT_A_NAME):
        return False
    if _SECRET_WORD.search(low) is not None:
        return True
    return in_url and low in _URL_ONLY_NAMES


def mask_key_shapes(text: str) -> str:
    """Mask well-known API-key shapes (``sk-...``, ``ghp_...``, ``AIza...``, JWTs...), private key blocks and the
    userinfo of a URL of any scheme (``postgresql://bob:pw@db``) inside text."""
    text = _KEY_SHAPES.sub(REDACTED, text)
    if "PRIVATE KEY-----" in text:
        text = _PEM.sub(REDACTED, text)
    if "://" in text and "@" in text:
        text = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}:{REDACTED}@", text)
    return text


def _tail_at(url: str) -> int:
    """Where the query or fragment starts (the first "?" or "#"), or the length of the URL."""
    q = url.find("?")
    h = url.find("#", 0, q if q >= 0 else len(url))
    if h >= 0:
        return h
    return q if q >= 0 else len(url)


_NESTING = 3  # URLs and forms inside parameter values are redacted this many levels deep
_SEPARATORS = {"&": re.compile("(&)"), ";": re.compile("(;)"), "&;": re.compile("([&;])")}


def _redact_params(qs: str, sep: str = "&", depth: int = 0) -> str:
    """``name=value`` pairs with each secret-named value replaced, and each other value that holds a URL or a
    form (``redirect_uri=https://b/cb?access_token=...``, ``next=`` percent-encoded, ``data=client_secret%3D...``)
    redacted inside, ``_NESTING`` levels deep. A query is split at ";" as well as "&" (some servers take both).
    Pairs that hold no secret are kept byte for byte."""
    seps = "&;" if sep == "&" and ";" in qs else sep
    pieces = _SEPARATORS[seps].split(qs)
    changed = False
    for i in range(0, len(pieces), 2):  # the odd items are the separators themselves
        raw_name, eq, raw_value = pieces[i].partition("=")
        name = unquote_plus(raw_name)
        if is_secret_name(name):
            piece = f"{quote(name, safe='')}={REDACTED}"
        elif eq and ("=" in raw_value or "%" in raw_value or "://" in raw_value):
            value = unquote_plus(raw_value)
            inner = _redact_nested(value, depth + 1)
            if inner == value:
                continue
            encoded = raw_value != value or "&" in inner or "#" in inner
            piece = f"{raw_name}={quote(inner, safe='') if encoded else inner}"
        else:
            continue
        if piece != pieces[i]:
            pieces[i] = piece
            changed = True
    return "".join(pieces) if changed else qs


def _redact_nested(value: str, depth: int) -> str:
    """A parameter's decoded value with the URLs (redacted as URLs) and the form (``a=1&token=x``) in it redacted;
    past ``_NESTING`` levels, a value that may hold a secret is replaced whole."""
    if depth > _NESTING:
        return REDACTED if _TAIL_HINT.search(value.lower()) is not None else value
    if "://" in value:
        return _map_urls(value, mask_key_shapes, lambda url: _redact_url_parts(url, depth))
    if "=" in value:
        return mask_key_shapes(_redact_params(value, "&", depth))
    return value


def _redact_path_params(path: str) -> str:
    """``/cart;jsessionid=ABC`` -> ``/cart;jsessionid=REDACTED`` (matrix parameters with a secret name)."""
    segments = path.split("/")
    for i, segment in enumerate(segments):
        if ";" in segment and "=" in segment:
            head, _, params = segment.partition(";")
            segments[i] = head + ";" + _redact_params(params, ";", _NESTING)
    return "/".join(segments)


def redact_url(url: str) -> str:
    """Remove credentials, secret-named parameters and API-key shapes from a URL (idempotent).

    Secrets travel in a URL's userinfo (``user:pw@``), its query, a ``key=value`` fragment and ``;name=value``
    path parameters; those are redacted. The scheme, host and path segments are left alone: a path names a
    page (``/sk-hynix-q3-results``), and masking it would make two pages one.
    """
    if not url.isascii():
        url = sink_safe(url)
    if "@" not in url and ";" not in url:
        at = _tail_at(url)
        if at == len(url) or _TAIL_HINT.search(url[at:].lower()) is None:
            return url  # no userinfo, no path parameter, and nothing in the query or fragment that could be a secret
    return _redact_url_parts(url, 0)


def _redact_url_parts(url: str, depth: int) -> str:
    """``redact_url`` past its early return; ``depth`` counts the URLs this one is nested in (query values)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not parseable as a URL (an unclosed "[" in the host): treat it as text
        return _redact_prose(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}:{REDACTED}@" + netloc.rsplit("@", 1)[1]
    path = _redact_path_params(parts.path) if ";" in parts.path else parts.path
    query = mask_key_shapes(_redact_params(parts.query, "&", depth)) if parts.query else ""
    fragment = parts.fragment
    if fragment:
        fragment = mask_key_shapes(_redact_params(fragment, "&", depth) if "=" in fragment else fragment)
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


_TAILS = re.compile(r"\?[^\n]*")  # each query (and fragment, once "#" reads as "?") of a newline-joined batch
_last_clean: list[list[str]] = [[]]  # the last batch found clean (one slot: a dict memo costs never-seen URLs more)


def redact_urls(urls: Sequence[str]) -> list[str]:
    """``redact_url`` over a list (search results), checking the whole batch at once first.

    Result lists are almost always clean and mostly pages not seen before, so this is a few C-level scans of
    the concatenated URLs (no "@", ";" or newline, no lone surrogate; then no hint in any query or fragment)
    instead of work per URL. The checks are exactly ``redact_url``'s own early return, applied to all URLs at
    once, so a batch found clean is what ``redact_url`` would return URL by URL; any other batch takes the
    per-URL path. A batch with no "?" or "#" at all skips the query scan. The last clean batch is remembered,
    so a repeated query (or a retried one) costs one list comparison.
    """
    if urls == _last_clean[0]:
        return list(urls)
    flat = "".join(urls)  # one C-level pass; every single-character test below is a memchr over it
    if "@" in flat or ";" in flat or "\n" in flat or (not flat.isascii() and _SURROGATE.search(flat) is not None):
        return [redact_url(u) for u in urls]
    fragments = "#" in flat
    if fragments or "?" in flat:
        joined = "\n".join(urls)  # no URL holds a newline (checked above), so each tail ends at its own URL's end
        tails = "\n".join(_TAILS.findall(joined.replace("#", "?") if fragments else joined)).lower()
        if _TAIL_HINT.search(tails) is not None:
            return [redact_url(u) for u in urls]
    clean = list(urls)
    _last_clean[0] = clean[:]  # a copy the caller cannot change
    return clean


def _map_urls(text: str, between: Callable[[str], str], each: Callable[[str], str] | None = None) -> str:
    """``text`` with every URL passed through ``each`` (``redact_url``) and every stretch between URLs through
    ``between``."""
    each = each or redact_url
    out: list[str] = []
    last = 0
    for start, end in url_spans(text):
        out.append(between(text[last:start]))
        out.append(each(text[start:end]))
        last = end
    out.append(between(text[last:]))
    return "".join(out)


def _named_value(match: re.Match[str]) -> str:
    if not is_secret_name(match.group(1), in_url=False):
        return match.group(0)
    return match.group(1) + match.group(2) + REDACTED


def _redact_prose(text: str) -> str:
    text = mask_key_shapes(text)
    text = _AUTH_SCHEME.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    return _NAMED_VALUE.sub(_named_value, text)


def redact_text(text: str, limit: int | None = None) -> str:
    """Redact free text (an exception message or stack trace, a query, tool arguments): every URL in it as
    ``redact_url`` does, key shapes, ``Bearer``/``Basic`` credentials and secret-named ``name=value`` pairs.

    With a ``limit``, the result is cut to that many characters, after redaction; the text is first cut to
    twice the limit plus a margin, so a 20 MB message (a response body quoted in an exception) costs what a
    short one does, and only a secret that redaction shrank by more than the margin could bring the first cut
    into view."""
    if limit is not None and len(text) > 2 * limit + _CUT_MARGIN:
        text = text[:2 * limit + _CUT_MARGIN]
    text = sink_safe(text)
    out = _redact_prose(text) if "://" not in text else _map_urls(text, _redact_prose)
    return out if limit is None else out[:limit]


def redact_report(text: str, limit: int | None = None) -> str:
    """A report or answer as it may be shown and stored: its URLs redacted as ``redact_url`` does (so a cited URL
    still meets the stored page), key shapes masked, and the prose otherwise verbatim; cut to ``limit``
    characters after redaction, the text first cut as ``redact_text`` does."""
    if limit is not None and len(text) > 2 * limit + _CUT_MARGIN:
        text = text[:2 * limit + _CUT_MARGIN]
    out = _map_urls(sink_safe(text), mask_key_shapes)
    return out if limit is None else out[:limit]


def _secret_key(key: Any) -> bool:
    return isinstance(key, str) and is_secret_name(key, in_url=False)


def _json_key(key: Any) -> Any:
    """A dict key JSON can hold: a tuple or object key becomes its repr (``json.dumps`` refuses it, and the
    whole span would be lost)."""
    return key if key is None or isinstance(key, (str, int, float, bool)) else repr(key)


def _mask_names(value: Any, depth: int = 0) -> Any:
    """Replace the value under every secret name of nested structures: dict keys (``headers={"Authorization":
    ...}``), ``(name, value)`` pairs (``params=[("api_key", ...)]``, header lists) and ``{"name": ..., "value":
    ...}`` entries (HAR and Playwright header arrays)."""
    if depth > 8:
        return value
    if isinstance(value, dict):
        if _secret_key(value.get("name")) and "value" in value:
            return {_json_key(k): REDACTED if k == "value" else _mask_names(v, depth + 1) for k, v in value.items()}
        return {_json_key(k): REDACTED if _secret_key(k) else _mask_names(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) == 2 and _secret_key(value[0]):
            return [value[0], REDACTED]
        return [_mask_names(v, depth + 1) for v in value]
    return value


def redact_arguments(args: Sequence[Any], kwargs: dict[str, Any], limit: int, arg_names: Sequence[str] = ()) -> str:
    """A tool call's arguments as JSON for ``gen_ai.tool.call.arguments``: secret-named keyword arguments and
    dict keys masked whatever their value, and so are positional arguments whose parameter (``arg_names``, in
    order) has a secret name (``login(url, "bob", pw)``); then the text redacted (URLs, key shapes, named
    values), then cut to ``limit`` characters (after redaction, so a cut never leaves half a secret
    unrecognised)."""
    positional = [REDACTED if i < len(arg_names) and _secret_key(arg_names[i]) else _mask_names(v, 1)
                  for i, v in enumerate(args)]
    payload = {"args": positional, "kwargs": _mask_names(kwargs)}
    return redact_text(json.dumps(payload, default=repr, ensure_ascii=False), limit)
