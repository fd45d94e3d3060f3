"""Word-level contradictions that need no number: who did it, which member of a list, for or against,
ending or continuing.

Each rule fires only where a passage sentence aligns strongly with the claim (the caller checks) and
neither side is negated, and each needs the page to fill the claim's slot with something else, never just
a missing word, so that a paraphrase stays PARTIAL:

- **agent**: "led by an existing investor" against "led by Northgate Ventures, with participation from
  two existing investors": the same verb with "by", the claim's agent sharing no word with the page's,
  and every word of the claim's agent used elsewhere in that sentence (in another role). An agent the
  page never mentions ("funded by the EU" against "funded by the European Commission") is not judged,
  unless both are full proper names sharing no word ("lent by the Victoria and Albert Museum" against
  "lent by the British Library").
- **place**: one birthplace or place of death ("born in Stockholm" against "born 1961 in Uppsala").
- **list**: "included in the Starter plan" against "available on the Business and Enterprise plans": the
  same head noun after a run of names, and the claim's name not among the page's.
- **stance**: "voted for" against "voted against" (also argued, campaigned, spoke).
- **rank**: "the wettest" against "the second-wettest".
- **ended**: a state the page says lasted "until" a year, against a claim that it is "still" so.
- **state**: a claim that something is ending (ends, scrapped, cancelled, discontinued) against a page that
  says it becomes permanent, is extended or continues, or the reverse; "old" against "new" before the
  same noun.
"""

from __future__ import annotations

import re

from citetrace.eval._align import STOP, content_stems, stem
from citetrace.eval._facts import extract_facts

__all__ = ["role_word_conflict"]

_NEGATED = re.compile(r"\b(?:not|no|never|without|neither|nor|cannot)\b|n't\b", re.I)
_AGENT = re.compile(r"\b([a-z]+)\s+by\s+([^,.;:()]{2,60}?)(?=\s*(?:[,.;:()]|\bwith\b|\band\b(?!\s+[A-Z])|\bwho\b|$))")
_LIST = re.compile(r"\b((?:[A-Z][\w'’-]+)(?:(?:\s*,\s*|\s+(?:and|or)\s+)[A-Z][\w'’-]+)*)\s+([a-z]{3,})\b")
_STANCE = re.compile(r"\b(vot\w*|argu\w*|campaign\w*|spoke|speak\w*)\s+(for|in favour of|in favor of|against)\b",
                     re.I)
_ENDING = frozenset("ending ended ends scrapped scrapping cancelled canceled cancelling discontinued axed "
                    "abandoned".split())
_CONTINUING = frozenset("permanent permanently extended continues continue continued continuing renewed "
                        "retained".split())
_AGE = re.compile(r"\b(old|new)\s+([a-z]{3,})\b", re.I)


def _agent(claim: str, sentence: str) -> str | None:
    theirs = {stem(m.group(1)): m.group(2) for m in _AGENT.finditer(sentence)}
    sentence_stems = set(content_stems(sentence))
    for m in _AGENT.finditer(claim):
        other = theirs.get(stem(m.group(1)))
        mine = set(content_stems(m.group(2)))
        if other is None or not mine or extract_facts(m.group(2)) or extract_facts(other):
            continue
        if mine & set(content_stems(other)):
            continue
        if mine <= sentence_stems or (_proper(m.group(2)) and _proper(other) and not mine & sentence_stems):
            return f"the passage says {m.group(1)} by {other.strip()!r}, not {m.group(2).strip()!r}"
    return None


def _proper(agent: str) -> bool:
    """A full proper name of two capitalised words at least, no acronym ("the British Library", "Northgate
    Ventures"): two such names sharing no word are two agents; "the EU" may be "the European Commission"."""
    words = [w for w in re.findall(r"[\w'’-]+", agent) if w.lower() not in ("the", "of", "and", "for", "a")]
    return len(words) >= 2 and all(w[0].isupper() and not w.isupper() for w in words)


_EVENT_PLACE = re.compile(r"\b(born|died)\b[^.;:]{0,25}?\bin\s+([A-Z][\w'’-]+(?:,?\s+[A-Z][\w'’-]+)*)")


