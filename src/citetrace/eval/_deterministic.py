"""The deterministic checker: numbers, percentages, currency, dates and quotes, compared where they align.

It aligns first (only passage sentences that share anchor words with the claim are compared), because
comparing a claim's numbers with every number on a page raises false alarms and misses wrong years. It
never answers SUPPORTED: matching numbers do not show that the page says what the sentence says. Its job is
to flag what an LLM judge may miss, and to be the offline default.
"""

from __future__ import annotations

from typing import Sequence

from citetrace.eval._facts import Fact, anchor_words, comparable, extract_facts, facts_equal
from citetrace.eval._passages import simple_sentences
from citetrace.eval._types import ABSENT, CONTRADICTED, PARTIAL, Passage, Verdict

__all__ = ["DeterministicJudge"]


class DeterministicJudge:
    """Compare the claim's facts with the facts of the aligned passage sentences."""

    name = "deterministic"
    version = "det-1"

    def __init__(self, *, min_shared: int = 2) -> None:
        self.min_shared = min_shared

    def aligned(self, claim: str, passages: Sequence[Passage]) -> list[str]:
        """Passage sentences sharing ``min_shared`` anchor words with the claim (one if it has three or fewer)."""
        anchors = anchor_words(claim)
        need = 1 if len(anchors) <= 3 else self.min_shared
        out: list[str] = []
        for p in passages:
            for s, e in simple_sentences(p.text):
                sentence = p.text[s:e]
                if len(anchors & anchor_words(sentence)) >= need and sentence not in out:
                    out.append(sentence)
        return out

    def judge(self, claim: str, passages: Sequence[Passage]) -> Verdict:
        """ABSENT without aligned sentences, CONTRADICTED on a fact mismatch, otherwise at most PARTIAL."""
        aligned = self.aligned(claim, passages)
        if not aligned:
            return Verdict(ABSENT, self.name, explanation="no passage sentence shares the claim's content words")
        claim_facts = [f for f in extract_facts(claim) if f.kind != "number" or f.value not in _SMALL_ORDINALS]
        if not claim_facts:
            return Verdict(PARTIAL, self.name, aligned[0], "on topic; nothing mechanically checkable",
                           ("nothing_checkable",))
        aligned_facts = [f for s in aligned for f in extract_facts(s)]
        everywhere = [f for p in passages for f in extract_facts(p.text)]
        mismatched: list[Fact] = []
        missing: list[Fact] = []
        matched: list[Fact] = []
        # A value of the passage "is explained" when some claim fact states it; only an unexplained value of
        # the same kind where the claim aligns makes a claim fact a mismatch ("from 2022 to 2023" against a
        # passage that only says 2022 is a missing 2023, not a contradiction).
        unexplained = [o for o in aligned_facts if not any(facts_equal(c, o) for c in claim_facts)]
        for fact in claim_facts:
            if any(facts_equal(fact, other) for other in aligned_facts):
                matched.append(fact)
            elif not _bare_year(fact) and any(facts_equal(fact, other) for other in everywhere):
                missing.append(fact)  # stated on the page, but not where the claim's words are (a bare year
                # elsewhere on the page, such as its own date, is too common to count)
            elif any(comparable(fact, other) for other in unexplained):
                mismatched.append(fact)
            else:
                missing.append(fact)
        quote = _evidence(aligned, matched or claim_facts)
        if mismatched:
            flags = tuple(sorted({f"{f.kind}_mismatch" for f in mismatched}))
            found = ", ".join(f.text for f in mismatched)
            return Verdict(CONTRADICTED, self.name, quote, f"aligned passage states different values for: {found}",
                           flags)
        if missing:
            flags = tuple(sorted({f"{f.kind}_not_found" for f in missing}))
            return Verdict(PARTIAL, self.name, quote, "not found where the claim aligns: "
                           + ", ".join(f.text for f in missing), flags)
        return Verdict(PARTIAL, self.name, quote, "every number, date and quote matches; wording not verified",
                       ("facts_match",))


_SMALL_ORDINALS = frozenset({1.0, 2.0, 3.0})  # "one of 3 reasons" style counts are too weak to check


def _bare_year(fact: Fact) -> bool:
    return fact.kind == "date" and fact.value[1] is None


def _evidence(aligned: Sequence[str], facts: Sequence[Fact]) -> str:
    for sentence in aligned:
        if any(f.text in sentence for f in facts):
            return sentence.strip()
    return aligned[0].strip()
