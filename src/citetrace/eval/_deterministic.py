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
from dataclasses import replace
from typing import Callable, Sequence

from citetrace.eval._align import anchor_words
from citetrace.eval._clauses import clause_direction_conflict, clause_name_conflict, clause_value_conflict
from citetrace.eval._extractive import (
    direction_conflict, entity_conflict, extractive_support, from_to_swapped, local_direction_conflict, opposites,
)
from citetrace.eval._facts import (
    Fact, as_version, bare_year, comparable, extract_facts, facts_equal, measured, version_key,
)
from citetrace.eval._passages import simple_sentences
from citetrace.eval._polarity import polarity_conflict
from citetrace.eval._rivals import Sentence, anaphoric, own_period_elsewhere, quote_in, strength, unexplained_rival
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
half of the claim's content words (a value both state counting as one; det-6, ``_rivals.strength``): a sentence
sharing two words of ten ("Larchmont", "applicants") says other numbers about other things, and is no evidence
against the claim's; the checker abstains."""
_SMALL_ORDINALS = frozenset({1.0, 2.0, 3.0})  # "one of 3 reasons" style counts are too weak to check


class DeterministicJudge:
    """Compare the claim's facts with the facts of the aligned passage sentences, one sentence at a time."""

    name = "deterministic"
    version = "det-7"

    def __init__(self, *, min_shared: int = 2, extractive_support: bool = True) -> None:
        self.min_shared = min_shared
        self.extractive_support = extractive_support

    def aligned(self, claim: str, passages: Sequence[Passage]) -> list[str]:
        """Passage sentences sharing ``min_shared`` content stems with the claim (one if it has three or fewer)."""
        return [s.text for s in self._aligned(claim, passages)]

    def _aligned(self, claim: str, passages: Sequence[Passage]) -> list[Sentence]:
        anchors = anchor_words(claim)
        need = 1 if len(anchors) <= 3 else self.min_shared
        out: list[Sentence] = []
        seen: set[str] = set()
        for p in passages:
            for s, e in simple_sentences(p.text):
                sentence = p.text[s:e]
                shared = len(anchors & anchor_words(sentence))
                if shared >= need and sentence not in seen:
                    seen.add(sentence)
                    out.append(Sentence(sentence, shared, extract_facts(sentence)))
        return out

    def _aligned_by_value(self, claim: str, passages: Sequence[Passage]) -> list[Sentence]:
        """When no sentence shares enough words: those sharing one content word AND a value of the claim
        (not a bare year, a name's number or a quotation), or two of its values ("slipped from 91.4 % to
        88.9 %"), or enough words once hyphenated words count by their parts ("second-warmest"): "301 hours
        of bright weather, nearly double the norm" is about "301 hours of sunshine, almost twice the June
        average"."""
        values = measured(extract_facts(claim))
        anchors = _split_anchors(claim)
        out: list[Sentence] = []
        for p in passages:
            for s, e in simple_sentences(p.text):
                sentence = p.text[s:e]
                shared = len(anchors & _split_anchors(sentence))
                facts = extract_facts(sentence) if values or shared >= self.min_shared else []
                stated = sum(1 for v in values if any(facts_equal(v, o) and comparable(v, o) for o in facts))
                if shared >= self.min_shared or (shared and stated) or stated >= 2:
                    out.append(Sentence(sentence, shared, facts))
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

        def placed(f: Fact, o: Fact) -> bool:
            return _same_slot(f, o, claim_facts, best, _times_of(claim, f, claim_facts))

        dated = [f for f in claim_facts if any(f.baseline != o.baseline and placed(f, o)
                                               for o in best.facts)]  # matched through the period it is about
        unplaced = [f for f in claim_facts if not any(placed(f, o) for o in best.facts)]
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
        strong = strength(best, extract_facts(context) if context else claim_facts,
                           anchor_words(context or claim)) >= _STRONG
        for fact in claim_facts:
            if any(placed(fact, o) for o in best.facts) or quote_in(fact, best.text) or (
                    _in_version_range(fact, best.text)):
                matched.append(fact)
            elif strong and unexplained_rival(fact, best, explainers) and not own_period_elsewhere(
                    fact, claim_facts, best) and not any(facts_equal(fact, o) and anaphoric(best.text, o)
                                                         for o in best.facts):
                mismatched.append(fact)  # the sentence that states the claim's other facts says another value
                rule = rule or "rival_stating"
            elif any(facts_equal(fact, o) for s in aligned for o in s.facts) or any(
                    quote_in(fact, s.text) for s in aligned):
                missing.append(fact)  # stated, but not in the same sentence as the rest of the claim
            elif not bare_year(fact) and any(facts_equal(fact, o) for o in everywhere):
                missing.append(fact)  # on the page, not where the claim aligns (a bare year such as the page's
                # own date is too common to count)
            elif any(unexplained_rival(fact, s, explainers, same_slot=True)
                     and not own_period_elsewhere(fact, claim_facts, s) for s in aligned):
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

    def _word_conflict(self, claim: str, claim_facts: Sequence[Fact], stating: Sequence[Sentence],
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

    def _no_facts(self, claim: str, aligned: Sequence[Sentence]) -> Verdict:
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


def _stating(aligned: Sequence[Sentence], best: Sentence, claim_facts: Sequence[Fact]) -> list[Sentence]:
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


def _same_slot(fact: Fact, other: Fact, claim_facts: Sequence[Fact], sentence: Sentence,
               times: frozenset[str] = frozenset()) -> bool:
    """``other`` states ``fact``'s value in the same role and unit: a page's point of comparison ("up from
    41 %") does not confirm a claim that gives it as the current value, unless the claim also names the
    period the comparison is about (a date of the claim stated right after it, or a day word the claim uses:
    "less than the 12,000 acres it burned on Monday" is "burned 12,000 acres on Monday", det-7); 1,300 homes
    do not confirm 1,300 businesses."""
    if not facts_equal(fact, other) or not comparable(fact, other):
        return False
    if fact.kind in ("date", "period") or fact.baseline == other.baseline:
        return fact.baseline == other.baseline  # "opened in 2024" is not "delayed from 2024"
    after = [f for f in sentence.facts if f.kind in ("date", "period") and 0 <= f.start - other.end <= 25]
    return any(facts_equal(c, d) for c in claim_facts if c.kind in ("date", "period") for d in after) or bool(
        times & _time_words(sentence.text[other.end:other.end + 30]))


_TIME_WORD = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|today|"
                        r"tonight|last\s+(?:week|month|year|season|quarter))\b", re.I)


def _times_of(claim: str, fact: Fact, claim_facts: Sequence[Fact]) -> frozenset[str]:
    """The day words the claim dates ``fact`` with: within 30 characters of it, no other claim value of its kind
    between ("On Monday the fire burned 12,000 acres"; in "44.1 million is up from 48.6 million last year",
    "last year" dates 48.6, not 44.1)."""
    out: set[str] = set()
    for m in _TIME_WORD.finditer(claim):
        lo, hi = (m.end(), fact.start) if m.end() <= fact.start else (fact.end, m.start())
        if hi - lo <= 30 and not any(c is not fact and c.kind == fact.kind and lo <= c.start < hi for c in claim_facts):
            out.add(" ".join(m.group(0).lower().split()))
    return frozenset(out)


def _time_words(text: str) -> frozenset[str]:
    """The day and relative-period words of ``text`` ("on Monday", "last year"), lower-cased."""
    return frozenset(" ".join(m.group(0).lower().split()) for m in _TIME_WORD.finditer(text))
