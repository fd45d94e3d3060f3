"""Contradictions of polarity and of who: a negated statement, a split vote against "unanimously", and the
same sentence said of another named actor.

Each rule reads only the sentence that states the claim (the caller chooses it) and fires only when the
two sides share most of their words, so that a paraphrase stays PARTIAL:

- **negation**: "Neither vaccine has yet been approved by the regulator" against "Both vaccines have been
  approved by the regulator": the sentence negates a clause (three content words at least) whose every
  content word one clause of the claim states without negation; or the reverse (a negated claim clause, a
  sentence clause that states all of it without any negation). Quantified or comparative negations ("not only", "no other",
  "not all", "no more than", anything with "than") are affirmative in effect and never count.
- **unanimity**: "voted unanimously" against "voted 5–2" (and the reverse).
- **actor**: "City finished with ten men" against "Rovers finished with ten men": the sentence opens with
  another proper name than the claim, both names are names on the page (capitalised where a sentence does
  not start), neither sentence names the other's, and the rest of the claim is the rest of the sentence.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citetrace.eval._align import content_stems, stem
from citetrace.eval._facts import Fact, extract_facts, facts_equal

__all__ = ["polarity_conflict", "is_name"]

_CUE = re.compile(r"\b(?:not|no longer|no|never|neither|nor|cannot)\b|n't\b", re.I)
_AFFIRMATIVE = re.compile(r"\b(?:not only|not just|not least|not until|not all|not every|not always|not entirely|"
                          r"not fully|not quite|not much|not many|not as|no other|no fewer|no less|no more|"
                          r"never before|nothing but|no doubt|no sooner|than)\b", re.I)
_CLAUSE = re.compile(r"[^,;:()]+")
_AUX = frozenset("be been being is are was were has have had yet ever do does did will would can could shall "
                 "should also to the a an any longer one either so already both".split())
_WORD = re.compile(r"[a-z][a-z'-]*")
_MIN_SHARED = 3


def _negated_stems(clause: str) -> list[str]:
    """The first two content stems after the clause's negation cue (auxiliaries skipped)."""
    m = _CUE.search(clause)
    if not m:
        return []
    words = [w for w in _WORD.findall(clause[m.end():].lower()) if w not in _AUX]
    return content_stems(" ".join(words))[:2]


def _stems(clause: str) -> list[str]:
    """Content stems without the negation cue and the auxiliaries ("yet", "already", "ever")."""
    return content_stems(" ".join(w for w in _WORD.findall(_CUE.sub(" ", clause.lower())) if w not in _AUX))


def _negated_in(negating: str, other: str) -> str | None:
    """The clause of ``negating`` whose negation ``other`` contradicts: its negated predicate and every one
    of its content words (three at least) stated, without negation, in ONE clause of ``other``. "was not led
    by an existing investor" is not contradicted by "was led by Harbour Capital, with two existing
    investors": no single clause there says "led by ... existing investor"."""
    clauses = [c for c in _CLAUSE.findall(other) if not _CUE.search(c)]
    for clause in _CLAUSE.findall(negating):
        negated, words = _negated_stems(clause), set(_stems(clause))
        if negated and len(words) >= _MIN_SHARED and any(words <= set(_stems(c)) and _same_when(clause, c)
                                                         for c in clauses):
            return str(clause).strip()
    return None


_WHEN = frozenset("last next previous former formerly earlier later ago this since until before after once "
                  "originally initially".split())


def _same_when(one: str, other: str) -> bool:
    """The two clauses speak of the same time: the same time words, and every value of each in the other
    ("has not raised council tax this year" says nothing against "raised council tax by 3 % last year")."""
    if {w for w in _WORD.findall(one.lower()) if w in _WHEN} != {w for w in _WORD.findall(other.lower()) if w in _WHEN}:
        return False
    a, b = _values(one), _values(other)
    return all(any(facts_equal(x, y) for y in b) for x in a) and all(any(facts_equal(y, x) for x in a) for y in b)


def _values(text: str) -> list[Fact]:
    """The values a clause is about (a model's name, "the Nimbus 15", is part of its subject, not a value)."""
    return [f for f in extract_facts(text) if f.kind not in ("label", "quote")]


@lru_cache(maxsize=1)
def _span_words() -> frozenset[str]:
    """Words that only say which values a clause is about ("Versions 3.1 and earlier"); stemmed on first use
    (the stemmer is the [eval] extra: importing citetrace.eval must not need it)."""
    return frozenset(stem(w) for w in "version versions release releases earlier later older newer prior "
                     "previous below above".split())


