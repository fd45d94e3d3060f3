"""Which URLs a report cites, in order of first citation: the always-on ``citetrace.citations`` list.

Inline markers (``[3]``, ``[^3]``) resolve through the reference list; markdown links and bare URLs count
where they appear. A reference-list entry nobody points at still counts (it is listed as a source), after
the cited ones. The full claim/citation parser lives in ``citetrace.eval``; this one only needs URLs.
"""

from __future__ import annotations

import re

from citetrace._urlfind import URL_PATTERN
from citetrace._urls import find_urls, url_key

__all__ = ["cited_urls"]

_REF_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\[(\^?[\w.-]+)\]:?[ \t]*<?(https?://\S+?)>?[ \t]*(?:[\"(].*)?$", re.M)
_MARKER = re.compile(r"\[(\^?[\w.-]+)\](?!\()|(" + URL_PATTERN + ")")


def cited_urls(text: str) -> list[str]:
    """URLs cited by ``text``, de-duplicated by URL key, in order of first citation."""
    refs: dict[str, str] = {}
    ref_spans: list[tuple[int, int]] = []
    for match in _REF_LINE.finditer(text):
        urls = find_urls(match.group(2))
        if urls:
            refs.setdefault(match.group(1).lstrip("^"), urls[0])
            ref_spans.append(match.span())
    body_parts: list[str] = []
    last = 0
    for start, end in ref_spans:
        body_parts.append(text[last:start])
        last = end
    body_parts.append(text[last:])
    body = "\n".join(body_parts)
    ordered: list[str] = []
    for match in _MARKER.finditer(body):
        if match.group(1) is not None:
            url = refs.get(match.group(1).lstrip("^"))
            if url:
                ordered.append(url)
        else:
            ordered.extend(find_urls(match.group(2)))
    ordered.extend(refs.values())
    seen: set[str] = set()
    out: list[str] = []
    for url in ordered:
        key = url_key(url)
        if key not in seen:
            seen.add(key)
            out.append(url)
    return out
