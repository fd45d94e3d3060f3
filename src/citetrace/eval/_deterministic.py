"""The deterministic checker: numbers, percentages, currency, dates, quotes and directions, compared where
the claim aligns, one passage sentence at a time.

It aligns first (only passage sentences that share content stems with the claim are compared), because
comparing a claim's numbers with every number on a page raises false alarms and misses wrong years. A
claim's facts are matched inside ONE sentence (the aligned sentence that states most of them): "Phoenix
aims for 25 % by 2035" is not supported by "Most cities aim for 30 % by 2035. Phoenix aims for 25 % by
2030" just because each number appears somewhere.

It is a flagger: CONTRADICTED when a claim value is missing where the claim aligns while that sentence
states another, unexplained value of the same kind, when the sentence says the opposite direction (rose /
fell), or when a "from A to B" is reversed. SUPPORTED only from the conservative extractive rule in
``_extractive`` (the claim's content words, in order, inside one sentence, with every fact matched); every
other aligned claim is PARTIAL, with a flag saying what was and was not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from citetrace.eval._align import anchor_words
from citetrace.eval._clauses import clause_direction_conflict, clause_name_conflict, clause_value_conflict
from citetrace.eval._extractive import (
    direction_conflict, entity_conflict, extractive_support, from_to_swapped, local_direction_conflict, opposites,
)
from citetrace.eval._facts import (
    Fact, as_version, bare_year, comparable, dates_compatible, extract_facts, facts_equal, measured, paren_comparison,
    version_key,
)
from citetrace.eval._passages import simple_sentences
from citetrace.eval._polarity import polarity_conflict
from citetrace.eval._roles import role_word_conflict
from citetrace.eval._slots import part_conflict, role_conflict, slot_conflict
from citetrace.eval._types import ABSENT, CONTRADICTED, PARTIAL, SUPPORTED, Passage, Verdict

__all__ = ["DeterministicJudge", "RULE"]

RULE = "rule:"
"""Prefix of the flag naming the rule behind a CONTRADICTED verdict ("rule:rival_stating")."""

_ONCE_PLANNED = re.compile(r"\b(?:originally|initially|was due|were due|had been|scheduled|planned|delayed|"
                           r"postponed|pushed back|put back|moved)\b", re.I)
_STRONG = 0.5
"""A rival value in the sentence the claim aligns with best contradicts only when that sentence shares at least
half of the claim's content words (a value both state counting as one; det-6, ``_strength``): a sentence sharing two words of ten ("Larchmont", "applicants")
says other numbers about other things, and is no evidence against the claim's; the checker abstains."""
_SMALL_ORDINALS = frozenset({1.0, 2.0, 3.0})  # "one of 3 reasons" style counts are too weak to check


@dataclass
class _Sentence:
    text: str
    overlap: int
    facts: list[Fact]


