"""Read what a search or fetch returned, in the shapes real APIs use, without changing it.

Everything here only reads: attribute and key lookups on the result, never a call that could consume a
stream or mutate the object the agent gets back.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from citetrace import names
from citetrace._urlfind import urls_in
from citetrace.capture import _consent, _pdf

__all__ = [
    "query_hash",
    "arg_value",
    "locate_results",
    "extract_urls",
    "scan_results",
    "result_text",
    "text_size",
    "http_status_of",
    "http_status_of_exc",
    "content_type_of",
    "is_rate_limit_exc",
    "returned_failure",
    "batch_status",
    "fetch_status_of_text",
    "read_status",
    "decode_bytes",
    "json_envelope",
    "ENVELOPE_MAX_CHARS",
]

QUERY_KWARGS = ("query", "q", "search_query", "question", "text", "keywords", "term")
URL_KWARGS = ("url", "link", "href", "uri", "page_url")
_RESULT_KEYS = ("results", "organic_results", "items", "news_results", "hits", "documents", "data", "web",
                "organic", "webPages", "value", "news", "sources")
"""Where a search response keeps its items (the first key present wins): Tavily, SerpAPI, Brave (``web``),
Elastic (``hits.hits``), raw Serper (``organic``, ``news``), Bing (``webPages.value``), Perplexity-like
``sources``."""
_URL_KEYS = ("url", "link", "href", "uri", "source", "sourceURL", "source_url")
_TEXT_KEYS = ("content", "text", "markdown", "raw_content", "html", "body", "page_content", "rawHtml", "text_content")
_RATE_NAMES = ("ratelimit", "rate_limit", "usagelimit", "toomanyrequests", "quotaexceeded", "throttl")


def _is_map(value: Any) -> bool:
    """isinstance(value, Mapping) with a fast path for plain dicts (the common case, 6x cheaper)."""
    return type(value) is dict or isinstance(value, Mapping)


def is_unknown_shape(result: Any) -> bool:
    """True for a non-empty result whose shape we cannot read (not None, str, bytes or a container): a
    generator, an iterator, a custom object without ``url``/``results``, and a non-empty mapping (the callers
    ask only when no reader found results or text in it). Such a result is never called ``empty``."""
    if result is None or isinstance(result, (str, bytes, list, tuple, set, frozenset)):
        return False
    return bool(result) if _is_map(result) else True


def query_hash(query: str) -> str:
    """Stable digest of a query after folding case and whitespace (first 16 hex of sha256)."""
    folded = " ".join(query.split()).casefold()  # same as re.sub(r"\s+", " ", query.strip()), 3x cheaper
    return hashlib.sha256(folded.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def arg_value(
    args: Sequence[Any], kwargs: Mapping[str, Any], names: Sequence[str], explicit: str | None, skip_self: bool
) -> str | None:
    """The query/URL argument: ``explicit`` kwarg, else a known kwarg name, else the first str positional."""
    if explicit is not None:
        value = kwargs.get(explicit)
        return value if isinstance(value, str) else None
    if kwargs:  # most calls pass the query or URL positionally: no seven dict lookups then
        for name in names:
            value = kwargs.get(name)
            if isinstance(value, str):
                return value
    for value in args[1:] if skip_self else args:
        if isinstance(value, str):
            return value
    return None


def locate_results(result: Any, depth: int = 0) -> Sequence[Any] | None:
    """The list of result items inside a search response (list, ``results``, ``organic_results``, ``web.results``...)."""
    if isinstance(result, (list, tuple)):
        return result
    if depth > 3 or result is None or isinstance(result, (str, bytes)):
        return None
    if isinstance(result, (set, frozenset)):  # a set of URLs: in a stable order
        return sorted(result, key=str)
    if _is_map(result):
        for key in _RESULT_KEYS:
            if key in result:
                found = locate_results(result[key], depth + 1)
                if found is not None:
                    return found
        if result and all(isinstance(key, str) and key.startswith(("http://", "https://")) for key in result):
            return list(result.items())  # {url: title}: (url, title) pairs
        return None
    inner = getattr(result, "results", None)
    if inner is None:
        inner = getattr(result, "data", None) if not isinstance(result, type) else None
    if inner is not None and inner is not result:
        return locate_results(inner, depth + 1)
    return None


def _item_url(item: Any) -> str | None:
    if isinstance(item, str):
        return item if item.startswith(("http://", "https://")) else None
    if isinstance(item, (tuple, list)):  # (title, url) / (url, title) pairs: the first element that is a URL
        return next((u for u in item if isinstance(u, str) and u.startswith(("http://", "https://"))), None)
    if _is_map(item):
        for key in _URL_KEYS:
            value = item.get(key)
            if isinstance(value, str) and value:
                return value
        meta = item.get("metadata")
        if meta is None:
            meta = item.get("_source")  # an Elastic/OpenSearch hit: the document is under _source
        if _is_map(meta):
            return _item_url(meta)
        return None
    for key in ("url", "link", "href"):
        value = getattr(item, key, None)
        if isinstance(value, str) and value:
            return value
    meta = getattr(item, "metadata", None)
    if _is_map(meta):
        return _item_url(meta)
    return None


def _own_url(item: Mapping[str, Any]) -> bool:
    """Whether a result item has a URL of its own (not only under ``metadata`` or ``_source``)."""
    return any(isinstance(value, str) and value for value in map(item.get, _URL_KEYS))


def _other_url(item: dict[str, Any]) -> str | None:
    """The URL of a result item whose ``url`` field is not a non-empty str, read as ``_item_url`` would: the
    first non-empty str of the other URL keys, or "" when the item has none. None when ``_item_url`` would have
    to guess (a non-str URL field, a ``metadata`` or ``_source`` fallback): the general readers then decide."""
    for key in _URL_KEYS:
        value = item.get(key)
        if value is None:
            continue
        if value.__class__ is not str:
            return None
        if value:
            return value  # type: ignore[no-any-return]  # a str, checked above
    return None if "metadata" in item or "_source" in item else ""


def scan_results(result: Any) -> tuple[list[str], int, int] | None:
    """(URLs in order, characters in the items' string fields, result count) for the shapes most search APIs
    return: a list of plain dicts, or a plain dict holding one under a result key (Tavily's ``results``,
    SerpAPI's ``organic_results``, Brave's ``web.results``...). One pass over the items, instead of
    ``extract_urls`` and ``text_size`` reading them once each, item by item. None for any other shape, or
    anything unusual inside (a non-str URL field, a ``metadata`` fallback): those two then decide, with the
    same results. The common case (each item's ``url`` a non-empty str) is one lookup per item, in one frame."""
    items = result
    if result.__class__ is not list:
        if result.__class__ is not dict:
            return None
        items = locate_results(result)
        if items.__class__ is not list:
            return None
    urls: list[str] = []
    size = 0
    for item in items:
        if item.__class__ is not dict:
            return None
        value = item.get("url")  # the first of _URL_KEYS, and nearly every API's: one lookup
        if value.__class__ is str and value:
            urls.append(value)
        else:
            other = _other_url(item)
            if other is None:
                return None
            if other:
                urls.append(other)
        for value in item.values():
            if value.__class__ is str or isinstance(value, str):
                size += len(value)
    return urls, size, len(items)


def extract_urls(result: Any) -> tuple[list[str], int | None]:
    """(URLs in order, result count) from a search result; a plain string yields the URLs found in it."""
    if isinstance(result, str):
        urls = urls_in(result)
        return urls, len(urls)
    items = locate_results(result)
    if items is None:
        url = _item_url(result)
        return ([url], 1) if url else ([], None)
    urls = []
    for item in items:
        url = _item_url(item)
        if url:
            urls.append(url)
    return urls, len(items)


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_DECLARED = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})"""
                       rb"""|<\?xml[^>]{0,100}?encoding\s*=\s*["']([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)


def _charset_of(content_type: str | None) -> str | None:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value.strip("\"' "):
            return value.strip("\"' ")
    return None


def _decoded(body: bytes, charset: str | None) -> str | None:
    """``body`` in ``charset`` (bad bytes replaced); None for a codec Python does not know."""
    if not charset:
        return None
    try:
        return body.decode(charset, "replace")
    except LookupError:
        return None


def decode_bytes(body: bytes, content_type: str | None = None) -> str:
    """A page's bytes as its text, never an exception: the BOM, then the ``Content-Type`` charset, then the
    page's own ``<meta charset>`` (or ``http-equiv``) or XML declaration in its first 2 KB, then UTF-8, and
    when that fails Windows-1252, as browsers read an undeclared page.

    Why not UTF-8 with replacement: a Latin-1 page would be stored as "Caf\ufffd", and a claim quoting it
    could never meet its page in eval. A PDF is not text in any encoding: its text layer (``capture._pdf``),
    or nothing.
    """
    if _pdf.is_pdf(body, content_type):
        return _pdf.read_pdf(body).text
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom):].decode(codec, "replace")
    text = _decoded(body, _charset_of(content_type))
    if text is not None:
        return text
    declared = _DECLARED.search(body[:2048])
    if declared is not None:
        text = _decoded(body, (declared.group(1) or declared.group(2)).decode("ascii"))
        if text is not None:
            return text
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("cp1252", "replace")


