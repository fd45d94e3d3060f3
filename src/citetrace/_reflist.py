"""The one reference-list reader: which lines of a report define reference entries, and which URL each has.

Shared by capture (``citetrace.citations``) and eval (``citetrace eval``) so that both resolve a marker to the
same URL. Entries understood:

- ``[3] https://...``, ``[3]: https://...``, ``[^3]: https://...``, ``- [3] Title, https://...`` (the first URL on
  the line; a markdown link's target counts);
- ``[3] Title`` with the URL on the next line, as ``URL: https://...`` (also ``Link:``/``Source:``), or as a
  line holding only the URL under a references heading (open_deep_research-style "Sources" lists);
- ``3. Title, https://...`` under a "References"/"Sources"/... heading; unnumbered source lines there are
  reference lines too (gpt-researcher's APA list), not body text.

A ``[3] text`` line with no URL is an entry only under a references heading (a hard-wrapped body line may
start with a marker). ``url_map`` (marker number -> URL, e.g. knowledge-storm's ``url_to_unified_index``
inverted) fills markers the text itself does not list; the text's own list wins where both name a marker.
URLs are found with ``citetrace._urlfind``, never a regex of this module's own.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from citetrace._urlfind import AUTOLINK, MARKDOWN_LINK, first_url

__all__ = ["FENCE", "INLINE_CODE", "fenced_lines", "line_spans", "entry_url", "references", "url_map_of"]

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
"""A line opening or closing a fenced code block; what is inside is code, not prose or citations."""
INLINE_CODE = re.compile(r"(?<!`)(`{1,3})(?!`)(.+?)(?<!`)\1(?!`)")
"""An inline code span on one line (`` `https://api.example/v1` ``, `` `refs[1]` ``): code too, so nothing in
it cites (eval's parser and capture's ``citetrace.citations`` both skip it)."""

_REF_DEF = re.compile(r"^\s{0,3}(?:[-*]\s+)?\[(\^?)([^\]\s]{1,32})\]:?\s+(.*)$")
_NUMBERED = re.compile(r"^\s{0,3}(\d{1,4})[.)]\s+(.*)$")
_NEXT_URL = re.compile(r"^\s{0,8}(?:[-*]\s+)?(?:url|link|source)\s*:\s*(.*)$", re.IGNORECASE)
_REF_WORDS = (
    "references|sources|bibliography|citations|works cited|notes|footnotes|further reading|reference list|"
    "source list|quellen|quellenangaben|literatur|fuentes|referencias|bibliograf[ií]a|r[ée]f[ée]rences|"
    "bibliographie|fonti|riferimenti|bibliografia|bronnen|referenties|refer[êe]ncias|fontes|k[äa]llor|"
    "kilder|l[äa]hteet|[źz]r[óo]d[łl]a|bibliografie|參考文獻|参考文献|参考资料|参考資料|出典|来源|출처|참고 문헌"
)
_REF_HEADING = re.compile(
    rf"^\s{{0,3}}(#{{1,6}}\s*|\*\*)?\s*(?:{_REF_WORDS})"
    r"(?:\s+(?:used|consulted|cited|and further reading|and notes|& further reading))?"
    r"\s*[:：]?\s*(\*\*)?\s*[:：]?\s*$",
    re.IGNORECASE,
)
"""A references heading: the word agents write for their source list, in English or the report's language,
alone or with "used" / "consulted" / "cited" / "and further reading" ("### Sources used"); a heading that only
starts with such a word ("## Sources of growth") is a section of the report."""


def fenced_lines(text: str) -> frozenset[int]:
    """Indexes of the lines of fenced code blocks, the fences included (an unclosed fence runs to the end)."""
    out: set[int] = set()
    inside = False
    for i, (start, end) in enumerate(line_spans(text)):
        if FENCE.match(text[start:end]):
            inside = not inside
            out.add(i)
        elif inside:
            out.add(i)
    return frozenset(out)


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, end excluding the newline."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        spans.append((pos, pos + len(body)))
        pos += len(line)
    return spans


def entry_url(text: str) -> str | None:
    """The URL a reference entry points to: a markdown link's target first, else the first URL."""
    m = MARKDOWN_LINK.search(text) or AUTOLINK.search(text)
    if m:
        return m.group(2) if m.re is MARKDOWN_LINK else m.group(1)
    return first_url(text)


