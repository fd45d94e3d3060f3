"""Which URLs a report cites, in order of first citation: the always-on ``citetrace.citations`` list.

Inline markers (``[3]``, ``[^3]``, storm's ``[2][5]``) resolve through the reference list, which
``citetrace._reflist`` reads exactly as eval does (same-line and next-line ``URL:`` entries, numbered and APA
lists under a heading), or through a run's URL map; markdown links (gpt-researcher's ``([Author, 2024](url))``
included: their target, not a URL in their display text), HTML ``<a href>`` links (likewise) and bare URLs count where they appear; fenced code
blocks and inline code spans cite nothing (as in eval's parser, so the summary's citations are the URLs eval pairs). A reference-list entry nobody points at still counts (it is
listed as a source), after the cited ones. The full claim/citation parser lives in ``citetrace.eval``; this
one only needs URLs.
"""

from __future__ import annotations

import re
from typing import Mapping

from citetrace._reflist import INLINE_CODE, fenced_lines, line_spans, references
from citetrace._urlfind import HTML_LINK, MARKDOWN_LINK, URL_PATTERN
from citetrace._urls import find_urls, url_key

__all__ = ["cited_urls"]

_MARKER = re.compile(r"\[(\^?[\w.-]+)\](?!\()|(" + URL_PATTERN + ")")


def cited_urls(text: str, url_map: Mapping[str, str] | None = None) -> list[str]:
    """URLs cited by ``text``, de-duplicated by URL key, in order of first citation.

    ``url_map`` (marker number -> URL) resolves bare ``[n]`` markers that the text lists no entry for.
    """
    refs, skip = references(text, url_map)
    code = fenced_lines(text)
    body = "\n".join(text[s:e] for i, (s, e) in enumerate(line_spans(text)) if i not in skip and i not in code)
    body = INLINE_CODE.sub(" ", body)  # inline code cites nothing either (an API endpoint, `refs[1]`)
    # a markdown link cites its target, never a URL in its display text (eval's parser reads it the same way)
    body = HTML_LINK.sub(lambda m: f" {m.group(2)} ", body)  # so does an HTML link, a "[5]" label included
    body = MARKDOWN_LINK.sub(lambda m: f" {m.group(2)} ", body)
    ordered: list[str] = []
    for match in _MARKER.finditer(body):
        if match.group(1) is not None:
            key = match.group(1)
            url = refs.get(key) or refs.get(key.lstrip("^"))
            if url:
                ordered.append(url)
        else:
            ordered.extend(find_urls(match.group(2)))
    ordered.extend(url for url in refs.values() if url)
    listed = [text[s:e] for i, (s, e) in enumerate(line_spans(text)) if i in skip]
    for line in listed:  # unnumbered source lines (an APA list) are listed sources too
        ordered.extend(find_urls(line))
    seen: set[str] = set()
    out: list[str] = []
    for url in ordered:
        key = url_key(url)
        if key not in seen:
            seen.add(key)
            out.append(url)
    return out
