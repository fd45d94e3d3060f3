"""Checkable facts in a sentence: percentages, currency amounts, plain numbers, dates, years and quotations.

The deterministic checker compares these between a claim and the passage sentences aligned to it, and the
``stale`` check reads a page's own date with the same date patterns. Values are normalised (scale words
applied, dates as (year, month, day) with unknown parts None) so that "$1.2 billion" equals "1,200 million
dollars" and "March 2024" is compared at month precision. Qualifiers ("about", "more than"), fractions
("two thirds of") and ranges ("40-50 %", "March 6–7") carry their tolerance (see ``_quantities``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Iterator, Sequence

from citetrace.eval._align import STOP, anchor_words, content_stems, stem
from citetrace.eval._kinds import DECLINE, MONTHS, PATTERNS, version_key
from citetrace.eval._quantities import FRACTION, qualifier_before, values_agree
from citetrace.eval._quotes import quotations

__all__ = ["Fact", "extract_facts", "facts_equal", "comparable", "find_dates", "anchor_words", "quotations",
           "as_version", "version_key", "dates_compatible", "paren_comparison", "bare_year", "measured"]


@dataclass(frozen=True)
class Fact:
    """One checkable fact: ``kind`` in date/money/percent/number/quote/version/period/multiple/score/time/label/
    dimension, normalised ``value``."""

    kind: str
    value: Any
    text: str
    start: int
    end: int
    unit: str = ""
    """For plain numbers: the word after the number (five-letter prefix), so 1,600 jobs and 40,000 wafers are
    never compared with each other."""
    qualifier: str = ""
    """about / nearly / more / less / fraction, or "" for an exact value (see ``_quantities``)."""
    high: float | None = None
    """The upper end of a range (for a date range, the last day)."""
    baseline: bool = False
    """The value is a point of comparison ("up from 41 %", "compared with six", "against 272 a year
    earlier"; for a date, the date something was moved from: "delayed from 2024"), not the value the
    sentence is about."""
    step: str = ""
    """"change" for an amount of change ("by EUR 2 million", "saving £4.8 million", "a rise of 9 %"),
    "level" for where a quantity ended ("to £9.6 million", "at 3.75 %"), else "": a saving is never the
    rival of the level it was saved to."""
    context: frozenset[str] = frozenset()
    """The slot the value fills: content stems next to it (up to three on each side), stopping at
    punctuation, a conjunction or another value. "EUR 12.3 million goes to road maintenance and EUR 9.8
    million to the bus network" gives {"goe", "road", "mainten"} and {"bus", "network"}: which is which
    is what a swapped claim gets wrong (see ``_slots``)."""


_UNIT_WORDS = re.compile(r"(?:\s*|-)([A-Za-z][A-Za-z\-]*(?:['’]s)?)(?:\s+([A-Za-z][A-Za-z\-]*(?:['’]s)?))?"
                         r"(?:\s+([A-Za-z][A-Za-z\-]*(?:['’]s)?))?(?:\s+([A-Za-z][A-Za-z\-]*))?")
_UNIT_SKIP = STOP | frozenset("more fewer less new additional extra permanent full-time total average just only some "
                              "around".split())
_UNIT_END = frozenset("during across among amid between through until within since after before while".split())
"""A preposition ends a value's unit words: "44,500 during 2024" counts nothing named "during" (det-7)."""
_BASELINE_BEFORE = re.compile(r"(?:\bfrom|compared\s+(?:with|to)|\bagainst|\bthan|\bversus|\bvs\.?)\s+"
                              r"(?:(?:about|around|just|only|the|a|an|in|on|for|with)\s+|(?:[\w-]+\s+)?[\w-]+['’]s\s+)*$",
                              re.I)  # "than last year's 1.31 kg" compares with last year's value too
_BASELINE_AFTER = re.compile(r"^([^,.;]{0,30}?)\b(?:a year earlier|the year before|a year ago|the previous year|"
                             r"previously)\b", re.I)
_CHANGE_GAP = re.compile(r"\b(?:higher|lower|more|less|greater|smaller|bigger|larger|up|down|above|below|than|on|"
                         r"over|rise|rose|fall|fell|increase|decrease)\b", re.I)
"""Between a value and "a year earlier", a comparative makes the value the change ("3.2 % higher than a year
earlier"), not the value a year earlier ("against 272 a year earlier")."""


_TO_COUNT = re.compile(r"\s*(?:to|or|–|-)\s*\d[\d,.]*(?![\d,.]*\s*(?:%|per\s*cent|percent))")
_ATTRIBUTIVE = re.compile(r"-([A-Za-z]+)((?:\s+[A-Za-z]+){1,2})")
_OF_COUNT = re.compile(r"\s+of\s+(?:(?:its|the|their|his|her|our|all)\s+)?(?=\d)")


def _unit_after(text: str, end: int) -> str:
    """Stems of the first two content words after a number ("coffe tree" for "1.4 million ageing coffee
    trees" gives "age coffe"), joined by spaces; "" when none follow. An attributive measure ("a 90-day
    target", "the 14-inch screen") is one unit word, measure and noun together ("day-target"): it is
    compared only with the same measure of the same thing, never with "57 days later". A count out of a
    total ("112 of its 530 buses") has the total's unit, and so does the first number of "from 4 to 6
    classrooms" or "4 or 5 days" (det-7: read unitless, it was comparable with any count, "two schools" too)."""
    attributive = _ATTRIBUTIVE.match(text, end)
    nouns = [w for w in (attributive.group(2).split() if attributive else ()) if w.lower() not in _UNIT_SKIP
             and len(w) > 2]
    if attributive and nouns:
        return f"{stem(attributive.group(1))}-{stem(nouns[0])}"
    to_count = _TO_COUNT.match(text, end)  # "from 4 to 6 classrooms": 4 counts classrooms too (det-7)
    if to_count:
        return _unit_after(text, to_count.end())
    of_count = _OF_COUNT.match(text, end)
    if of_count:
        total = re.match(r"[\d,.]+", text[of_count.end():])
        return _unit_after(text, of_count.end() + (total.end() if total else 0))
    m = _UNIT_WORDS.match(text, end)
    if not m:
        return ""
    groups = [w.lower() for w in m.groups() if w]
    ends = [i for i, w in enumerate(groups) if w in _UNIT_END]
    words = [w for w in groups[:ends[0] if ends else None] if w not in _UNIT_SKIP and not w.endswith(("'s", "’s"))]
    return " ".join(stem(w) for w in words[:2])  # "of the bridge's bolts": the possessor is not the unit


_CHANGE_BEFORE = re.compile(r"(?:\bby|\bsaving|\bsavings\s+of|\b(?:rise|fall|cut|increase|decrease|drop|gain|loss|"
                            r"reduction|saving|jump|growth)s?\s+of|\b(?:rose|fell|dropped|climbed|grew|declined|"
                            r"slipped|dipped|jumped|increased|decreased|gained|lost|edged\s+(?:up|down))(?:\s+by)?)"
                            r"\s+(?:(?:about|around|roughly|nearly|almost|some|"
                            r"an estimated|more than|over|less than|just|only)\s+)?$", re.I)
_LEVEL_BEFORE = re.compile(r"\b(?:to|at|reach(?:ed|ing|es)?|totall?(?:ed|ing)?|stood at)\s+(?:(?:about|around|roughly|"
                           r"nearly|almost|some|an estimated|just|only)\s+)?$", re.I)


_MOVED_FROM = re.compile(r"\b(?:delayed|postponed|pushed back|put back|moved|brought forward|rescheduled|slipped)\s+"
                         r"from\s+(?:(?:the|early|late|mid|end of|spring|summer|autumn|fall|winter)\s+)*$", re.I)
"""A date something was moved from ("delayed from 2024") is its old date, a point of comparison."""


_CHANGE_AFTER = re.compile(r"\s*(?:[\w-]+\s+)?(?:more|fewer|less|higher|lower|greater|bigger|smaller|larger)\s+"
                           r"than\b", re.I)
"""A difference: "six more than last season", "3 % higher than in June"."""


def _step(text: str, start: int, end: int) -> str:
    head = text[max(0, start - 30):start]
    if _CHANGE_BEFORE.search(head) or _CHANGE_AFTER.match(text, end):
        return "change"
    return "level" if _LEVEL_BEFORE.search(head) else ""


_PAREN_COMPARISON = re.compile(r"\(\s*(?:(?:19|20)\d\d(?:\s*[–/-]\s*\d{2,4})?|(?:the\s+)?(?:last|previous|prior)\s+"
                               r"\w+)\s*:\s*$", re.I)
"""A comparison in parentheses: "37 % of costs (2023–24: 34 %)" gives last period's value."""


def paren_comparison(text: str, start: int) -> bool:
    """The value (or date) at ``start`` opens a parenthesised comparison or is its value."""
    return bool(_PAREN_COMPARISON.search(text[max(0, start - 25):start])) or bool(
        re.search(r"\(\s*$", text[max(0, start - 3):start]) and re.match(r"[^()]{2,12}:\s*[^()]{1,15}\)",
                                                                     text[start:start + 30]))


_BOUND_THAN = re.compile(r"\b(?:more|fewer|less)\s+than\s+$", re.I)
_QUALIFIED_TAIL = re.compile(r"\b(?:about|around|roughly|approximately|nearly|almost|some|just|under|over|below|"
                             r"above|barely|only|close\s+to|an\s+estimated)\s+$", re.I)
"""A qualifier between a comparison word and its value ("versus roughly 6 %", "compared with under 1 %"): the
value is still the point of comparison (det-7; before, the qualifier hid the comparison word, so a claim's
"versus roughly 6 %" read as a current value and the page's "compared with 6.2 %" as another role)."""


def _is_baseline(text: str, start: int, end: int) -> bool:
    """The page's point of comparison ("up from 41 %", "than last year's 1.31 kg"); a bound ("fewer than 200
    wolves") is no comparison (det-6)."""
    if _BOUND_THAN.search(text[max(0, start - 15):start]):
        return False
    head = text[max(0, start - 60):start]
    qualified = _QUALIFIED_TAIL.search(head)  # "versus roughly 6 %", "compared with under 1 %" (det-7)
    if _BASELINE_BEFORE.search((head[:qualified.start()] if qualified else head)[-30:]) or paren_comparison(
            text, start):
        return True
    after = _BASELINE_AFTER.match(text[end:end + 45])
    return bool(after and not _CHANGE_GAP.search(after.group(1)))


def extract_facts(text: str) -> list[Fact]:
    """Every fact in ``text``, earliest pattern winning where spans overlap."""
    taken = [False] * len(text)
    facts: list[Fact] = []
    for start, end, inner in quotations(text):
        facts.append(Fact("quote", inner, text[start:end], start, end))
        # numbers inside a quotation are still facts; the quotation itself is not re-read as numbers
    for pattern, parse in PATTERNS:
        for m in pattern.finditer(text):
            if any(taken[m.start():m.end()]):
                continue
            parsed = parse(m)
            if parsed is DECLINE:
                continue
            for k in range(m.start(), m.end()):
                taken[k] = True
            if parsed is None or parsed[1] is None:
                continue
            kind, value, high = parsed
            qualifier = "fraction" if pattern is FRACTION else qualifier_before(text, m.start())
            unit = _unit_after(text, m.end()) if kind == "number" else ""
            if kind == "percent":  # a share ("64 % of farms", "two thirds of") is not a change ("up 9 %")
                unit = "of" if pattern is FRACTION or re.match(r"\s+of\b", text[m.end():]) else ""
            facts.append(Fact(kind, value, m.group(0), m.start(), m.end(), unit, qualifier, high,
                              _is_baseline(text, m.start(), m.end()) if kind not in ("date", "period")
                              else bool(_MOVED_FROM.search(text[max(0, m.start() - 40):m.start()])),
                              _step(text, m.start(), m.end()) if kind in ("money", "percent", "number") else ""))
    facts.sort(key=lambda f: f.start)
    return _with_context(text, _paired_baselines(text, [_named_version(text, f) for f in facts]))


def restated(text: str, a: Fact, b: Fact) -> bool:
    """``a`` and ``b`` are one quantity in two measures, joined by ", or" ("$48.9 million, or $1.12 per
    share"): neither is the other's rival (det-6)."""
    first, second = (a, b) if a.start < b.start else (b, a)
    return bool(re.fullmatch(r",\s*or\s+", text[first.end:second.start]))


def _paired_baselines(text: str, facts: list[Fact]) -> list[Fact]:
    """A value joined by ", or" to a point of comparison restates it in another measure ("compared with $61.3
    million, or $1.38 per share"): it is a point of comparison too (det-6), never the current value; so is the
    next value of a comparison's list ("compared with 174 calls and 398,000 passengers", det-7)."""
    out = list(facts)
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        if prev.baseline and not cur.baseline and cur.kind == prev.kind and (
                restated(text, prev, cur) or _COMPARED_AND.fullmatch(text[prev.end:cur.start])):
            out[i] = replace(cur, baseline=True)
    return out


_COMPARED_AND = re.compile(r"(?:\s+[a-z][a-z-]*){1,3}\s+and\s+")
"""Between two values of one comparison, "compared with 174 calls and 398,000 passengers": the second is a
point of comparison too (det-7), its own unit words and "and" between them, no value or verb-like break."""


_PRODUCT = re.compile(r"\b([A-Z][a-z][\w-]*)\s+$")


def _named_version(text: str, fact: Fact) -> Fact:
    """A decimal right after a name ("Lodestar 5.0", "Python 3.9") is a version, not a quantity: it never
    contradicts a page's 4.8 tonnes, nor confirms one."""
    if fact.kind != "number" or "." not in fact.text or fact.qualifier or not fact.text[0].isdigit():
        return fact
    m = _PRODUCT.search(text[max(0, fact.start - 30):fact.start])
    if not m or m.group(1).lower() in STOP or m.group(1).lower().rstrip(".") in MONTHS:
        return fact
    return as_version(fact)


def as_version(fact: Fact) -> Fact:
    """The same number read as a version (the page names it as one elsewhere: "in 5.0" after "Lodestar 5.0")."""
    return replace(fact, kind="version", value=version_key(fact.text.strip()), unit="", high=None)


_SLOT_BREAK = re.compile(r"[,;:()\[\]—–]|\s-\s|\b(?:and|or|but|while|whereas|against|versus|vs|compared|than|"
                         r"from|after|before)\b", re.I)
_SLOT_WORDS = 3


def _with_context(text: str, facts: list[Fact]) -> list[Fact]:
    """Each value with its slot words (``Fact.context``): the content stems between it and the nearest
    break (punctuation, a conjunction or a neighbouring value) on either side, three at most each side."""
    values = [f for f in facts if f.kind != "quote"]
    out: list[Fact] = [f for f in facts if f.kind == "quote"]
    for i, f in enumerate(values):
        left = text[values[i - 1].end if i else 0:f.start]  # words between two values with no break between
        # them modify the first ("12 % below average at 1,940 mm"): the second gets no left words
        right = text[f.end:values[i + 1].start if i + 1 < len(values) else len(text)]
        breaks = list(_SLOT_BREAK.finditer(left))
        left = left[breaks[-1].end():] if breaks else ("" if i else left)
        first = _SLOT_BREAK.search(right)
        right = right[:first.start()] if first else right
        words = content_stems(left)[-_SLOT_WORDS:] + content_stems(right)[:_SLOT_WORDS]
        out.append(replace(f, context=frozenset(words)))
    out.sort(key=lambda f: f.start)
    return out


def comparable(a: Fact, b: Fact) -> bool:
    """Same kind (a version also with a bare decimal; a label only with the same name's); plain numbers share a
    unit word when both have one; a fraction ("half of") is compared only with a share ("50 % of"), never with
    a change ("up 9 %")."""
    if {a.kind, b.kind} == {"version", "number"}:  # "removed in 6.0": a bare decimal may be a version
        number = a if a.kind == "number" else b
        return not number.unit and "." in number.text
    if a.kind != b.kind:
        return False
    if a.kind == "label":  # "Round 3" is compared with "Round 4", never with "Grade 3"
        return bool(a.value[0] == b.value[0])
    if a.kind == "percent" and "fraction" in (a.qualifier, b.qualifier):
        return a.unit == b.unit == "of"
    return a.kind != "number" or not a.unit or not b.unit or bool(set(a.unit.split()) & set(b.unit.split()))


def _dates_agree(claim: Fact, other: Fact) -> bool:
    cy, cm, cd = claim.value
    oy, om, od = other.value
    if cy is not None and oy is not None and cy != oy:
        return False
    if cm is None:
        return bool(cy == oy)
    if om is None:  # a bare year cannot confirm a month
        return False
    if cm != om:
        return False
    if cd is None or od is None:
        return cd is None  # a claim's month matches any day of it, not the reverse
    clo, chi = cd, int(claim.high) if claim.high is not None else cd
    olo, ohi = od, int(other.high) if other.high is not None else od
    return bool(clo <= ohi and olo <= chi)


def dates_compatible(a: Fact, b: Fact) -> bool:
    """No part both dates state disagrees: "July 2026" and "2026" (or "in the second half of 2026") may be
    the same date, "21 March" and "21 May" may not. A less precise page date is no rival of a claim's."""
    (ay, am, ad), (by, bm, bd) = a.value, b.value
    if ay is not None and by is not None and ay != by:
        return False
    if am is not None and bm is not None and am != bm:
        return False
    if ad is None or bd is None or am is None or bm is None:
        return True
    alo, ahi = ad, int(a.high) if a.high is not None else ad
    blo, bhi = bd, int(b.high) if b.high is not None else bd
    return bool(alo <= bhi and blo <= ahi)


def facts_equal(claim: Fact, other: Fact) -> bool:
    """True when ``other`` states the same value as ``claim`` at the claim's precision and tolerance."""
    if claim.kind != other.kind:
        return False
    if claim.kind == "date":
        return _dates_agree(claim, other)
    if claim.kind == "quote":
        return claim.value == other.value or str(claim.value) in str(other.value)
    if claim.kind in ("version", "period", "score", "label", "dimension"):
        return bool(claim.value == other.value)
    if claim.kind in ("money", "percent"):
        (cu, cv), (ou, ov) = claim.value, other.value
        return bool(cu == ou and values_agree((float(cv), claim.high, claim.qualifier, claim.text),
                                              (float(ov), other.high, other.qualifier, other.text),
                                              percent=claim.kind == "percent"))
    return values_agree((float(claim.value), claim.high, claim.qualifier, claim.text),
                        (float(other.value), other.high, other.qualifier, other.text))


def bare_year(fact: Fact) -> bool:
    """A year alone ("in 2024"): a page's own date or a title states one too, so it says little."""
    return fact.kind == "date" and fact.value[1] is None


def measured(facts: Sequence[Fact]) -> list[Fact]:
    """The values that say what a sentence measures: not quotations, names' numbers ("Aero 14") or bare years."""
    return [f for f in facts if f.kind not in ("quote", "label") and not bare_year(f)]


def find_dates(text: str) -> Iterator[Fact]:
    """Dates with at least a year, in order."""
    return (f for f in extract_facts(text) if f.kind == "date" and f.value[0] is not None)