class DeterministicJudge:
    """Compare the claim's facts with the facts of the aligned passage sentences, one sentence at a time."""

    name = "deterministic"
    version = "det-6"

    def __init__(self, *, min_shared: int = 2, extractive_support: bool = True) -> None:
        self.min_shared = min_shared
        self.extractive_support = extractive_support

    def aligned(self, claim: str, passages: Sequence[Passage]) -> list[str]:
        """Passage sentences sharing ``min_shared`` content stems with the claim (one if it has three or fewer)."""
        return [s.text for s in self._aligned(claim, passages)]

    def _aligned(self, claim: str, passages: Sequence[Passage]) -> list[_Sentence]:
        anchors = anchor_words(claim)
        need = 1 if len(anchors) <= 3 else self.min_shared
        out: list[_Sentence] = []
        seen: set[str] = set()
        for p in passages:
            for s, e in simple_sentences(p.text):
                sentence = p.text[s:e]
                shared = len(anchors & anchor_words(sentence))
                if shared >= need and sentence not in seen:
                    seen.add(sentence)
                    out.append(_Sentence(sentence, shared, extract_facts(sentence)))
        return out

    def _aligned_by_value(self, claim: str, passages: Sequence[Passage]) -> list[_Sentence]:
        """When no sentence shares enough words: those sharing one content word AND a value of the claim
        (not a bare year, a name's number or a quotation), or two of its values ("slipped from 91.4 % to
        88.9 %"), or enough words once hyphenated words count by their parts ("second-warmest"): "301 hours
        of bright weather, nearly double the norm" is about "301 hours of sunshine, almost twice the June
        average"."""
        values = measured(extract_facts(claim))
        anchors = _split_anchors(claim)
        out: list[_Sentence] = []
        for p in passages:
            for s, e in simple_sentences(p.text):
                sentence = p.text[s:e]
                shared = len(anchors & _split_anchors(sentence))
                facts = extract_facts(sentence) if values or shared >= self.min_shared else []
                stated = sum(1 for v in values if any(facts_equal(v, o) and comparable(v, o) for o in facts))
                if shared >= self.min_shared or (shared and stated) or stated >= 2:
                    out.append(_Sentence(sentence, shared, facts))
        return out

    def judge(self, claim: str, passages: Sequence[Passage], context: str | None = None) -> Verdict:
        """ABSENT without aligned sentences, CONTRADICTED on a mismatch, SUPPORTED only by the extractive rule,
        otherwise PARTIAL.

        ``context`` is the whole sentence an atomic claim came from: when given, passage sentences are
        aligned with the sentence's words (a part such as "a standard membership costs EUR 60" may share
        no word with "Students pay EUR 30 instead of EUR 72" that its sentence does), and values the other
        parts state count as explained. Only the claim's own values are checked.
        """
        aligned = self._aligned(context or claim, passages) or self._aligned_by_value(claim, passages)
        if not aligned:
            return Verdict(ABSENT, self.name, explanation="no passage sentence shares the claim's content words")
        page = "\n".join(p.text for p in passages)
        everywhere = [f for p in passages for f in extract_facts(p.text)]
        versions = _branches({f.value for f in everywhere if f.kind == "version"})
        for s in aligned:
            s.facts = _with_versions(s.facts, versions)
        claim_facts = [f for f in _with_versions(extract_facts(claim), versions)
                       if f.kind != "number" or f.value not in _SMALL_ORDINALS or f.high is not None or f.unit]
        if _ONCE_PLANNED.search(claim):  # the claim itself speaks of the old date: it may match it
            for s in aligned:
                s.facts = [replace(f, baseline=False) if f.kind in ("date", "period") else f for f in s.facts]
        best = max(aligned, key=lambda s: (sum(_weight(c) for c in claim_facts if any(facts_equal(c, o)
                                                                                    for o in s.facts)), s.overlap))
        conflict = self._word_conflict(claim, claim_facts, _stating(aligned, best, claim_facts), page)
        if conflict:
            return conflict
        if not claim_facts:
            return self._no_facts(claim, aligned)
        dated = [f for f in claim_facts if any(f.baseline != o.baseline and _same_slot(f, o, claim_facts, best)
                                               for o in best.facts)]  # matched through the period it is about
        unplaced = [f for f in claim_facts if not any(_same_slot(f, o, claim_facts, best) for o in best.facts)]
        local_rules: tuple[tuple[str, Callable[[], tuple[str, str] | None]], ...] = (
            ("direction_value", lambda: local_direction_conflict(claim, claim_facts, best.text, best.facts)),
            ("slot", lambda: slot_conflict([f for f in claim_facts if f not in dated], best.text, best.facts)),
            ("role", lambda: role_conflict(unplaced, claim_facts, best.facts)),
            ("clause_name", lambda: clause_name_conflict(claim, claim_facts, best.text, best.facts)),
            ("clause_value", lambda: clause_value_conflict(claim_facts, best.text)),
            ("part", lambda: part_conflict(claim, best.text)))
        for rule, check in local_rules:
            local = check()
            if local:
                return Verdict(CONTRADICTED, self.name, best.text.strip(), local[1], (local[0], RULE + rule))
        explainers = claim_facts + (extract_facts(context) if context else [])
        mismatched: list[Fact] = []
        missing: list[Fact] = []
        matched: list[Fact] = []
        rule = ""
        strong = _strength(best, extract_facts(context) if context else claim_facts,
                           anchor_words(context or claim)) >= _STRONG
        for fact in claim_facts:
            if any(_same_slot(fact, o, claim_facts, best) for o in best.facts) or _quote_in(fact, best.text) or (
                    _in_version_range(fact, best.text)):
                matched.append(fact)
            elif strong and _unexplained_rival(fact, best, explainers) and not _own_period_elsewhere(
                    fact, claim_facts, best) and not any(facts_equal(fact, o) and _anaphoric(best.text, o)
                                                         for o in best.facts):
                mismatched.append(fact)  # the sentence that states the claim's other facts says another value
                rule = rule or "rival_stating"
            elif any(facts_equal(fact, o) for s in aligned for o in s.facts) or any(
                    _quote_in(fact, s.text) for s in aligned):
                missing.append(fact)  # stated, but not in the same sentence as the rest of the claim
            elif not bare_year(fact) and any(facts_equal(fact, o) for o in everywhere):
                missing.append(fact)  # on the page, not where the claim aligns (a bare year such as the page's
                # own date is too common to count)
            elif any(_unexplained_rival(fact, s, explainers, same_slot=True)
                     and not _own_period_elsewhere(fact, claim_facts, s) for s in aligned):
                mismatched.append(fact)  # another sentence gives another value in the claim value's slot
                rule = rule or "rival_elsewhere"
            else:
                missing.append(fact)
        if mismatched:
            flags = tuple(sorted({f"{f.kind}_mismatch" for f in mismatched}))
            found = ", ".join(f.text for f in mismatched)
            return Verdict(CONTRADICTED, self.name, best.text.strip(),
                           f"aligned passage states different values for: {found}", flags + (RULE + rule,))
        if missing:
            flags = tuple(sorted({f"{f.kind}_not_found" for f in missing}))
            return Verdict(PARTIAL, self.name, best.text.strip(), "not found in the sentence where the claim "
                           "aligns: " + ", ".join(f.text for f in missing), flags)
        if self.extractive_support and extractive_support(claim, best.text):
            return Verdict(SUPPORTED, self.name, best.text.strip(), "the claim's words and every value appear, "
                           "in order, in one passage sentence", ("extractive_match",))
        return Verdict(PARTIAL, self.name, best.text.strip(), "every number, date and quote matches in one "
                       "sentence; wording not verified", ("facts_match",))

    def _word_conflict(self, claim: str, claim_facts: Sequence[Fact], stating: Sequence[_Sentence],
                       page: str) -> Verdict | None:
        """CONTRADICTED by a word rule (directions, from/to, names, roles, states), read only in the sentence
        that states the claim: a neighbouring sentence about another crop ("barley shrank") says nothing
        about the claim's wheat. A value both state (not a bare year) counts as a shared word: "Cobalt 2.8
        is affected" and "Versions 2.8 and earlier are not affected" share 2.8."""
        for s in stating:
            shared = s.overlap + sum(1 for c in claim_facts if not bare_year(c) and any(
                facts_equal(c, o) and comparable(c, o) for o in s.facts))
            if shared < max(2, min(len(anchor_words(claim) - _opposite_words()), 3)):
                continue
            for rule, check in _WORD_RULES:
                conflict = check(claim, s.text, page)
                if conflict:
                    return Verdict(CONTRADICTED, self.name, s.text.strip(), conflict[1], (conflict[0], RULE + rule))
        return None

    def _no_facts(self, claim: str, aligned: Sequence[_Sentence]) -> Verdict:
        best = max(aligned, key=lambda s: s.overlap)
        if self.extractive_support:
            for s in aligned:
                if extractive_support(claim, s.text):
                    return Verdict(SUPPORTED, self.name, s.text.strip(), "the claim's words appear, in order, in "
                                   "one passage sentence", ("extractive_match",))
        return Verdict(PARTIAL, self.name, best.text.strip(), "on topic; nothing mechanically checkable",
                       ("nothing_checkable",))


