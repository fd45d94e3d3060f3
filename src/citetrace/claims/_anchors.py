"""Citation anchors inside one sentence: numbered markers, footnotes, markdown links and bare URLs.

The splitter needs to know where each anchor sits so that it can give every atomic claim the citations that
belong to it and keep anchors out of the claim text a judge reads. Callers that already parsed the report
(``citetrace eval``) pass their own anchors; everyone else (the claim ledger, users) lets
:func:`find_anchors` find them in a plain sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citetrace._urlfind import AUTOLINK, HTML_LINK, MARKDOWN_LINK, url_spans

__all__ = ["Anchor", "find_anchors"]


@dataclass(frozen=True)
class Anchor:
    """One citation anchor: ``[start, end)`` is its span in the sentence.

    ``label`` is the visible text of a markdown link (``[the office](https://...)`` has label ``the office``,
    which sits at ``start + 1``) or of an HTML link (``<a href="...">the office</a>``, at ``label_start``);
    it is part of the sentence unless it is a trailing source name. Markers and bare URLs have no label. ``key`` is whatever the caller uses to map the anchor back (a marker key, an
    index); the splitter only carries it.
    """

    marker: str
    start: int
    end: int
    url: str | None = None
    label: str | None = None
    key: str | None = None
    label_start: int | None = None
    """Where ``label`` starts in the sentence, when not at ``start + 1`` (an HTML link's label)."""

    @property
    def label_at(self) -> int:
        """The offset of the label in the sentence."""
        return self.start + 1 if self.label_start is None else self.label_start


_LINK = MARKDOWN_LINK
_REFLINK = re.compile(r"\[([^\]\n]+)\]\[([^\]\s^]{1,32})\]")
_AUTOLINK = AUTOLINK
_MARKER = re.compile(r"\[(?:\d{1,4}(?:\s*[,\-–]\s*\d{1,4})*|\^[^\]\s]{1,32})\](?!\()")


def find_anchors(sentence: str) -> list[Anchor]:
    """Every anchor in ``sentence``, in order: links first claim their span, then autolinks, URLs, markers.

    A marker's ``key`` is its text without brackets (``1``, ``^a``, ``1-3``); resolving it to a URL is the
    caller's job (it needs the reference list, which a single sentence does not have).
    """
    taken: list[tuple[int, int]] = []
    out: list[Anchor] = []

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in taken)

    for m in HTML_LINK.finditer(sentence):
        out.append(Anchor(m.group(0), m.start(), m.end(), m.group(2), m.group(3), label_start=m.start(3)))
        taken.append((m.start(), m.end()))
    for m in _LINK.finditer(sentence):
        if free(m.start(), m.end()):
            out.append(Anchor(m.group(0), m.start(), m.end(), m.group(2), m.group(1)))
            taken.append((m.start(), m.end()))
    for m in _REFLINK.finditer(sentence):  # [label][key]: the URL is in the reference definitions
        if free(m.start(), m.end()) and not m.group(1).startswith("^") and not m.group(1).isdigit():
            out.append(Anchor(m.group(0), m.start(), m.end(), None, m.group(1), key=m.group(2)))
            taken.append((m.start(), m.end()))
    spans = [(m.start(), m.end(), m.group(1)) for m in _AUTOLINK.finditer(sentence)]
    spans += [(s, e, sentence[s:e]) for s, e in url_spans(sentence)]  # the one URL extractor
    for start, end, url in spans:
        if free(start, end):
            out.append(Anchor(sentence[start:end], start, end, url))
            taken.append((start, end))
    for m in _MARKER.finditer(sentence):
        if free(m.start(), m.end()):
            out.append(Anchor(m.group(0), m.start(), m.end(), key=m.group(0)[1:-1]))
            taken.append((m.start(), m.end()))
    out.sort(key=lambda a: a.start)
    return out