def _negated_value(sentence: str, claim: str, page: str) -> str | None:
    """A clause whose subject is a value ("Versions 2.8 and earlier are not affected") against a claim
    that states the same values, un-negated, with the negated predicate ("Cobalt 2.8 is also affected by
    the parser flaw"): the value stands in for the subject's words. Every content word of the claim must be
    on the page, so that a claim about something else ("has a memory leak") is not read as the page's."""
    claim_stems = set(_stems(claim))
    for clause in _CLAUSE.findall(sentence):
        negated = _negated_stems(clause)  # cheap tests first: most sentences negate nothing
        if not negated or not set(_stems(clause)) - _span_words() <= claim_stems:
            continue  # every word of the negated clause but the values' own ("versions ... and earlier")
        theirs, mine = _values(clause), _values(claim)
        if theirs and all(any(facts_equal(t, c) for c in mine) for t in theirs) and all(
                any(facts_equal(c, t) for t in theirs) for c in mine) and claim_stems <= set(content_stems(page)):
            return str(clause).strip()
    return None


def _negation(claim: str, sentence: str, page: str) -> str | None:
    if _AFFIRMATIVE.search(claim) or _AFFIRMATIVE.search(sentence):
        return None
    if not _CUE.search(claim):
        clause = _negated_in(sentence, claim) or _negated_value(sentence, claim, page)
        return f"the passage negates it: {clause!r}" if clause else None
    if _CUE.search(sentence):
        return None
    clause = _negated_in(claim, sentence)
    return "the passage states without negation what the claim negates" if clause else None


_SPLIT = re.compile(r"\bvot\w*\s+(?:by\s+)?(\d+)\s*(?:[–-]|votes?\s+to)\s*(\d+)", re.I)
_UNANIMOUS = re.compile(r"\bunanimous(?:ly)?\b", re.I)


def _unanimity(claim: str, sentence: str) -> str | None:
    def split(text: str) -> bool:
        return any(int(m.group(2)) > 0 and int(m.group(1)) > 0 for m in _SPLIT.finditer(text))

    if _UNANIMOUS.search(claim) and not _UNANIMOUS.search(sentence) and split(sentence):
        return "the passage gives a split vote, the claim a unanimous one"
    if split(claim) and _UNANIMOUS.search(sentence) and not _UNANIMOUS.search(claim):
        return "the passage says unanimous, the claim gives a split vote"
    return None


_LEAD = re.compile(r"^\s*(?:The\s+)?((?:[A-Z][\w'’-]+\s+){0,3}[A-Z][\w'’-]+)(?=\s+[a-z])")


def is_name(name: str, page: str) -> bool:
    """Capitalised on the page where no sentence starts: "Rovers" in "beat Northfield Rovers" is a name,
    "Researchers" only ever opening a sentence is not."""
    for m in re.finditer(rf"\b{re.escape(name.split()[0])}\b", page):
        before = page[:m.start()].rstrip(" \t\"“'(")
        if before and before[-1] not in ".!?:\n":
            return True
    return False


def _actor(claim: str, sentence: str, page: str) -> str | None:
    mc, ms = _LEAD.match(claim), _LEAD.match(sentence)
    if not mc or not ms:
        return None
    mine, theirs = mc.group(1), ms.group(1)
    mine_words, their_words = set(mine.lower().split()), set(theirs.lower().split())
    if mine_words & their_words or not (is_name(mine, page) and is_name(theirs, page)):
        return None
    if any(re.search(rf"\b{re.escape(w)}\b", sentence.lower()) for w in mine_words) or any(
            re.search(rf"\b{re.escape(w)}\b", claim.lower()) for w in their_words):
        return None
    rest = set(content_stems(claim[mc.end():]))
    shared = rest & set(content_stems(sentence[ms.end():]))
    if len(shared) >= _MIN_SHARED and len(shared) >= 0.75 * len(rest):
        return f"the passage says this of {theirs!r}, not {mine!r}"
    return None


def polarity_conflict(claim: str, sentence: str, page: str) -> tuple[str, str] | None:
    """(flag, explanation) for the first rule above that fires on the stating sentence, or None."""
    for flag, found in (("negation_mismatch", _negation(claim, sentence, page)),
                        ("vote_mismatch", _unanimity(claim, sentence))):
        if found:
            return flag, found
    if not _CUE.search(claim) and not _CUE.search(sentence):
        for clause in _CLAUSES.split(sentence):  # two actors in one sentence: each clause has its own
            found = _actor(claim, clause, page)
            if found:
                return "actor_mismatch", found
    return None


_CLAUSES = re.compile(r"\s*;\s*|,\s+(?:and|but|while|whereas)\s+")