_WORD_RULES: tuple[tuple[str, Callable[[str, str, str], tuple[str, str] | None]], ...] = (
    ("direction_sentence", lambda claim, sentence, page: direction_conflict(claim, sentence)),
    ("clause_direction", lambda claim, sentence, page: clause_direction_conflict(claim, sentence)),
    ("from_to", lambda claim, sentence, page: from_to_swapped(claim, sentence)),
    ("entity", entity_conflict),
    ("role_word", lambda claim, sentence, page: role_word_conflict(claim, sentence)),
    ("polarity", polarity_conflict),
)
"""The word rules, in the order they are tried, each with the name its CONTRADICTED verdict carries as a
``rule:NAME`` flag (so that ``python -m citetrace.eval._audit`` can count each family's right and wrong
verdicts)."""


def _strength(sentence: _Sentence, claim_facts: Sequence[Fact], anchors: set[str]) -> float:
    """How strongly a sentence aligns with the claim: the content words both state, plus the values (not bare
    years) both state, as a share of the claim's content words. A value both state counts as a shared word, as
    for the word rules ("Quill 8.2.3 and 8.1.8" against "Quill 8.2.3 and 8.1.9" share a word and a value of
    three words), but an unstated value costs nothing: the contradicted value is never stated."""
    stated = sum(1 for c in claim_facts if not bare_year(c) and any(
        facts_equal(c, o) and comparable(c, o) for o in sentence.facts))
    return (sentence.overlap + stated) / max(1, len(anchors))