def _event_place(claim: str, sentence: str) -> str | None:
    """One birthplace (or place of death): "born in Stockholm" against "(born 1961 in Uppsala)", whatever else
    the sentence places in Stockholm; "born in Portugal" is not against "born in Porto, Portugal"."""
    theirs = {m.group(1).lower(): m.group(2) for m in _EVENT_PLACE.finditer(sentence)}
    for m in _EVENT_PLACE.finditer(claim):
        other = theirs.get(m.group(1).lower())
        if other and not set(m.group(2).lower().replace(",", " ").split()) & set(
                other.lower().replace(",", " ").split()):  # "Porto, Portugal" holds "Portugal"
            return f"the passage says {m.group(1)} in {other}, not {m.group(2)}"
    return None


def _names(text: str) -> dict[str, set[str]]:
    """Head noun stem -> the names written before it ("Business and Enterprise plans": plan -> both)."""
    out: dict[str, set[str]] = {}
    for m in _LIST.finditer(text):
        if m.group(2).lower() in STOP:  # "June was wet ... July was dry": "was" is no head noun
            continue
        names = {n.lower() for n in re.split(r"\s*,\s*|\s+(?:and|or)\s+", m.group(1)) if n}
        if m.start() == 0 or text[m.start() - 2:m.start()].strip() in (".", ""):
            names = {n for n in names if n != m.group(1).split()[0].lower()} or names
        out.setdefault(stem(m.group(2)), set()).update(names)
    return out


def _list(claim: str, sentence: str) -> str | None:
    theirs = _names(sentence)
    for head, mine in _names(claim).items():
        if head in theirs and not mine & theirs[head] and len(theirs[head]) >= 2:
            return f"the passage names {', '.join(sorted(theirs[head]))}, not {', '.join(sorted(mine))}"
    return None


_PLACED = re.compile(r"\b([a-z]{3,})\s+(?:in|at)\s+((?:[A-Z][\w'’-]+)(?:(?:\s*,\s*|\s+(?:and|or)\s+)[A-Z][\w'’-]+)*)")


_WITH = re.compile(r"\b([a-z]{3,})(?:\s+(?:on|in|at)\s+[^,;.()]{1,20}?)?\s+with\s+"
                   r"([A-Z][\w'’-]+(?:\s+(?:(?:of|in|de|la|von)\s+)?[A-Z][\w'’-]+)*)")
"""A verb and the name it goes with: "opens on 27 September with Mahler's Second Symphony"."""


def _places(text: str) -> dict[str, set[str]]:
    """Noun stem -> the names after it ("schools in Umeå and Luleå": school -> both); verb stem + "/with" ->
    the name it goes with ("opens with X and closes with Y": open/with -> X, close/with -> Y)."""
    out: dict[str, set[str]] = {}
    for m in _PLACED.finditer(text):
        names = {n.lower() for n in re.split(r"\s*,\s*|\s+(?:and|or)\s+", m.group(2)) if n}
        out.setdefault(stem(m.group(1)), set()).update(names)
    for m in _WITH.finditer(text):
        out.setdefault(stem(m.group(1)) + "/with", set()).add(m.group(2).lower())
    return out


def _placed(claim: str, sentence: str) -> str | None:
    """A list member moved to another noun: "schools in Umeå and Bergen and a concert hall in Luleå" against
    "schools in Umeå and Luleå and a concert hall in Bergen" (the claim's name is the page's name for
    another noun of the same sentence, and not for the claim's noun)."""
    theirs = _places(sentence)
    for noun, names in _places(claim).items():
        if noun not in theirs:
            continue
        for name in names - theirs[noun]:
            other = next((n for n, ns in theirs.items() if n != noun and name in ns), None)
            if other:
                return f"the passage places {name!r} under {other!r}, not {noun!r}"
    return None


def _stance(claim: str, sentence: str) -> str | None:
    def sides(text: str) -> set[str]:
        return {"against" if m.group(2).lower() == "against" else "for" for m in _STANCE.finditer(text)}

    mine, theirs = sides(claim), sides(sentence)
    if len(mine) == 1 and len(theirs) == 1 and mine != theirs:
        return f"the passage says {theirs.pop()}, the claim {mine.pop()}"
    return None


