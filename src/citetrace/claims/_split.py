"""Split one sentence into atomic claims, each with the citation anchors that belong to it.

"The vendor supports SSO on Business and Enterprise tiers, and it costs $12 per seat" is two claims: judged
as one, the price in the second half looks like a contradiction of the first, and one citation for the
tiers would vouch for the price too. The rules are deliberately conservative (a wrong split hurts more than
a missed one, because a half-claim read alone can mean something else):

- split at ``;`` and at ``, and`` / ``, but`` / ``, while`` / ``, whereas`` / ``, yet`` / ``, although``
  when both sides are clauses (at least three words, a finite verb); a bare ``and``/``but``/``while``
  (no comma) splits only when the right side is a clause whose verb comes within its first four words with
  no comma before it, and never between two numbers ("between 2019 and 2023");
- never inside quotation marks or parentheses; Oxford-comma lists ("buses, trams, and ferries") stay whole;
- a right side that opens with a verb ("... and costs $12 per seat") gets the first clause's subject, which
  is recorded in ``shared_subject``; a right side that opens with a pronoun ("it costs") keeps the pronoun
  (substituting a guess can change what the claim says), and the whole sentence stays available to a judge.

Anchors: an anchor inside a claim's stretch of the sentence is that claim's own. Anchors after the last word
of the sentence are sentence-final: by convention they cover the whole sentence, so every claim without
anchors of its own gets them (``inherited``). A claim that still has none gets every anchor of the sentence,
also ``inherited``: the writer cited something for the sentence and we cannot tell which part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from citetrace.claims._anchors import Anchor, find_anchors
from citetrace.claims._clean import blank_anchors, clean_claim_text
from citetrace.claims._words import PREPOSITIONS, PRONOUN_SUBJECTS, WORD, is_verb, starts_like_verb

__all__ = ["AtomicClaim", "split_claims", "MAX_CLAIMS"]

MAX_CLAIMS = 8
"""At most this many claims per sentence; the rest stays in the last claim (a bound, not a guess)."""


@dataclass(frozen=True)
class AtomicClaim:
    """One checkable claim of a sentence.

    ``text`` is what a judge should read: the clause without anchors, dangling attributions ("according
    to ." where a URL was) or the leading conjunction, with ``shared_subject`` prepended when the clause
    had none. ``start``/``end`` is the clause's span in the sentence as given (the conjunction excluded).
    ``anchors`` are the anchors that belong to it; ``inherited`` says they were borrowed from the sentence
    rather than written inside the clause.
    """

    index: int
    text: str
    start: int
    end: int
    anchors: tuple[Anchor, ...] = ()
    inherited: bool = False
    shared_subject: str | None = None

    @property
    def urls(self) -> tuple[str, ...]:
        """Distinct URLs of the claim's anchors, in order (markers without a known URL are skipped)."""
        out: list[str] = []
        for a in self.anchors:
            if a.url and a.url not in out:
                out.append(a.url)
        return tuple(out)


_SEMI = re.compile(r"\s*;\s+")
_COMMA_CONJ = re.compile(r",\s+(?:and|but|while|whereas|yet|although|though)\s+(?:(?:also|then)\s+)?", re.I)
_BARE_CONJ = re.compile(r"\s+(?:and|but|while|whereas)\s+(?:(?:also|then)\s+)?")
_DETERMINERS = frozenset("the a an its their this that these those our his her my your each every no".split())
_NUMBERISH = re.compile(r"^[$€£]?\d")


def _protected(text: str) -> list[bool]:
    """True inside quotations and parentheses, where a clause boundary is never cut."""
    inside = [False] * len(text)
    for m in re.finditer(r"\"[^\"]*\"|“[^“”]*”|\([^()]*\)|\[[^\[\]]*\]", text):
        for k in range(m.start(), m.end()):
            inside[k] = True
    return inside


def _finite_verb_at(words: list[str]) -> int | None:
    """Index of the first word that reads as a finite verb (not right after a determiner or preposition)."""
    for i, w in enumerate(words):
        if not is_verb(w) or (i and words[i - 1].lower() in _DETERMINERS | PREPOSITIONS):
            continue
        if i == 0 and not w[:1].islower():
            continue
        return i
    return None


def _subject(visible: str, start: int, end: int) -> str | None:
    """The first clause's subject: the words before its verb, after the last comma before it (1-8 words)."""
    clause = visible[start:end]
    words = list(WORD.finditer(clause))
    verb = _finite_verb_at([m.group(0) for m in words])
    if not verb:
        return None
    head = clause[: words[verb].start()]
    commas = [m.end() for m in re.finditer(r",(?!\d)", head)]  # a thousands separator is not a comma
    head = head[commas[-1] if commas else 0:].strip()
    n = len(WORD.findall(head))
    return head if 1 <= n <= 8 else None


def split_claims(sentence: str, anchors: Sequence[Anchor] | None = None) -> list[AtomicClaim]:
    """The atomic claims of ``sentence``, in order (always at least one for a sentence with words).

    ``anchors`` are the citation anchors with spans in ``sentence``; when None they are found with
    :func:`find_anchors` (numbered markers, footnotes, markdown links, URLs). A sentence that is not
    text is a ``TypeError``.
    """
    if not isinstance(sentence, str):
        raise TypeError(f"split_claims needs a sentence string, got {type(sentence).__name__}")
    found = list(find_anchors(sentence) if anchors is None else anchors)
    for a in found:
        if not 0 <= a.start <= a.end <= len(sentence):
            raise ValueError(f"anchor {a.marker!r} span [{a.start}, {a.end}) is outside the sentence")
    visible = blank_anchors(sentence, found)
    if not WORD.search(visible):
        return [AtomicClaim(0, clean_claim_text(visible), 0, len(sentence), tuple(found), bool(found))] \
            if found else []
    cuts = _cuts(visible)[: MAX_CLAIMS - 1]
    regions = [(0, 0)] + cuts  # (region start, clause start)
    claims: list[AtomicClaim] = []
    last_word = max(m.end() for m in re.finditer(r"\w", visible))
    final = tuple(a for a in found if a.start >= last_word)
    subject = _subject(visible, 0, cuts[0][0]) if cuts else None
    for i, (region_start, clause_start) in enumerate(regions):
        region_end = regions[i + 1][0] if i + 1 < len(regions) else len(sentence)
        own = tuple(a for a in found if region_start <= a.start < region_end)
        anchors_for, inherited = own, False
        if not own and found:
            anchors_for, inherited = (final or tuple(found)), True
        body = visible[clause_start:region_end]
        shared = subject if i and starts_like_verb(WORD.findall(body)) else None
        text = clean_claim_text(f"{shared} {body}" if shared else body)
        end = clause_start + len(body.rstrip())
        claims.append(AtomicClaim(i, text, clause_start, end, anchors_for, inherited, shared))
    return claims


def _cuts(visible: str) -> list[tuple[int, int]]:
    """Accepted clause boundaries as (cut start, next clause start), left to right."""
    inside = _protected(visible)
    candidates: list[tuple[int, int, bool]] = []
    for pattern, strict in ((_SEMI, False), (_COMMA_CONJ, False), (_BARE_CONJ, True)):
        for m in pattern.finditer(visible):
            cut = m.start() + len(m.group(0)) - len(m.group(0).lstrip())  # after the spaces: an anchor
            if not inside[cut]:  # blanked just before "and" still belongs to the left clause
                candidates.append((cut, m.end(), strict))
    candidates.sort()
    accepted: list[tuple[int, int]] = []
    left_start = 0
    for k, (cut, nxt, strict) in enumerate(candidates):
        if cut < left_start:
            continue
        right_end = next((c for c, _, _ in candidates[k + 1:] if c >= nxt), len(visible))
        left = WORD.findall(visible[left_start:cut])
        right = WORD.findall(visible[nxt:right_end])
        if _accept(left, right, visible[nxt:right_end], strict):
            accepted.append((cut, nxt))
            left_start = nxt
    return accepted


def _accept(left: list[str], right: list[str], right_text: str, strict: bool) -> bool:
    """Both sides are clauses, or the right side is a verb phrase sharing the left side's subject."""
    if len(left) < 3 or len(right) < 3 or _finite_verb_at(left) is None:
        return False
    if strict and _NUMBERISH.match(left[-1]) and _NUMBERISH.match(right[0]):
        return False  # "between 2019 and 2023"
    if starts_like_verb(right):
        return True  # "... and costs $12 per seat": the subject is shared
    if right[0].lower() in PREPOSITIONS:
        return False
    verb = _finite_verb_at(right)
    if verb is None or verb == 0 or verb == len(right) - 1 and not right[0].lower() in PRONOUN_SUBJECTS:
        return False
    if strict:
        before_verb = right_text[: right_text.find(right[verb])]
        return verb <= 3 and "," not in before_verb
    return True