def _next_line_url(line: str, in_refs: bool) -> str | None:
    """The URL of an entry's continuation line (``URL: ...``; under a heading also a line of only a URL)."""
    m = _NEXT_URL.match(line)
    if m:
        return entry_url(m.group(1))
    url = entry_url(line) if in_refs else None
    return url if url is not None and line.strip().strip("<>") == url else None


def references(text: str, url_map: Mapping[str, str] | None = None) -> tuple[dict[str, str | None], frozenset[int]]:
    """Reference entries (key -> URL or None) and the indices of the lines that define them.

    Footnote keys keep their ``^`` (``"^3"``); numbered keys are the number as text. Lines of fenced code
    define nothing: a ``[2] https://...`` printed in a code block is code, not a listed source.
    """
    refs: dict[str, str | None] = {}
    skip: set[int] = set()
    in_refs = False
    spans = line_spans(text)
    code = fenced_lines(text)
    i = 0
    while i < len(spans):
        if i in code:
            i += 1
            continue
        line = text[spans[i][0]:spans[i][1]]
        nxt = text[spans[i + 1][0]:spans[i + 1][1]] if i + 1 < len(spans) and i + 1 not in code else ""
        if _REF_HEADING.match(line):
            in_refs = True
            i += 1
            continue
        if line.lstrip().startswith("#"):
            in_refs = False
        d = _REF_DEF.match(line)
        n = _NUMBERED.match(line) if in_refs else None
        key, rest = (d.group(2), d.group(3)) if d and not d.group(1) else (n.group(1), n.group(2)) if n else (None, "")
        if key is not None:
            url = entry_url(rest)
            below = _next_line_url(nxt, in_refs) if url is None else None
            if url is not None or below is not None or in_refs:
                refs[key] = url or below
                skip.update((i, i + 1) if below is not None else (i,))
                i += 2 if below is not None else 1
                continue
        if d and d.group(1) == "^" and line[d.end(2) + 1:d.end(2) + 2] == ":":  # a footnote "[^3]: ..."
            refs["^" + d.group(2)] = entry_url(d.group(3))
            skip.add(i)
        elif in_refs and entry_url(line):  # an unnumbered source list (an APA reference list): not body text
            skip.add(i)
        i += 1
    for key, url in (url_map or {}).items():
        if refs.get(str(key)) is None and isinstance(url, str) and url:
            refs[str(key)] = url
    return refs, frozenset(skip)


def url_map_of(data: Any, strict: bool = True) -> dict[str, str]:
    """Marker number -> URL from a run's source map: knowledge-storm's ``url_to_info.json`` (its
    ``url_to_unified_index``, URL -> number), or a plain mapping either way round (``{"3": url}`` or
    ``{url: 3}``). Raise ``ValueError`` naming the problem for anything else; with ``strict=False`` (the storm
    row, which must never fail the host) a bad entry is skipped instead."""
    if isinstance(data, dict) and isinstance(data.get("url_to_unified_index"), dict):
        data = data["url_to_unified_index"]
    if not isinstance(data, dict) or not data:
        raise ValueError("a URL map must be a JSON object: {\"url_to_unified_index\": {url: n}}, {url: n} or {n: url}")
    out: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, int) and not isinstance(value, bool) and isinstance(key, str) and first_url(key) == key:
            out[str(value)] = key
        elif isinstance(value, str) and first_url(value) == value and str(key).isdigit():
            out[str(key)] = value
        elif strict:
            raise ValueError(f"URL map entry {key!r}: {value!r} is neither url -> number nor number -> url")
    return out