_ANAPHORIC = re.compile(r"\s+(?:of\s+(?:which|whom|them|those|these)|were|was|are|is|have|had|has|did|do)\b", re.I)


def _anaphoric(text: str, fact: Fact) -> bool:
    """A count with no noun of its own ("41 were eventually admitted from it", "nine of which carried the tag")
    refers back to a noun the sentence named before: the sentence states the claim's value, only its unit is
    unread, so a rival of the claim's unit there is no evidence (det-6; "1,300 homes were" has its noun)."""
    return fact.kind == "number" and bool(_ANAPHORIC.match(text, fact.end))


def _split_anchors(text: str) -> set[str]:
    """Content stems, hyphenated words by their parts ("second-warmest" gives "second" and "warmest"; a
    "start-up" on both sides still counts once)."""
    return anchor_words(text.replace("-", " "))


def _opposite_words() -> frozenset[str]:
    """Every stem of an opposite pair: the word a contradiction changes is never one the sides must share."""
    return frozenset().union(*(one | other for one, other, _ in opposites()))


def _weight(fact: Fact) -> float:
    """How much a matched value tells which sentence states the claim: a bare year or a model's number
    ("2025", "Aero 14": a title states them too) half as much as a measured value."""
    return 0.5 if bare_year(fact) or fact.kind == "label" else 1.0


def _stating(aligned: Sequence[_Sentence], best: _Sentence, claim_facts: Sequence[Fact]) -> list[_Sentence]:
    """The sentences a word rule may read: the one stating the claim's values (``best``, when it states one
    of them that is more than a bare year or a model's number), else those sharing the most content words
    with the claim (and ``best`` too, when it states the claim's year: "The summer of 2025 was wetter"
    is about the summer's sentence, not the year's)."""
    states = [c for c in claim_facts if any(facts_equal(c, o) for o in best.facts)]
    if any(_weight(c) == 1.0 for c in states) or (claim_facts and best.facts and not states):
        return [best]
    top = max(s.overlap for s in aligned)
    tops = [s for s in aligned if s.overlap == top]
    return [best] + [s for s in tops if s is not best] if states else tops


def _with_versions(facts: list[Fact], versions: set[str]) -> list[Fact]:
    """Decimals the page names as versions elsewhere are versions here too ("in 5.0" after "Lodestar 5.0")."""
    return [as_version(f) if f.kind == "number" and "." in f.text and version_key(f.text.strip()) in versions
            else f for f in facts]


def _branches(versions: set[str]) -> set[str]:
    """The page's versions and their branches: "5.1.9" names the 5.1 branch, so "the 5.1 branch" is a version
    there too, not the number 5.1."""
    return versions | {".".join(v.split(".")[:2]) for v in versions if v.count(".") >= 2}


