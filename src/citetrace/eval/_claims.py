"""Which sentences need a citation, and the (claim, cited URL) pairs a report yields.

Headings, questions, table headers and transitions ("In summary:", "The findings follow.") carry no factual
claim; counting them against coverage is the ALCE trap. Anything that cites something is a claim.
"""

from __future__ import annotations

import re
from typing import Iterable

from citetrace.eval._types import Pair, Sentence

__all__ = ["classify", "make_pairs"]

_TRANSITION_START = re.compile(
    r"^(in (summary|conclusion|short|brief|sum)|overall|to (sum up|summarize|summarise|conclude)|"
    r"the (following|sections? below|table below)|below( is| are|,)|here (is|are)|this (report|section|answer|summary)"
    r"|next,|finally,?$|first,?$|for example:|key (findings|points|takeaways)|summary|sources?|references?)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z]+|\d+")
_DIGIT = re.compile(r"\d")


def classify(text: str, block_kind: str, has_citation: bool) -> tuple[bool, str]:
    """(needs_citation, reason) for one sentence."""
    if has_citation:
        return True, "claim"
    if block_kind == "heading":
        return False, "heading"
    if block_kind == "table_header":
        return False, "table_header"
    stripped = text.strip().strip("*_ ")
    if stripped.endswith("?"):
        return False, "question"
    words = _WORD.findall(stripped)
    if stripped.endswith(":") and not _DIGIT.search(stripped):
        return False, "transition"
    if _TRANSITION_START.match(stripped) and not _DIGIT.search(stripped) and len(words) <= 12:
        return False, "transition"
    if len(words) <= 3 and not _DIGIT.search(stripped):
        return False, "transition"
    return True, "claim"


def make_pairs(sentences: Iterable[Sentence]) -> list[Pair]:
    """One pair per atomic claim and distinct cited URL (or unresolved marker) that belongs to it, or one
    uncited pair per sentence that cites nothing."""
    pairs: list[Pair] = []
    for s in sentences:
        if not s.needs_citation:
            continue
        if not s.citations:
            pairs.append(Pair(s, None))
            continue
        claims = s.claims or (None,)
        for claim in claims:
            if claim is None:
                cites, index, text, inherited = s.citations, 0, None, False
            else:
                cites = tuple(s.citations[int(a.key)] for a in claim.anchors if a.key is not None)
                index, text, inherited = claim.index, claim.text or s.text, claim.inherited
            seen: set[str] = set()
            for c in cites:
                if c.url is not None:
                    if c.url in seen:
                        continue
                    seen.add(c.url)
                pairs.append(Pair(s, c.url, c.marker, c.problem, index, text, inherited))
    return pairs