_STILL = re.compile(r"\b(?:still|today|now|currently|continues to|remains)\b", re.I)
_UNTIL = re.compile(r"^(?P<before>.*?)\buntil\b(?P<after>[^;]*)", re.I)
_GOING_ON = re.compile(r"\b(?:still|will|would|continues?|remains?|is due|are due|planned|expected)\b", re.I)


def _ended(claim: str, sentence: str) -> str | None:
    """A state that ended against "still": "The ferry carried passengers across the Tay until 1966" (or
    "was for a time the longest ... until ... opened in 1831") against "The ferry still carries
    passengers": the words before "until" hold three content words of the claim at least, a year follows
    it, and the sentence says nothing goes on ("will", "still", "continues": "will carry passengers until
    2030" is the present; "open until 8 pm" has no year)."""
    m = _UNTIL.match(sentence)
    if not _STILL.search(claim) or not m or _GOING_ON.search(sentence):
        return None
    ended = [f.value[0] for f in extract_facts(m.group("after")) if f.kind == "date" and f.value[0] is not None]
    if not ended or any(f.kind == "date" and f.value[0] is not None and f.value[0] < ended[0]
                        for f in extract_facts(claim)):
        return None  # "In 2023 the firm still employed 40 people" is before "until 2024"
    words = set(content_stems(_STILL.sub(" ", claim)))
    shared = words & set(content_stems(m.group("before")))
    if len(shared) >= 3 and len(shared) >= 0.6 * len(words):
        return f"the passage says this ended (until{m.group('after')[:40].rstrip()})"
    return None


_NOT_SUPERLATIVE = frozenset("harvest interest forest request contest protest conquest arrest inquest bequest "
                             "manifest digest honest modest earnest suggest".split())
"""Words that merely end in "est": "the second harvest" ranks nothing."""
_RANK = re.compile(r"\bthe\s+(?:(second|third|fourth|fifth)[- ]?)?([a-z]{3,}est)\b", re.I)


def _rank(claim: str, sentence: str) -> str | None:
    """A superlative at another rank: "the wettest year" against "the second-wettest on record" (the
    sentence giving no one the first rank)."""
    def ranks(text: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for m in _RANK.finditer(text):
            if m.group(2).lower() in _NOT_SUPERLATIVE:
                continue
            out.setdefault(m.group(2).lower(), set()).add((m.group(1) or "first").lower())
        return out

    theirs = ranks(sentence)
    for word, mine in ranks(claim).items():
        if word in theirs and len(mine) == 1 and not mine & theirs[word]:
            return f"the passage ranks it {'/'.join(sorted(theirs[word]))} {word}, not {mine.pop()}"
    return None


def _state(claim: str, sentence: str) -> str | None:
    c, s = set(re.findall(r"[a-z]+", claim.lower())), set(re.findall(r"[a-z]+", sentence.lower()))
    for mine, theirs, name in ((_ENDING, _CONTINUING, "ending / continuing"),
                               (_CONTINUING, _ENDING, "continuing / ending")):
        if c & mine and not c & theirs and s & theirs and not s & mine:
            return f"the passage states the opposite ({name})"
    ages = {stem(m.group(2)): m.group(1).lower() for m in _AGE.finditer(sentence)}
    for m in _AGE.finditer(claim):
        other = ages.get(stem(m.group(2)))
        if other and other != m.group(1).lower() and not re.search(rf"\b{m.group(1)}\s+{m.group(2)}", sentence, re.I):
            return f"the passage says {other} {m.group(2)}, not {m.group(1).lower()} {m.group(2)}"
    return None


def role_word_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(flag, explanation) for the first rule above that fires, or None."""
    if _NEGATED.search(claim) or _NEGATED.search(sentence):
        return None
    for flag, rule in (("agent_mismatch", _agent), ("place_mismatch", _event_place), ("list_mismatch", _list),
                       ("list_mismatch", _placed),
                       ("stance_mismatch", _stance), ("state_mismatch", _ended), ("rank_mismatch", _rank),
                       ("state_mismatch", _state)):
        found = rule(claim, sentence)
        if found:
            return flag, found
    return None
