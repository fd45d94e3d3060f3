"""The value rivals of the deterministic checker: when another value in a page sentence is evidence against a
claim's value, and when it is not (det-6: only in a sentence that aligns strongly, never a count that refers
back, a comparison's date, a change against a level, a year inside an "until" span, a version's point of
comparison). Kept apart from ``_deterministic`` so that the judge's flow and the rival's tests stay small."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from citetrace.eval._facts import Fact, bare_year, comparable, dates_compatible, facts_equal, paren_comparison

__all__ = ["Sentence", "strength", "anaphoric", "unexplained_rival", "own_period_elsewhere", "quote_in"]


@dataclass
class Sentence:
    text: str
    overlap: int
    facts: list[Fact]


def strength(sentence: Sentence, claim_facts: Sequence[Fact], anchors: set[str]) -> float:
    """How strongly a sentence aligns with the claim: the content words both state, plus the values (not bare
    years) both state, as a share of the claim's content words. A value both state counts as a shared word, as
    for the word rules ("Quill 8.2.3 and 8.1.8" against "Quill 8.2.3 and 8.1.9" share a word and a value of
    three words), but an unstated value costs nothing: the contradicted value is never stated."""
    stated = sum(1 for c in claim_facts if not bare_year(c) and any(
        facts_equal(c, o) and comparable(c, o) for o in sentence.facts))
    return (sentence.overlap + stated) / max(1, len(anchors))


_ANAPHORIC = re.compile(r"\s+(?:of\s+(?:which|whom|them|those|these)|were|was|are|is|have|had|has|did|do)\b", re.I)


def anaphoric(text: str, fact: Fact) -> bool:
    """A count with no noun of its own ("41 were eventually admitted from it", "nine of which carried the tag")
    refers back to a noun the sentence named before: the sentence states the claim's value, only its unit is
    unread, so a rival of the claim's unit there is no evidence (det-6; "1,300 homes were" has its noun)."""
    return fact.kind == "number" and bool(_ANAPHORIC.match(text, fact.end))


def unexplained_rival(fact: Fact, sentence: Sentence, claim_facts: Sequence[Fact], same_slot: bool = False) -> bool:
    """The sentence states a value of the same kind that no claim fact accounts for (a claim value of
    another unit, or a less precise date, accounts for nothing: a claim's "2024" does not explain the
    page's "12 June 2024"). With ``same_slot``, only a value sharing two slot words with the claim value
    counts (for sentences other than the one the claim aligns with best)."""
    if fact.kind == "quote":
        return any(o.kind == "quote" and not any(facts_equal(c, o) or quote_in(c, o.text) for c in claim_facts)
                   for o in sentence.facts)
    return any(comparable(fact, o) and not any(_explains(c, o) for c in claim_facts)
               and not (fact.kind == "date" and dates_compatible(fact, o)) and not _baseline_date(o, sentence)
               and not _before_until(fact, o, sentence.text)
               and {fact.step, o.step} != {"change", "level"} and not (fact.step == "change" and o.baseline)
               and (len(fact.context & o.context) >= 2 if same_slot else _version_rival(fact, o))
               for o in sentence.facts)


def own_period_elsewhere(fact: Fact, claim_facts: Sequence[Fact], sentence: Sentence) -> bool:
    """The claim dates this value itself ("rising to 60,000 wafers a month in 2029", the date at most 25
    characters after it) and the sentence states other dates, not that one: its value is for another period
    ("40,000 wafers a month by the end of 2027"), so it is no rival; the page is silent on 2029."""
    own = [d for d in claim_facts if d.kind in ("date", "period") and 0 <= d.start - fact.end <= 25]
    dated = [o for o in sentence.facts if o.kind in ("date", "period")]
    return bool(own and dated) and not any(facts_equal(d, o) for d in own for o in dated)


def _baseline_date(date: Fact, sentence: Sentence) -> bool:
    """A date or period right after the sentence's point of comparison ("up from 68 % in 2023–24"), or
    opening a comparison in parentheses ("(2023–24: 34 %)"), dates the comparison, not the value the
    sentence is about: it is no rival of the claim's own period."""
    return date.kind in ("date", "period") and (paren_comparison(sentence.text, date.start) or any(
        f.baseline and 0 <= date.start - f.end <= 25 for f in sentence.facts))


_UNTIL = re.compile(r"\b(?:until|till|through|up to)\s+(?:the\s+end\s+of\s+)?$", re.I)


def _before_until(fact: Fact, other: Fact, text: str) -> bool:
    """A year before the one something lasted "until" ("employed 40 people until 2024") is inside that
    span: "still employed 40 people in 2023" is no rival of it (a claim's own "until 1 January 2025" is)."""
    return fact.kind == other.kind == "date" and fact.value[0] is not None and other.value[0] is not None and (
        fact.value[0] < other.value[0]) and "until" not in fact.context and bool(
        _UNTIL.search(text[max(0, other.start - 25):other.start]))


def _version_rival(fact: Fact, other: Fact) -> bool:
    """A version is the rival of a claim's version only where it is not the page's point of comparison ("up
    to 3x faster than in 4.8" says nothing against "in 5.0") and, when either has slot words, they share
    one (a release page names several versions: "removed in 6.0" is the rival of "removed in 5.0")."""
    if "version" not in (fact.kind, other.kind):
        return True
    if other.baseline:
        return False
    return bool(fact.context & other.context) or not (fact.context or other.context)


def _explains(claim_fact: Fact, other: Fact) -> bool:
    """A claim value accounts for a passage value: equal, comparable, and (for dates) at least as precise."""
    if not facts_equal(claim_fact, other) or not comparable(claim_fact, other):
        return False
    if claim_fact.kind == "date":
        return sum(v is not None for v in claim_fact.value[1:]) >= sum(v is not None for v in other.value[1:])
    return True


def quote_in(fact: Fact, sentence: str) -> bool:
    """A claim quotation appears verbatim (case and spacing aside) in the sentence, quoted there or not."""
    if fact.kind != "quote":
        return False
    norm = " ".join(sentence.lower().replace("’", "'").replace("“", '"').replace("”", '"').split())
    return str(fact.value) in norm