def _text_from(value: Any, depth: int = 0) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return decode_bytes(value)
    if depth > 2 or value is None:
        return None
    if isinstance(value, (list, tuple)):
        return _joined_text(value, depth)
    if _is_map(value):
        for key in _TEXT_KEYS:
            text = value.get(key)
            if isinstance(text, str):
                return text
        data = value.get("data")
        if data is not None:
            return _text_from(data, depth + 1)
        results = value.get("results")
        if isinstance(results, list) and results:
            parts = [t for t in (_text_from(r, depth + 1) for r in results) if t]
            return "\n\n".join(parts) if parts else None
        return None
    # requests.Response / httpx.Response: read only what is already loaded
    if hasattr(value, "status_code") and hasattr(value, "headers"):
        content = getattr(value, "_content", False)
        if content not in (False, None):
            if isinstance(content, bytes) and _pdf.is_pdf(content, content_type_of(value)):
                return _pdf.read_pdf(content).text  # the client's own .text would decode the PDF's bytes
            try:
                text = value.text
                return text if isinstance(text, str) else None
            except Exception:  # noqa: BLE001
                return None
        return None
    for key in ("markdown", "content", "text", "page_content", "html"):
        text = getattr(value, key, None)
        if isinstance(text, str):
            return text
    return None


def _joined_text(values: Sequence[Any], depth: int) -> str | None:
    """A fetch that returned a list: str chunks of one page (joined as they are), or documents (LangChain
    ``Document`` s, dicts with text: joined by blank lines); ``(200, text)`` keeps its text. None if no text."""
    if values and all(isinstance(v, str) for v in values):
        return "".join(values)
    parts = [t for t in (_text_from(v, depth + 1) for v in values if not isinstance(v, (int, float))) if t]
    return "\n\n".join(parts) if parts else None