_VERSION_RANGE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)+)\s*(?:to|through|thru|–|-)\s*(\d+(?:\.\d+)+)(?![\w.]*\d)")


def _version_tuple(text: str, width: int) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".") if p.isdigit()]
    return tuple(parts + [0] * (width - len(parts)))


def _in_version_range(fact: Fact, sentence: str) -> bool:
    """A claim's version inside a range the sentence states ("3.0" in "versions 2.9.0 to 3.1.4"): stated,
    not contradicted by either end."""
    if fact.kind != "version" or not re.fullmatch(r"\d+(?:\.\d+)*", str(fact.value)):
        return False
    for m in _VERSION_RANGE.finditer(sentence):
        width = max(len(str(fact.value).split(".")), m[1].count(".") + 1, m[2].count(".") + 1)
        if _version_tuple(m[1], width) <= _version_tuple(str(fact.value), width) <= _version_tuple(m[2], width):
            return True
    return False


def _same_slot(fact: Fact, other: Fact, claim_facts: Sequence[Fact], sentence: _Sentence) -> bool:
    """``other`` states ``fact``'s value in the same role and unit: a page's point of comparison ("up from
    41 %") does not confirm a claim that gives it as the current value, unless the claim also names the
    period the comparison is about (a date of the claim stated right after it); 1,300 homes do not confirm
    1,300 businesses."""
    if not facts_equal(fact, other) or not comparable(fact, other):
        return False
    if fact.kind in ("date", "period") or fact.baseline == other.baseline:
        return fact.baseline == other.baseline  # "opened in 2024" is not "delayed from 2024"
    after = [f for f in sentence.facts if f.kind in ("date", "period") and 0 <= f.start - other.end <= 25]
    return any(facts_equal(c, d) for c in claim_facts if c.kind in ("date", "period") for d in after)


def _unexplained_rival(fact: Fact, sentence: _Sentence, claim_facts: Sequence[Fact], same_slot: bool = False) -> bool:
    """The sentence states a value of the same kind that no claim fact accounts for (a claim value of
    another unit, or a less precise date, accounts for nothing: a claim's "2024" does not explain the
    page's "12 June 2024"). With ``same_slot``, only a value sharing two slot words with the claim value
    counts (for sentences other than the one the claim aligns with best)."""
    if fact.kind == "quote":
        return any(o.kind == "quote" and not any(facts_equal(c, o) or _quote_in(c, o.text) for c in claim_facts)
                   for o in sentence.facts)
    return any(comparable(fact, o) and not any(_explains(c, o) for c in claim_facts)
               and not (fact.kind == "date" and dates_compatible(fact, o)) and not _baseline_date(o, sentence)
               and not _before_until(fact, o, sentence.text)
               and {fact.step, o.step} != {"change", "level"} and not (fact.step == "change" and o.baseline)
               and (len(fact.context & o.context) >= 2 if same_slot else _version_rival(fact, o))
               for o in sentence.facts)


def _own_period_elsewhere(fact: Fact, claim_facts: Sequence[Fact], sentence: _Sentence) -> bool:
    """The claim dates this value itself ("rising to 60,000 wafers a month in 2029", the date at most 25
    characters after it) and the sentence states other dates, not that one: its value is for another period
    ("40,000 wafers a month by the end of 2027"), so it is no rival; the page is silent on 2029."""
    own = [d for d in claim_facts if d.kind in ("date", "period") and 0 <= d.start - fact.end <= 25]
    dated = [o for o in sentence.facts if o.kind in ("date", "period")]
    return bool(own and dated) and not any(facts_equal(d, o) for d in own for o in dated)


def _baseline_date(date: Fact, sentence: _Sentence) -> bool:
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


def _quote_in(fact: Fact, sentence: str) -> bool:
    """A claim quotation appears verbatim (case and spacing aside) in the sentence, quoted there or not."""
    if fact.kind != "quote":
        return False
    norm = " ".join(sentence.lower().replace("’", "'").replace("“", '"').replace("”", '"').split())
    return str(fact.value) in norm

