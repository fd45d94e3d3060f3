"""Checkable facts in a sentence: percentages, currency amounts, plain numbers, dates, years and quotations.

The deterministic checker compares these between a claim and the passage sentences aligned to it, and the
``stale`` check reads a page's own date with the same date patterns. Values are normalised (scale words
applied, dates as (year, month, day) with unknown parts None) so that "$1.2 billion" equals "1,200 million
dollars" and "March 2024" is compared at month precision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Iterator

__all__ = ["Fact", "extract_facts", "facts_equal", "comparable", "find_dates", "anchor_words"]

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        ("jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
         "aug august", "sep sept september", "oct october", "nov november", "dec december")
    )
    for m in names.split()
}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9,
          "trillion": 1e12, "tn": 1e12}
_SCALE_RE = r"(?:\s*(thousand|million|billion|trillion|bn|mn|tn|k|m|b)\b)?"

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORDNUM = rf"(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS[1:10])}))?|{'|'.join(_UNITS[10:])}"


def _word_value(words: str) -> int:
    parts = re.split(r"[- ]", words.lower())
    if parts[0] in _TENS:
        return 10 * (2 + _TENS.index(parts[0])) + (_UNITS.index(parts[1]) if len(parts) > 1 else 0)
    return _UNITS.index(parts[0])


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("date", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("date", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(\d{{4}})\b", re.I)),
    ("date", re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)),
    ("date", re.compile(rf"\b{_MONTH}\s+(?:of\s+)?(\d{{4}})\b", re.I)),
    ("money", re.compile(rf"([$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY)\s)\s?({_NUM}){_SCALE_RE}")),
    ("money", re.compile(rf"\b({_NUM}){_SCALE_RE}\s*(USD|EUR|GBP|dollars?|euros?|pounds?)\b", re.I)),
    ("percent", re.compile(rf"({_NUM})\s*(%|percent\b|per cent\b|percentage points?\b|pp\b)", re.I)),
    ("year", re.compile(r"\b(1[89]\d\d|20\d\d)\b(?!\s*(?:%|percent))")),
    ("number", re.compile(rf"(?<![\w.])({_NUM}){_SCALE_RE}(?![\w%])", re.I)),
    ("quote", re.compile(r"[\"“]([^\"“”]{12,300})[\"”]")),
    ("wpercent", re.compile(rf"\b({_WORDNUM})\s*(%|percent\b|per cent\b)", re.I)),
    ("wnumber", re.compile(rf"\b({_WORDNUM})\b", re.I)),
)
_STOP = frozenset(
    "the a an and or of to in on for by with from at as is are was were be been being that this these those it its "
    "than then into over under about after before since per also has have had not but which who whom what when "
    "where while more most less least very such can could may might will would should their there they them he she "
    "his her our we you your new reported report according said says percent million billion year years "
    "currently current now today still latest".split()
) | frozenset(_MONTHS)
_WORD = re.compile(r"[a-z][a-z\-']+")


@dataclass(frozen=True)
class Fact:
    """One checkable fact: ``kind`` in date/money/percent/year/number/quote, normalised ``value``."""

    kind: str
    value: Any
    text: str
    start: int
    end: int
    unit: str = ""
    """For plain numbers: the word after the number (five-letter prefix), so 1,600 jobs and 40,000 wafers are
    never compared with each other."""


def _num(raw: str, scale: str | None) -> float:
    return float(raw.replace(",", "")) * _SCALE.get((scale or "").lower(), 1.0)


def _date_value(kind_groups: tuple[str | None, ...], pattern_index: int) -> tuple[int, int | None, int | None] | None:
    g = kind_groups
    try:
        if pattern_index == 0:
            y, m, d = int(g[0] or 0), int(g[1] or 0), int(g[2] or 0)
        elif pattern_index == 1:
            d, m, y = int(g[0] or 0), _MONTHS[(g[1] or "").lower().rstrip(".")], int(g[2] or 0)
        elif pattern_index == 2:
            m, d, y = _MONTHS[(g[0] or "").lower().rstrip(".")], int(g[1] or 0), int(g[2] or 0)
        else:
            return int(g[1] or 0), _MONTHS[(g[0] or "").lower().rstrip(".")], None
        date(y, m, d)
        return y, m, d
    except (KeyError, ValueError):
        return None


def extract_facts(text: str) -> list[Fact]:
    """Every fact in ``text``, earliest pattern winning where spans overlap."""
    taken = [False] * len(text)
    facts: list[Fact] = []
    for index, (pattern_kind, pattern) in enumerate(_PATTERNS):
        for m in pattern.finditer(text):
            kind = pattern_kind
            if any(taken[m.start():m.end()]):
                continue
            value: Any
            g = m.groups()
            if kind == "date":
                value = _date_value(g, index)
                if value is None:
                    continue
            elif kind == "money":
                symbol, raw, scale = (g[0], g[1], g[2]) if g[0] and not g[0][0].isdigit() else (g[2], g[0], g[1])
                value = (_currency(symbol), _num(raw, scale))
            elif kind == "percent":
                value = ("pp" if g[1].lower().startswith(("percentage", "pp")) else "%", float(g[0].replace(",", "")))
            elif kind == "year":
                value = (int(g[0]), None, None)
            elif kind == "number":
                value = _num(g[0], g[1])
            elif kind == "wpercent":
                kind, value = "percent", ("%", float(_word_value(g[0])))
            elif kind == "wnumber":
                kind, value = "number", float(_word_value(g[0]))
            else:
                value = " ".join(g[0].lower().split())
            for k in range(m.start(), m.end()):
                taken[k] = True
            unit = _unit_after(text, m.end()) if kind == "number" else ""
            facts.append(Fact("date" if kind == "year" else kind, value, m.group(0), m.start(), m.end(), unit))
    facts.sort(key=lambda f: f.start)
    return facts


_UNIT_WORD = re.compile(r"\s*(?:(?:more|fewer|less|new|additional|extra|of|the|a|permanent|full-time|total|average)\s+)*"
                        r"([a-z][a-z\-]+)", re.I)


def _unit_after(text: str, end: int) -> str:
    m = _UNIT_WORD.match(text, end)
    return m.group(1).lower()[:5] if m else ""


def comparable(a: Fact, b: Fact) -> bool:
    """Same kind, and for plain numbers the same unit word when both have one."""
    return a.kind == b.kind and (a.kind != "number" or not a.unit or not b.unit or a.unit == b.unit)


def _currency(symbol: str) -> str:
    s = symbol.strip().lower()
    if s in ("$", "usd", "dollar", "dollars"):
        return "USD"
    if s in ("€", "eur", "euro", "euros"):
        return "EUR"
    if s in ("£", "gbp", "pound", "pounds"):
        return "GBP"
    return s.upper()


def _close(a: float, b: float, claim_text: str) -> bool:
    if a == b:
        return True
    decimals = len(claim_text.split(".")[1].rstrip("%").strip()) if "." in claim_text else 0
    return round(b, decimals) == round(a, decimals) and decimals > 0 and abs(a - b) / max(abs(a), 1e-9) < 0.02


def facts_equal(claim: Fact, other: Fact) -> bool:
    """True when ``other`` states the same value as ``claim`` at the claim's precision."""
    if claim.kind != other.kind:
        return False
    if claim.kind == "date":
        cy, cm, cd = claim.value
        oy, om, od = other.value
        return bool(cy == oy and (cm is None or cm == om) and (cd is None or cd == od))
    if claim.kind == "quote":
        return claim.value == other.value or str(claim.value) in str(other.value)
    if claim.kind in ("money", "percent"):
        (cu, cv), (ou, ov) = claim.value, other.value
        return bool(cu == ou and _close(float(cv), float(ov), claim.text))
    return _close(float(claim.value), float(other.value), claim.text)


def find_dates(text: str) -> Iterator[Fact]:
    """Dates with at least a year, in order."""
    return (f for f in extract_facts(text) if f.kind == "date")


def anchor_words(text: str) -> set[str]:
    """Content words (lower-cased, five-letter prefixes) used to align claim and passage sentences."""
    return {w[:5] for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}
