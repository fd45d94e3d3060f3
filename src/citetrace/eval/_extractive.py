"""The two narrow rules that let an offline checker say more than "nothing mechanical is wrong".

- **Extractive support**: the claim's words, in order, inside one passage sentence (at most two extra words
  inside the stretch that holds them), the sentence hedging nothing the claim states flatly ("may",
  "plans", "expected"), and negation on both sides or neither. Only then, with every value matched by the
  checker, is a claim SUPPORTED offline. It is deliberately literal: paraphrases stay PARTIAL. Its
  false-support rate is measured by ``citetrace judge-eval`` on both labelled sets (docs/eval.md).
- **Opposite directions**: the claim says a quantity rose and the aligned sentence says it fell (and never
  that it rose), or the reverse; "from A to B" written as "from B to A".
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from citetrace.eval._align import stem
from citetrace.eval._facts import Fact, extract_facts, facts_equal

__all__ = ["extractive_support", "direction_conflict", "from_to_swapped", "entity_conflict", "opposites", "said"]

_LIGHT_STOP = frozenset(
    "the a an of to in on for by with at as is are was were be been and that this its it has have had which who "
    "per cent percent said says according".split()
)
_TOKEN = re.compile(r"[a-z][a-z\-']*")
_NEGATION = frozenset("not no never none neither nor without n't cannot".split())
_HEDGES = frozenset(
    "may might could would should expected expects expect plans planned plan proposed proposes aims aim seeking "
    "seeks likely unlikely estimated estimate forecast forecasts projected projects if until unless could "
    "possibly reportedly allegedly around about roughly approximately nearly almost up".split()
)
_MAX_GAP = 2


def _tokens(text: str) -> list[str]:
    words = _TOKEN.findall(text.lower().replace("’", "'").replace("n't", " n't"))
    return [w for w in words if w not in _LIGHT_STOP]


def _window(claim: list[str], sentence: list[str]) -> int | None:
    """Length of the shortest stretch of ``sentence`` holding ``claim`` as a subsequence (None if none)."""
    best: int | None = None
    for start, word in enumerate(sentence):
        if word != claim[0]:
            continue
        k, end = 1, start
        for j in range(start + 1, len(sentence)):
            if k == len(claim):
                break
            if sentence[j] == claim[k]:
                k, end = k + 1, j
        if k == len(claim):
            length = end - start + 1
            best = length if best is None else min(best, length)
    return best


def extractive_support(claim: str, sentence: str) -> bool:
    """The conservative rule above; the caller has already matched every value of the claim."""
    c_words, s_words = _tokens(claim), _tokens(sentence)
    if len(c_words) < 3:
        return False
    if (set(c_words) & _NEGATION) != (set(s_words) & _NEGATION):
        return False
    if (set(s_words) & _HEDGES) - set(c_words):
        return False
    length = _window([stem(w) for w in c_words], [stem(w) for w in s_words])
    if length is None or length - len(c_words) > _MAX_GAP:
        return False
    c_seq, s_seq = _with_numbers(claim), _with_numbers(sentence)  # the values in their places too (det-6):
    # "opened 9 branches" is not "opened 14 branches in 2025 and closed 9"
    numbers = [w for w in c_seq if w[0].isdigit()]
    return not numbers or _window(c_seq, s_seq) is not None


def _with_numbers(text: str) -> list[str]:
    """The stemmed words and the numbers (as written, without thousands commas) in order."""
    return [w.replace(",", "") if w[0].isdigit() else stem(w) for w in _tokens_and_numbers(text)]


_NUMBER_TOKEN = re.compile(r"[a-z][a-z\-']*|\d[\d,.]*\d|\d")


def _tokens_and_numbers(text: str) -> list[str]:
    words = _NUMBER_TOKEN.findall(text.lower().replace("’", "'").replace("n't", " n't"))
    return [w for w in words if w not in _LIGHT_STOP]


_Pairs = tuple[tuple[frozenset[str], frozenset[str], str], ...]


@lru_cache(maxsize=1)
def _lexicon() -> tuple[_Pairs, dict[str, str]]:
    """Opposite-direction word pairs and word -> direction, stemmed on first use (the stemmer is the [eval]
    extra, so importing citetrace.eval must not need it)."""
    up = frozenset(stem(w) for w in "rise rose risen rising raise raised raising increase increased grow grew grown "
                   "growing up climb "
                   "climbed gain gained higher jump jumped surge surged expand expanded soar soared doubled tripled "
                   "larger bigger more rebound rebounded advance advanced".split())
    down = frozenset(stem(w) for w in "fall fell fallen falling decrease decreased decline declined shrink shrank "
                     "shrunk down drop dropped lower slump slumped contract contracted plunge plunged halved "
                     "reduce reduced cut smaller fewer less slip slipped slide slid dip dipped ease eased sink "
                     "sank tumble tumbled shed".split())
    pairs: _Pairs = (
        (up, down, "rose / fell"),
        (frozenset({stem("approved"), stem("approve")}), frozenset({stem("rejected"), stem("reject")}),
         "approved / rejected"),
        (frozenset({stem("accepted"), stem("accept")}), frozenset({stem("rejected"), stem("refused"),
                                                                  stem("declined")}), "accepted / rejected"),
        (frozenset({stem("granted")}), frozenset({stem("refused"), stem("denied")}), "granted / refused"),
        (frozenset({stem("upheld")}), frozenset({stem("overturned"), stem("quashed")}), "upheld / overturned"),
        (frozenset({stem("allowed")}), frozenset({stem("dismissed")}), "allowed / dismissed"),
        (frozenset({stem("above")}), frozenset({stem("below")}), "above / below"),  # stemmed like the sentence
        (frozenset({stem("upstream")}), frozenset({stem("downstream")}), "upstream / downstream"),
        (frozenset({stem("won"), stem("win")}), frozenset({stem("lost"), stem("lose")}), "won / lost"),
        (frozenset({stem("surplus")}), frozenset({stem("deficit")}), "surplus / deficit"),
        (frozenset({stem("highest"), stem("largest"), stem("biggest")}),
         frozenset({stem("lowest"), stem("smallest")}), "highest / lowest"),
        (frozenset({"east", stem("eastern")}), frozenset({"west", stem("western")}), "east / west"),
        (frozenset(stem(w) for w in "wet wetter wettest".split()),
         frozenset(stem(w) for w in "dry drier driest dryer".split()), "wet / dry"),
        (frozenset(stem(w) for w in "warmer warmest hotter hottest".split()),
         frozenset(stem(w) for w in "colder coldest cooler coolest".split()), "warmer / colder"),
        (frozenset(stem(w) for w in "faster fastest quicker".split()),
         frozenset(stem(w) for w in "slower slowest".split()), "faster / slower"),
        (frozenset(stem(w) for w in "heavier heaviest".split()),
         frozenset(stem(w) for w in "lighter lightest".split()), "heavier / lighter"),
        (frozenset({"north", stem("northern")}), frozenset({"south", stem("southern")}), "north / south"),
    )
    unchanged = frozenset({stem("unchanged")})  # the whole-sentence rule reads only the unambiguous word:
    # "remains open", "a flat fee" and "steady growth" say nothing about a change
    pairs += ((up, unchanged, "rose / unchanged"), (down, unchanged, "fell / unchanged"))
    flat = frozenset(stem(w) for w in "stay stays stayed unchanged remain remains remained steady flat".split())
    return pairs, {w: "up" for w in up} | {w: "down" for w in down} | {w: "unchanged" for w in flat}


def opposites() -> _Pairs:
    """The opposite word pairs (stemmed), each with its name: rose / fell, approved / rejected, ..."""
    return _lexicon()[0]


_LOCAL = re.compile(r"[a-z][a-z\-']*|\d[\d,.]*")
_LITTLE_CHANGED = re.compile(r"\b(?:was|were|is|are|remained|stayed|held)\s+flat\b|"
                             r"\b(?:little|barely|largely|broadly|virtually|almost|essentially)\s+(?:changed|"
                             r"unchanged)\b|\bheld\s+(?:steady|stable)\b")
"""A state in words ("Oats were little changed at 1.1 million tonnes") is the unchanged direction."""


_BOUND_WORDS = re.compile(r"\b(?:more|less|fewer|higher|lower)\s+than\s*|\bup\s+to\s*(?=[\d$€£])")
"""A bound, not a direction: "more than 11,000 nests", "up to 40 %" say nothing of a rise (det-6)."""


def _direction_near(text: str, fact: Fact) -> str | None:
    """The direction word closest to a value: up to three words before it, or two after it (a bound such as
    "more than" is no direction word)."""
    head = _BOUND_WORDS.sub(" ", _LITTLE_CHANGED.sub("unchanged", text[max(0, fact.start - 40):fact.start].lower()))
    before = [stem(w) for w in _LOCAL.findall(head)][-3:]
    after = [stem(w) for w in _LOCAL.findall(text[fact.end:fact.end + 25].lower())][:2]
    direction = _lexicon()[1]
    for word in (*reversed(before), *after):
        if word in direction:
            return direction[word]
    return None


def local_direction_conflict(claim: str, claim_facts: Sequence[Fact], sentence: str,
                             sentence_facts: Sequence[Fact]) -> tuple[str, str] | None:
    """(flag, explanation) when the sentence states a claim value with the opposite direction next to it:
    "rose 22 %" against "fell 22 %", "9 % smaller" against "up 9 %"."""
    for c in claim_facts:
        if c.kind not in ("percent", "number", "money"):
            continue
        mine = _direction_near(claim, c)
        if mine is None or _conditioned_before(claim, c):
            continue
        for o in sentence_facts:  # "slowed to 3.8 %" (a level) says nothing against "rose 3.8 %" (a change)
            theirs = _direction_near(sentence, o) if facts_equal(c, o) and (
                c.step == "level") == (o.step == "level") else None
            if theirs is not None and theirs != mine and not _conditioned_before(sentence, o):
                return "direction_mismatch", f"the passage says {o.text} went {theirs}, the claim {mine}"
    return None


_NEGATION_REACH = 3
_MULTIPLIERS = frozenset({"double", "triple", "treble"})


_VALUE_BOUND = re.compile(r"\b(?:(?:more|less|fewer)\s+than|up\s+to)\s+(?=[\d$€£]|(?:two|three|four|five|six|seven|"
                          r"eight|nine|ten|twice|half|a\s+(?:third|quarter|fifth|tenth))\b)")
"""A bound right before a value ("save more than £59", "up to 40 %") states no direction (det-7; the value
rule's ``_BOUND_WORDS`` since det-6): "more" there is not a rise against the page's "£59 lower"."""


def said(text: str) -> tuple[set[str], set[str]]:
    """(stems stated, stems negated): a word is negated when a negation comes at most three words before it
    ("did not fall", "never rose"); a negation elsewhere ("left 140,000 homes without power") negates
    nothing the direction rule reads. "Little changed" and "held steady" read as "unchanged"; a bound before a
    value ("more than £59") is no direction."""
    words = _tokens(_VALUE_BOUND.sub(" ", _LITTLE_CHANGED.sub("unchanged", text.lower())))
    stated: set[str] = set()
    negated: set[str] = set()
    for i, w in enumerate(words):
        if w in _MULTIPLIERS:  # "nearly double the usual amount" is a ratio, not "doubled"
            continue
        near = words[max(0, i - _NEGATION_REACH):i]
        (negated if any(n in _NEGATION for n in near) else stated).add(stem(w))
    return stated, negated


_CONDITION = frozenset("when whenever if unless once must should shall required requires need needs "
                       "ought".split())
_CONDITION_REACH = 6


def conditioned(text: str, stems: frozenset[str]) -> bool:
    """A word of ``stems`` follows, within six words, a condition or a norm ("opens when line pressure falls
    below", "must be held at 41°F or below"): it describes a rule or a hypothesis, not what happened, so a
    direction there is no evidence against the claim's (det-6)."""
    words = _tokens(_WHEN_RELATIVE.sub(" ", text.lower()))
    return any(stem(w) in stems and any(n in _CONDITION for n in words[max(0, i - _CONDITION_REACH):i])
               for i, w in enumerate(words))


def _conditioned_before(text: str, fact: Fact) -> bool:
    """The value's own direction word comes under a condition or a norm ("should never fall below 30 %",
    "switches on when the temperature drops below 18 °C"): a rule, not a change that happened (det-6)."""
    words = _tokens(_WHEN_RELATIVE.sub(" ", text[:fact.start].lower()))
    return any(w in _CONDITION for w in words[-_CONDITION_REACH:])


_WHEN_RELATIVE = re.compile(r"\b(?:\d{4}|then|time|year|day|month|week|moment),?\s+when\b")
""""In 1974, when a bridge was built" dates an event: that "when" is no condition."""


def direction_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(flag, explanation) when the sentence states the opposite direction of the claim and never its own;
    either side negating a word of the pair, or stating it under a condition or a norm, abstains."""
    (c, c_not), (s, s_not) = said(claim), said(sentence)
    for one, other, name in opposites():
        if (c_not | s_not) & (one | other):
            continue
        for mine, theirs in ((one, other), (other, one)):
            if c & mine and not c & theirs and s & theirs and not s & mine and not (
                    conditioned(claim, one | other) or conditioned(sentence, one | other)):
                return "direction_mismatch", f"the passage states the opposite direction ({name})"
    return None


_FROM_TO = re.compile(r"\bfrom\s+(.{1,40}?)\s+to\s+(.{1,40}?)(?=[,;.]\s|[,;.]?$|\s+(?:in|by|at|on|over|between)\b)",
                      re.I)


_TO_FROM = re.compile(r"\bto\s+(.{1,40}?)\s+from\s+(.{1,40}?)(?=[,;.]\s|[,;.]?$|\s+(?:in|by|at|on|over|between|"
                      r"which|as)\b)", re.I)


def _from_to(text: str) -> list[tuple[Fact, Fact]]:
    """(from, to) value pairs: "from A to B", and "to B from A" ("slipped to 28 % from 31 %")."""
    out = []
    for pattern, order in ((_FROM_TO, (1, 2)), (_TO_FROM, (2, 1))):
        for m in pattern.finditer(text):
            a, b = extract_facts(m.group(order[0])), extract_facts(m.group(order[1]))
            if a and b and a[0].kind == b[0].kind:
                out.append((a[0], b[0]))
    return out


def from_to_swapped(claim: str, sentence: str) -> tuple[str, str] | None:
    """(flag, explanation) when the claim's "from A to B" is the sentence's "from B to A"."""
    for a, b in _from_to(claim):
        for c, d in _from_to(sentence):
            if facts_equal(a, d) and facts_equal(b, c) and not facts_equal(a, c):
                return "from_to_swapped", f"the passage goes from {c.text} to {d.text}, the claim the other way"
    return None


_NAMED = re.compile(r"\b([a-z]+)\s+((?:[A-Z][\w'’-]+)(?:\s+[A-Z][\w'’-]+)*)")


def _named_on(name: str, page_lower: str) -> bool:
    """Every word of the name is on the page: "Henning Larsen's Copenhagen office" names what the page calls
    "the Copenhagen office of Henning Larsen", it is no other name."""
    words = [re.sub(r"['’]s$", "", w).lower() for w in name.split()]
    return all(re.search(rf"\b{re.escape(w)}\b", page_lower) for w in words if w)


def entity_conflict(claim: str, sentence: str, page: str) -> tuple[str, str] | None:
    """(flag, explanation) when the claim names someone or somewhere the page never mentions in the slot
    where the aligned sentence names another: "an office in Paris" against "an office in Berlin" (the same
    word before both names, and "Paris" nowhere on the page)."""
    page_lower = page.lower()
    theirs = {m.group(1): m.group(2) for m in _NAMED.finditer(sentence)}
    for m in _NAMED.finditer(claim):
        before, name = m.group(1), m.group(2)
        if before in _LIGHT_STOP - {"in", "at", "by", "of", "for", "to", "on", "with"} or _named_on(name, page_lower):
            continue
        other = theirs.get(before)
        if other and other.lower() not in claim.lower():
            return "entity_mismatch", f"the passage names {other!r} where the claim names {name!r}"
    return None
