"""The passages of a stored page that a judge sees: BM25 over windows of the text the agent read.

Judging against the stored text (never a re-fetch) is what makes a verdict about the agent's behaviour
rather than about today's version of the page. Windows are a few sentences long and overlap by one, so a
fact split across a sentence boundary stays inside some window.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from citetrace._extras import require
from citetrace.eval._split import sentence_spans
from citetrace.eval._types import Passage

__all__ = ["simple_sentences", "top_passages", "tokens"]

_TOKEN = re.compile(r"[a-z0-9]+(?:[.,]\d+)*%?")
_STOP = frozenset(
    "the a an and or of to in on for by with from at as is are was were be been being that this these those it "
    "its than then into over under about after before since per has have had not but which who what when".split()
)


def tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens without stop words."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


def simple_sentences(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Sentence spans of page text: paragraph breaks always split, and inside a paragraph pysbd splits, the
    segmenter reports use too (``eval._split.sentence_spans``: abbreviations and decimals kept whole). A span
    has no leading or trailing whitespace. Cached per text: every claim citing a page asks for its windows."""
    return [(offset + s, offset + e) for s, e in _page_sentences(text)]


@lru_cache(maxsize=256)
def _page_sentences(text: str) -> tuple[tuple[int, int], ...]:
    spans: list[tuple[int, int]] = []
    for para in re.finditer(r"[^\n]+(?:\n(?!\s*\n)[^\n]+)*", text):
        for start, end in sentence_spans(text, para.start(), para.end()):
            cuts = [start] + [m.end() for m in _AFTER_INITIAL.finditer(text, start, end)] + [end]
            for a, b in zip(cuts, cuts[1:]):
                piece = text[a:b]
                lead = len(piece) - len(piece.lstrip())
                if piece.strip():
                    spans.append((a + lead, a + len(piece.rstrip())))
    return tuple(spans)


_AFTER_INITIAL = re.compile(r"(?<=\b[A-Z])\.(?=\s+(?:There|The|This|These|Those|It|Its|We|They|He|She|In|On|At|"
                            r"A|An|But|However|Of|For)\s)")
"""A full stop after a single capital that pysbd keeps as an initial ("5 percent influenza B. There were 163
..."): an initial is followed by a name, never by a word that opens a sentence, so the span is cut there
(det-7; the merged sentence's other numbers were rivals of the claim's)."""


def _windows(text: str, size: int) -> list[tuple[int, int]]:
    sents = simple_sentences(text)
    if len(sents) <= size:
        return [(sents[0][0], sents[-1][1])] if sents else []
    step = max(1, size - 1)
    out = []
    for k in range(0, len(sents) - 1, step):
        chunk = sents[k:k + size]
        out.append((chunk[0][0], chunk[-1][1]))
        if k + size >= len(sents):
            break
    return out


def top_passages(claim: str, text: str, *, k: int = 3, window: int = 3) -> list[Passage]:
    """The ``k`` best windows of ``text`` for ``claim`` by BM25 (ties keep page order), best first."""
    require("eval")
    from rank_bm25 import BM25Plus

    spans = _windows(text, window)
    if not spans:
        return []
    corpus = [tokens(text[s:e]) or ["<empty>"] for s, e in spans]
    query = tokens(claim)
    if not query:
        return [Passage(text[s:e], s, e, 0.0) for s, e in spans[:k]]
    scores: Sequence[float] = BM25Plus(corpus).get_scores(query)
    order = sorted(range(len(spans)), key=lambda i: (-float(scores[i]), i))[:k]
    return [Passage(text[spans[i][0]:spans[i][1]], spans[i][0], spans[i][1], float(scores[i])) for i in order]
