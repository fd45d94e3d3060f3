"""Values in the wrong slot: the claim states the page's values, but attached to the wrong things.

"Business costs $15 per seat per month on annual billing and $12 month to month" states both of the page's
prices ("$12 per seat per month when billed annually, or $15 month to month"), so matching values alone
passes it. Each value carries its slot words (``Fact.context``: the content stems next to it, up to a
break); a claim value whose slot words belong, in the page sentence, to ANOTHER value of the same kind,
while the page's copy of the claim value sits in a slot that shares fewer of them, is a swap.

Only words that tell the sentence's values apart count (a word in the slots of two of its values, such as
"month" above, says nothing about which is which), and a slot must share at least one of them, so a
paraphrase that shares no slot words is never a swap: it stays what the value check makes it.

The same holds for roles: a claim that gives the page's point of comparison ("up from EUR 44.1 million")
as the current value, while the page's current value is another one, is CONTRADICTED.
"""

from __future__ import annotations

import re
from typing import Sequence

from citetrace.eval._align import content_stems
from citetrace.eval._facts import Fact, comparable, facts_equal

__all__ = ["slot_conflict", "role_conflict", "part_conflict"]


def _same_unit(a: Fact, b: Fact) -> bool:
    """Comparable, and for plain numbers both with a unit word in common (a count of tonnes is never in the
    slot of "31 years")."""
    return comparable(a, b) and (a.kind != "number" or bool(a.unit and b.unit))


def _distinctive(sentence: str, sentence_facts: Sequence[Fact], claim_fact: Fact) -> list[tuple[Fact, frozenset[str]]]:
    """The sentence's values of the claim value's kind, each with the slot words no other of them has and
    that the sentence uses once (a word it repeats elsewhere could belong to either)."""
    same = [o for o in sentence_facts if o.kind not in ("quote", "date") and _same_unit(claim_fact, o)]
    stems = content_stems(sentence)
    once = frozenset(w for w in stems if stems.count(w) == 1)
    out = []
    for o in same:
        others = frozenset().union(*(x.context for x in same if x is not o))
        out.append((o, (o.context - others) & once))
    return out


_MIN_SHARED = 2


def slot_conflict(claim_facts: Sequence[Fact], sentence: str, sentence_facts: Sequence[Fact]) -> tuple[str, str] | None:
    """(flag, explanation) when a claim value sits, in the sentence, in another value's slot (two of its
    slot words, at least, are that other value's)."""
    for c in claim_facts:
        if c.kind in ("quote", "date") or not c.context:
            continue
        scored = [(len(c.context & words), o) for o, words in _distinctive(sentence, sentence_facts, c)]
        equal = [score for score, o in scored if facts_equal(c, o)]
        if not equal or len(scored) < 2 or not any(o.context for o in sentence_facts if facts_equal(c, o)):
            continue  # the page's copy has no slot words ("nausea (3.1 % vs 1.2 %)"): no slot to be swapped
        score, best = max(scored, key=lambda t: t[0])
        if score >= _MIN_SHARED and score > max(equal) and not facts_equal(c, best) and (
                {c.step, best.step} != {"change", "level"}) and not any(  # "fell 0.2 points to 5.6 %"
                _part_of(sentence, o, best) for _, o in scored if facts_equal(c, o)):
            return ("value_in_other_slot", f"the passage gives {best.text} where the claim gives {c.text} "
                    f"({', '.join(sorted(c.context & best.context))})")
    return None


def _part_of(sentence: str, part: Fact, total: Fact) -> bool:
    """"120 of the 850 jobs at its Dene plant": the slot words after the total are the part's too, so the
    total is no rival in the part's slot (det-6)."""
    between = sentence[part.end:total.start]
    return bool(re.fullmatch(r"\s+of\s+(?:the|its|their|his|her|our|all|all\s+the)?\s*", between))


def role_conflict(unmatched: Sequence[Fact], claim_facts: Sequence[Fact],
                  sentence_facts: Sequence[Fact]) -> tuple[str, str] | None:
    """(flag, explanation) when a claim value is the sentence's point of comparison and the sentence's own
    value in that role is another one ("EUR 48.6 million, up from EUR 44.1 million" against a claim whose
    current value is EUR 44.1 million). ``unmatched`` are the claim values the sentence does not state in
    their own role; a sentence value the claim itself states in the same role is no rival."""
    for c in unmatched:  # dates have a point of comparison only when moved ("delayed from 2024")
        if c.kind == "quote":
            continue
        if not any(facts_equal(c, o) and comparable(c, o) and o.baseline != c.baseline for o in sentence_facts):
            continue
        if any(facts_equal(c, o) and o.baseline == c.baseline for o in sentence_facts):
            continue
        rivals = [o for o in sentence_facts if comparable(c, o) and o.baseline == c.baseline
                  and not facts_equal(c, o)
                  and not any(facts_equal(k, o) and k.baseline == o.baseline for k in claim_facts)]
        if rivals:
            role = "point of comparison" if c.baseline else "current value"
            return ("value_in_other_role", f"the passage's {role} is {rivals[0].text}, not {c.text}")
    return None


_COUNT = r"(\d{1,3}(?:,\d{3})+|\d+)"
_ALL_OF = re.compile(rf"\b(?:all|every one of)\s+(?:of\s+)?(?:the\s+|its\s+|their\s+)?{_COUNT}\b", re.I)
_PART_OF = re.compile(rf"\b{_COUNT}\s+of\s+(?:the|its|their|all)\s+{_COUNT}\b", re.I)


def part_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(flag, explanation) when the claim says "all 1,600" where the sentence says "140 of the 1,600": a
    part of a total is not all of it."""
    whole = {int(m.group(1).replace(",", "")) for m in _ALL_OF.finditer(sentence)}  # "All 30 took part, and
    # 12 of the 30 ...": the sentence says all of them too
    parts = {int(t.replace(",", "")): p for p, t in _PART_OF.findall(sentence)
             if int(p.replace(",", "")) < int(t.replace(",", "")) and int(t.replace(",", "")) not in whole}
    for m in _ALL_OF.finditer(claim):
        total = int(m.group(1).replace(",", ""))
        if total in parts:
            return "value_in_other_role", f"the passage says {parts[total]} of the {m.group(1)}, not all of them"
    return None
