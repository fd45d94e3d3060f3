"""Contradictions inside one clause of a sentence that says two things.

The whole-sentence word rules abstain when a sentence states both sides ("approved a fare freeze but
rejected free travel"), and a value matched in the sentence may belong to a clause about someone else
("the lowest, −14.2 °C, at Braemore; the highest, 34.1 °C, at Hollins Cross"). These rules cut the sentence
into clauses (at semicolons, "but", "while", "whereas", and commas before them) and read the clause the
claim is about:

- **clause direction**: the clause sharing the most content words with the claim (three at least, or all
  of a claim's two, and more than any clause stating the claim's own word) states the opposite word: "The board approved free travel
  for under-18s" against "... approved a fare freeze but rejected a proposal to make travel free for
  under-18s".
- **clause value**: the claim binds values the sentence gives in two clauses ("the 16 GB model costs $999"
  against "starts at $999 with 8 GB; our unit, with 16 GB and 1 TB, costs $1,399").
- **clause name**: the claim's values all sit in one clause, which names someone the claim does not, a name
  the claim gives them is absent there, and another clause names it with another value of the same kind: "34.1 °C was recorded at Braemore"
  against the sentence above (Braemore's clause gives −14.2 °C).

Both abstain where either side is negated near the words they read, so that a paraphrase stays PARTIAL.
"""

from __future__ import annotations

import re
from typing import Sequence

from citetrace.eval._align import content_stems
from citetrace.eval._extractive import opposites, said
from citetrace.eval._facts import Fact, comparable, extract_facts, facts_equal, measured, restated
from citetrace.eval._polarity import is_name

__all__ = ["clause_direction_conflict", "clause_name_conflict", "clause_value_conflict"]

_CLAUSE_BREAK = re.compile(r"\s*;\s*|,?\s+\b(?:but|while|whereas)\b\s+|,\s+(?=(?:and|then)\s)")
_MIN_SHARED = 3
_NAME = re.compile(r"\b[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*")


def _clauses(sentence: str) -> list[str]:
    return [c for c in _CLAUSE_BREAK.split(sentence) if c and c.strip()]


def clause_direction_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(flag, explanation) when the clause the claim is about states the opposite word (see above)."""
    clauses = _clauses(sentence)
    if len(clauses) < 2:
        return None
    claim_said, claim_negated = said(claim)
    for one, other, name in opposites():
        for mine, theirs in ((one, other), (other, one)):
            if not claim_said & mine or claim_said & theirs or claim_negated & (one | other):
                continue
            words = set(content_stems(claim)) - one - other
            scored = []
            for clause in clauses:
                stated, negated = said(clause)
                if negated & (one | other):
                    return None
                scored.append((len(words & (set(content_stems(clause)) - one - other)), stated))
            best, stated = max(scored, key=lambda t: t[0])
            own = max((n for n, s in scored if s & mine), default=-1)
            need = min(_MIN_SHARED, len(words)) if len(words) >= 2 else _MIN_SHARED
            if best >= need and best > own and stated & theirs and not stated & mine:
                return "direction_mismatch", f"the clause the claim is about states the opposite ({name})"
    return None


def clause_name_conflict(claim: str, claim_facts: Sequence[Fact], sentence: str,
                         sentence_facts: Sequence[Fact]) -> tuple[str, str] | None:
    """(flag, explanation) when the claim's values sit in one clause and a name the claim gives them sits in
    another clause, with another value of the same kind (see above)."""
    values = [f for f in claim_facts if f.kind not in ("quote", "label")]
    clauses = _clauses(sentence)
    if not values or len(clauses) < 2:
        return None
    facts = [extract_facts(c) for c in clauses]
    holding = [i for i, fs in enumerate(facts) if all(any(facts_equal(v, o) and comparable(v, o) for o in fs)
                                                       for v in values)]
    if len(holding) != 1:
        return None
    home = clauses[holding[0]].lower()
    claim_lower = claim.lower()
    if not any(m.start() and re.sub(r"['’]s$", "", m.group(0)).lower() not in claim_lower
               for m in _NAME.finditer(clauses[holding[0]])):
        return None  # no other name holds the values' clause: the claim's name may be in another role
    for m in _NAME.finditer(claim):
        name = re.sub(r"['’]s$", "", m.group(0))
        if not m.start() or name.lower() in home or not is_name(name, sentence):
            continue
        for i, clause in enumerate(clauses):
            if i == holding[0] or not re.search(rf"\b{re.escape(name)}\b", clause):
                continue
            rival = next((o for o in facts[i] for v in values if comparable(v, o) and not facts_equal(v, o)), None)
            if rival is not None:
                return ("value_in_other_clause", f"the passage gives {name} {rival.text}; the claim's "
                        f"{', '.join(v.text for v in values)} belong(s) to another clause")
    return None


_PARENS = re.compile(r"\([^()]*\)")
"""An aside in parentheses ("500 g flour (I use 450 g white and 50 g whole wheat)") breaks a value down or
restates it: its values belong to no clause of their own (det-6)."""


def clause_value_conflict(claim_facts: Sequence[Fact], sentence: str) -> tuple[str, str] | None:
    """(flag, explanation) when the claim binds values the sentence gives in two clauses: one clause states
    two of the claim's values at least (more than any other clause), and for another claim value it states
    a different one of the same kind ("with 16 GB and 1 TB, costs $1,399" against "with 16 GB ... and a 1 TB
    drive costs $999"; the $999 belongs to the other clause's 8 GB model)."""
    values = measured(claim_facts)
    clauses = _clauses(_PARENS.sub(lambda m: " " * len(m.group()), sentence))
    if len(values) < 3 or len(clauses) < 2:
        return None
    facts = [extract_facts(c) for c in clauses]
    held = [[v for v in values if any(facts_equal(v, o) and comparable(v, o) for o in fs)] for fs in facts]
    counts = sorted((len(h) for h in held), reverse=True)
    home = max(range(len(clauses)), key=lambda i: len(held[i]))
    if counts[0] < 2 or counts[0] == counts[1]:
        return None
    for v in values:
        if v in held[home] or not any(v in h for h in held):
            continue  # only a value the sentence states elsewhere can be bound to the wrong clause
        rival = next((o for o in facts[home] if comparable(v, o) and not any(facts_equal(c, o) for c in values)
                      and not any(restated(clauses[home], o, h) for h in facts[home] if h is not o and any(
                          facts_equal(x, h) for x in held[home]))), None)
        if rival is not None:
            return ("value_in_other_clause", f"the clause stating {', '.join(h.text for h in held[home])} gives "
                    f"{rival.text}, not {v.text}")
    return None