def result_text(result: Any) -> str | None:
    """The text a fetch returned (str, bytes, dict with content/text/markdown, a loaded response, a document)."""
    return _text_from(result)


def text_size(result: Any, items: Sequence[Any] | None) -> int:
    """Characters of text returned: the string itself, or the string fields of the result items."""
    if isinstance(result, str):
        return len(result)
    if items is None:
        text = _text_from(result)
        return len(text) if text is not None else 0
    total = 0
    for item in items:
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, (tuple, list)):
            total += sum(len(value) for value in item if isinstance(value, str))
        elif _is_map(item):
            for value in item.values():
                if isinstance(value, str):
                    total += len(value)
            source = item.get("_source")  # an Elastic hit, whose URL is in its document: the document's fields
            if source is not None and _is_map(source) and not _own_url(item):
                total += sum(len(value) for value in source.values() if isinstance(value, str))
        else:
            for key in ("title", "url", "text", "snippet", "content", "summary"):
                value = getattr(item, key, None)
                if isinstance(value, str):
                    total += len(value)
    return total


def _int_status(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
        return value
    return None


def http_status_of(result: Any) -> int | None:
    """HTTP status from a response-like result (``status_code``/``status``, or ``metadata.status_code`` of a
    scraped document) or a dict field."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], (str, bytes)):
        return _int_status(result[0])  # a (status, text) pair
    if isinstance(result, (str, bytes, list, tuple)) or result is None:
        return None
    if _is_map(result):
        for key in _STATUS_KEYS:
            status = _int_status(result.get(key))
            if status is not None:
                return status
        return None
    status = _int_status(getattr(result, "status_code", None)) or _int_status(getattr(result, "status", None))
    if status is None:  # a scraped document that reports the page's status in its metadata (Firecrawl)
        metadata = getattr(result, "metadata", None)
        if metadata is not None and not _is_map(metadata):
            status = _int_status(getattr(metadata, "status_code", None))
    return status


def http_status_of_exc(exc: BaseException) -> int | None:
    """HTTP status carried by an exception: ``.response.status_code``, ``.status_code``, ``.status``, ``.code``."""
    response = getattr(exc, "response", None)
    if response is not None:
        status = http_status_of(response)
        if status is not None:
            return status
    for key in ("status_code", "status", "http_status", "code"):
        status = _int_status(getattr(exc, key, None))
        if status is not None:
            return status
    return None


def content_type_of(result: Any) -> str | None:
    """Content type from a response-like result's headers."""
    headers = getattr(result, "headers", None)
    if headers is None or _is_map(result):
        return None
    try:
        value = headers.get("content-type")
    except Exception:  # noqa: BLE001
        return None
    return value if isinstance(value, str) else None


def is_rate_limit_exc(exc: BaseException, status: int | None) -> bool:
    """HTTP 429, or an exception whose class name says rate/usage limit or too many requests."""
    if status == 429:
        return True
    for cls in type(exc).__mro__:
        name = cls.__name__.lower()
        if any(marker in name for marker in _RATE_NAMES):
            return True
        if cls is Exception:
            break
    return False


def returned_failure(result: Any) -> str | None:
    """Error detection for tools that return failures: a response-like object or a dict with a 4xx/5xx
    status, or an error envelope: a dict whose ``error``/``errors`` field is truthy, or whose ``code`` is a
    4xx/5xx with a ``message``, and that carries no results or text. Returns ``error`` or ``rate_limited``.
    A JSON error body returned as text is read through ``json_envelope`` first (the caller's step)."""
    status = http_status_of(result)
    if status is not None and status >= 400:
        return "rate_limited" if status == 429 else "error"
    if _is_map(result):
        err = result.get("error") or result.get("errors")
        if not err:
            code = _int_status(result.get("code"))
            err = result.get("message") if code is not None and code >= 400 else None
            if err:
                err = f"{code} {err}"
        if err and not any(result.get(k) for k in _CONTENT_KEYS):
            text = str(err).lower()
            if "429" in text or "rate limit" in text or "too many requests" in text:
                return "rate_limited"
            return "error"
    return None


_STATUS_KEYS = ("status_code", "statusCode", "http_status", "status")
"""A dict's HTTP status fields, in order. ``status`` counts only as an int in 100..599 (a Jina ``20000``,
``"ok"`` or ``"completed"`` is not an HTTP status)."""
_CONTENT_KEYS = (*_RESULT_KEYS, *_TEXT_KEYS)
"""Fields whose truthy value means an envelope carried results or text: its ``error`` is then a note."""
ENVELOPE_MAX_CHARS = 32_768
"""A JSON text longer than this is a document, never parsed as an error envelope (an error body is a few
KB, stack traces included; the bound keeps an ok read of a large JSON export from paying a parse)."""
_ENVELOPE_START = re.compile(r"\s*\{")
_ENVELOPE_START_BYTES = re.compile(rb"\s*\{")


def json_envelope(result: Any) -> Any:
    """The JSON object a str or bytes result holds (``response.text`` or ``.content`` of a JSON body), for
    the status readers; the result itself otherwise: anything that is not a whole JSON object of at most
    ``ENVELOPE_MAX_CHARS`` (a page, an article quoting an error JSON, a JSON list, a large export).

    Why parse and not search: a page that merely contains ``"status": 404`` must stay a page. Only texts
    that open with ``{`` (after blanks) are parsed, so an ordinary page costs a character check."""
    cls = result.__class__
    if cls is str:
        if not result.startswith("{") and (not result[:1].isspace() or _ENVELOPE_START.match(result, 0, 64) is None):
            return result
    elif cls is bytes:
        if not result.startswith(b"{") and (not result[:1].isspace()
                                            or _ENVELOPE_START_BYTES.match(result, 0, 64) is None):
            return result
    else:
        return result
    if len(result) > ENVELOPE_MAX_CHARS:
        return result
    try:
        parsed = json.loads(result)
    except (ValueError, RecursionError):  # "{status: 404} is how...", bytes not UTF-8 JSON, deep nesting: text
        return result
    return parsed if type(parsed) is dict else result


_HTML_START = re.compile(r"\s*<(?:!doctype\s+html|html|head|body|meta|title|div|script|!--)\b", re.IGNORECASE)
_HTML_TOKENS = re.compile(
    r"<(script|style|noscript|template)\b[^>]*>.*?(?:</\1\s*>|\Z)"  # blocks whose content is not page text
    r"|<!--.*?(?:-->|\Z)|<[!/?a-zA-Z][^>]*>?"  # comments, tags and doctype
    r"|([^<]+|<)",  # text (a stray "<" is text too)
    re.IGNORECASE | re.DOTALL,
)


_BODY = re.compile(r"<body\b", re.IGNORECASE)


def _visible_chars(html: str, enough: int) -> int:
    """Characters of text outside tags, scripts, styles and comments, counted until ``enough`` is reached
    (an article gets there in its first paragraphs; only a page with almost no text is scanned whole).
    The ``<head>`` holds no page text: the count starts at ``<body`` when there is one (a page's inline
    scripts and styles are mostly there, and skipping them is one C-level search)."""
    return sum(len(piece) for piece in _visible_pieces(html, enough))


def _visible_pieces(html: str, enough: int) -> list[str]:
    """The text pieces of ``html`` (stripped, in order) until they hold ``enough`` characters."""
    body = _BODY.search(html)
    seen = 0
    out: list[str] = []
    for match in _HTML_TOKENS.finditer(html, body.start() if body else 0):
        piece = match.group(2)
        if piece:
            piece = piece.strip()
            if piece:
                out.append(piece)
                seen += len(piece)
                if seen >= enough:
                    break
    return out


def fetch_status_of_text(text: str, threshold: int) -> str:
    """``empty`` for a read with fewer than ``threshold`` characters of text, or a consent wall, else ``ok``."""
    return read_status(text, threshold)[0]


def read_status(text: str, threshold: int) -> tuple[str, str | None]:
    """The status of a fetch's text and, for an ``empty`` read that had text, why (``names.CONSENT_WALL``).

    Raw HTML (the quick start's ``response.text``) counts by its visible text: a JavaScript shell or a
    cookie wall is hundreds of characters of markup around a sentence. Other text counts whole. A text over
    the size rule whose visible text is a consent notice with little else is a wall (``capture._consent``):
    only texts that name cookies/consent/privacy near their start are looked at twice.
    """
    if len(text) < threshold:
        return names.STATUS_EMPTY, None
    html = text[:1] in "< \t\r\n" and _HTML_START.match(text) is not None
    if html and _visible_chars(text, threshold) < threshold:
        return names.STATUS_EMPTY, None
    if html:  # the visible text is built only for a page of wall size that names cookies/consent/privacy
        wall = len(text) <= _CONSENT_HTML_MAX and _consent.hinted(text) and _consent.is_consent_wall(
            "\n".join(_visible_pieces(text, _consent.MAX_CHARS + 1)))
    else:
        wall = _consent.is_consent_wall(text)  # over MAX_CHARS it returns at once, unhinted after a look at the start
    return (names.STATUS_EMPTY, names.CONSENT_WALL) if wall else (names.STATUS_OK, None)


_CONSENT_HTML_MAX = 262_144
"""Raw HTML longer than this is not looked at as a wall (a wall's page is a few hundred KB at most, scripts
included; the bound also bounds the cost)."""


def batch_status(statuses: Sequence[str]) -> str:
    """The status of one call that fetched several URLs: ok when any was read, else its worst failure
    (rate_limited before error), else empty (nothing read, nothing failed, or no URL at all)."""
    for status in (names.STATUS_OK, names.STATUS_RATE_LIMITED, names.STATUS_ERROR):
        if status in statuses:
            return status
    return names.STATUS_EMPTY


def iter_strings(values: Iterable[Any]) -> list[str]:
    """Keep only non-empty strings (for user hooks that return mixed values)."""
    return [v for v in values if isinstance(v, str) and v]
