"""Deterministic BM25 search over the demo corpus: what the demo search endpoint answers with.

Okapi BM25 (k1=1.5, b=0.75) from rank_bm25 over the title (counted twice) and the body, with a small stop-word
list. rank_bm25's ``BM25Okapi`` floors negative idf at a fraction of the mean; the demo keeps the Lucene idf,
``log(1 + (N - df + 0.5) / (df + 0.5))``, which is never negative, so every shared term counts and the
shipped questions rank their pages exactly as before. A page matches when it shares at least one term with
the query; ties break on the slug, so the same query always returns the same results in the same order.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from citetrace._extras import require
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


def _lucene_bm25(corpus: list[list[str]], k1: float, b: float) -> Any:
    """rank_bm25's Okapi scorer with the Lucene idf (see the module docstring)."""
    require("demo")
    from rank_bm25 import BM25Okapi

    class LuceneBM25(BM25Okapi):  # type: ignore[misc]
        def _calc_idf(self, nd: Mapping[str, int]) -> None:
            n = self.corpus_size
            self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in nd.items()}

    return LuceneBM25(corpus, k1=k1, b=b)


class SearchIndex:
    """An in-memory BM25 index over pages."""

    def __init__(self, pages: Sequence[Page], *, k1: float = 1.5, b: float = 0.75) -> None:
        self._pages = tuple(pages)
        corpus = [tokenize(p.title) * 2 + tokenize(p.body) for p in self._pages]
        self._bm25 = _lucene_bm25(corpus, k1, b) if self._pages else None

    def search(self, query: str, limit: int = 5) -> list[Hit]:
        """The best ``limit`` pages for ``query`` (an empty list when no page shares a term with it)."""
        if self._bm25 is None:
            return []
        scores = self._bm25.get_scores(list(dict.fromkeys(tokenize(query))))
        hits = [Hit(p, round(float(s), 6)) for p, s in zip(self._pages, scores) if s > 0]
        hits.sort(key=lambda h: (-h.score, h.page.slug))
        return hits[: max(0, limit)]
