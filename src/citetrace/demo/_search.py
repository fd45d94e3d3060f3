"""Deterministic BM25 search over the demo corpus: what the demo search endpoint answers with.

Plain Okapi BM25 (k1=1.5, b=0.75) over the title (counted twice) and the body, with a small stop-word list.
A page matches when it shares at least one term with the query; ties break on the slug, so the same query
always returns the same results in the same order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from citetrace.demo._corpus import Page

__all__ = ["SearchIndex", "Hit", "tokenize"]

_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_STOP = frozenset(
    "a an and are as at be by did do does for from has have how in is it its of on or than that the their "
    "there this to was were what when where which who why will with after about into over under per".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased word and number tokens without stop words."""
    return [t for t in _WORD.findall(text.lower()) if t not in _STOP]


@dataclass(frozen=True)
class Hit:
    """One search result."""

    page: Page
    score: float

    @property
    def snippet(self) -> str:
        """The first sentence of the page body, cut at 200 characters on a word boundary."""
        first = self.page.paragraphs[0] if self.page.paragraphs else ""
        end = first.find(". ")
        sentence = first if end < 0 else first[: end + 1]
        if len(sentence) <= 200:
            return sentence
        return sentence[:200].rsplit(" ", 1)[0] + " ..."


class SearchIndex:
    """An in-memory BM25 index over pages."""

    def __init__(self, pages: Sequence[Page], *, k1: float = 1.5, b: float = 0.75) -> None:
        self._pages = tuple(pages)
        self._k1, self._b = k1, b
        self._tf: list[Counter[str]] = []
        for p in self._pages:
            tokens = tokenize(p.title) * 2 + tokenize(p.body)
            self._tf.append(Counter(tokens))
        self._len = [sum(tf.values()) for tf in self._tf]
        self._avg = (sum(self._len) / len(self._len)) if self._len else 1.0
        df: Counter[str] = Counter()
        for tf in self._tf:
            df.update(tf.keys())
        n = len(self._pages)
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def search(self, query: str, limit: int = 5) -> list[Hit]:
        """The best ``limit`` pages for ``query`` (an empty list when no page shares a term with it)."""
        terms = list(dict.fromkeys(tokenize(query)))
        hits: list[Hit] = []
        for i, p in enumerate(self._pages):
            tf = self._tf[i]
            score = 0.0
            for t in terms:
                f = tf.get(t, 0)
                if not f:
                    continue
                norm = f + self._k1 * (1 - self._b + self._b * self._len[i] / self._avg)
                score += self._idf[t] * f * (self._k1 + 1) / norm
            if score > 0:
                hits.append(Hit(p, round(score, 6)))
        hits.sort(key=lambda h: (-h.score, h.page.slug))
        return hits[: max(0, limit)]
