"""The value patterns the fact reader applies, in order, and their parsers: identifiers, versions, periods,
times, dates, decades, money, percentages, fractions, multipliers, years, ranges and plain numbers.

Kept apart from ``_facts`` (which turns matches into ``Fact``s with their roles and slots) so that each
stays small: this module says what a value looks like, ``_facts`` what it means in its sentence.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Callable

from citetrace.eval._align import STOP
from citetrace.eval._quantities import FRACTION, fraction_value

__all__ = ["PATTERNS", "DECLINE", "MONTHS", "Parsed", "version_key", "word_value"]

MONTHS = {
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
_PLAIN_SCALE_RE = r"(?:\s*(thousand|million|billion|trillion|bn|mn|tn)\b)?"
"""A plain number's scale: a lone "m", "k" or "b" after it is a unit ("4.3 m" of water, "a 10 k run"), never
a million, a thousand or a billion as it is after a currency ("$4.3m") (det-6)."""
_DASH = r"\s*(?:–|—|-|to|and)\s*"  # day ranges only: "March 6 to 7", "6-7 March"
_RANGE = r"\s*[–—-]\s*"  # number ranges need a dash ("from 410 to 860" is a change, not a range)
_PCT = r"(%|percent\b|per cent\b|percentage points?\b|pp\b)"

_SMALL = "two three four five six seven eight nine".split()
"""Spelled-out counts read as numbers ("four hours" against "two hours"); "one" is left out: "one of the
largest" is not a count worth checking."""
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORDNUM = rf"(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS[1:10])}))?|{'|'.join(_UNITS[10:])}"
_WORDNUM_ANY = rf"{_WORDNUM}|{'|'.join(_SMALL)}"
_YEAR = r"(1[89]\d\d|20\d\d)"


def word_value(words: str) -> int:
    parts = re.split(r"[- ]", words.lower())
    if parts[0] in _TENS:
        return 10 * (2 + _TENS.index(parts[0])) + (_UNITS.index(parts[1]) if len(parts) > 1 else 0)
    return _UNITS.index(parts[0])


def _num(raw: str, scale: str | None) -> float:
    return float(raw.replace(",", "")) * _SCALE.get((scale or "").lower(), 1.0)


def _month(name: str | None) -> int:
    return MONTHS[(name or "").lower().rstrip(".")]


def _ymd(y: int | None, m: int, d: int | None) -> tuple[int | None, int, int | None] | None:
    try:
        date(y or 2000, m, d or 1)
    except ValueError:
        return None
    return y, m, d


def _pct_unit(word: str) -> str:
    return "pp" if word.lower().startswith(("percentage", "pp")) else "%"


def _currency(symbol: str) -> str:
    s = symbol.strip().lower()
    if s in ("$", "usd", "dollar", "dollars"):
        return "USD"
    if s in ("€", "eur", "euro", "euros"):
        return "EUR"
    if s in ("£", "gbp", "pound", "pounds"):
        return "GBP"
    return s.upper()


Parsed = tuple[str, Any, "float | None"] | None  # (kind, value, high) or None to skip (a claimed span)
_Parser = Callable[[re.Match[str]], Parsed]
DECLINE: Parsed = ("", None, None)
"""A parser's answer for "not mine after all": the span stays free for the later patterns."""


def _period(m: re.Match[str]) -> Parsed:
    """A fiscal or academic year ("2024–25", "2024/2025"): consecutive years only, so "2020–2023" stays two
    years and is not a period."""
    first, second = int(m[1]), m[2]
    last = int(second) if len(second) == 4 else first - first % 100 + int(second)
    return ("period", (first, last), None) if last == first + 1 else DECLINE


def version_key(text: str) -> str:
    """A version number compared as written, trailing ".0" parts dropped ("5.0" is "5", "3.4.2" stays)."""
    parts = text.lower().split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def _range(m: re.Match[str]) -> Parsed:
    """"40-50" is a range; "5–2" (the first at least the second, both small) is a vote or a score, compared
    as written: "voted 5–2" is no range from 5 down to 2."""
    low, high = _num(m[1], m[3]), _num(m[2], m[3])
    if high <= low and not m[3] and low < 100:
        return "score", (int(low), int(high)), None
    return "number", low, high


def _multiple(m: re.Match[str]) -> Parsed:
    """"3x", "1.6 times", "three times", "twice", "fourfold": a ratio, compared only with ratios."""
    raw = next(g for g in m.groups() if g)
    low = raw.lower()
    if low in ("twice", "double"):
        return "multiple", 2.0, None
    if low[0].isdigit():
        return "multiple", float(raw.replace(",", "")), None
    return "multiple", float(word_value(low)), None


def _money(g: tuple[Any, ...]) -> Parsed:
    symbol, raw, scale = (g[0], g[1], g[2]) if g[0] and not g[0][0].isdigit() else (g[2], g[0], g[1])
    return "money", (_currency(symbol), _num(raw, scale)), None


def _fraction(m: re.Match[str]) -> Parsed:
    value = fraction_value(m)
    return None if value is None else ("percent", ("%", value), None)


def _time(m: re.Match[str]) -> Parsed:
    """Minutes after midnight: "8 am" 480, "9.30 pm" 1290, "17:30" 1050."""
    hour, minute, half = int(m[1] or m[4]), int(m[2] or m[5] or 0), (m[3] or "").lower().replace(".", "")
    if half and not 1 <= hour <= 12 or hour > 24 or minute > 59:
        return None
    hour = hour % 12 + (12 if half == "pm" else 0) if half else hour
    return "time", hour * 60 + minute, None


_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10}
_NOT_NAMES = frozenset("the a an about around some nearly almost over under only just another all roughly "
                       "approximately fewer more less up top first last and or of in on at by for to from with "
                       "since until between monday tuesday wednesday thursday friday saturday sunday next within "
                       "during after before these those its their our his her each every both many most "
                       "no not usd eur gbp chf jpy".split())
_LABEL = re.compile(r"\b([A-Z][a-z]{2,}|[A-Z]{2,6})\s+(\d{1,4}|I{1,3}|IV|VI{0,3}|IX|X)\b"
                    r"(?![.,:]\d|\s*(?:%|percent|per cent|[-–]\s*\d)|\s+(?:thousand|million|billion|trillion|bn|mn)\b)")


def _label(m: re.Match[str]) -> Parsed:
    """A number that is part of a name ("the Aero 14", "Round 3", "Windows 11", "Grade II", a law report's
    "EWHC 1187"): a label,
    compared only with the same name's labels, never a quantity (nor "3 May" in "Round 3 may apply"). Not
    at a sentence's start ("About 40 firms") nor after a month, a weekday or a qualifier."""
    name, raw = m[1], m[2]
    before = m.string[:m.start()].rstrip(" \t\"“'(")
    opening = not before or before[-1] in ".!?:\n"
    if name.lower() in _NOT_NAMES or name.lower().rstrip(".") in MONTHS or (opening and name.lower() in STOP):
        return DECLINE  # "About 40 firms", "These 12 sites"; "Phase 2 trials enrolled" opens with a name
    if len(raw) == 4 and re.fullmatch(r"1[89]\d\d|20\d\d", raw):  # "Euro 2024", "Vision 2030": a year
        return DECLINE
    return "label", (name.lower(), str(_ROMAN.get(raw, raw))), None


def _cased(parse: _Parser, group: int) -> _Parser:
    """A date parser that declines a lower-case "may" (the modal verb: "in 3 may apply"), never "May"."""
    return lambda m: DECLINE if m[group] == "may" else parse(m)


PATTERNS: tuple[tuple[re.Pattern[str], _Parser], ...] = (
    (re.compile(r"\b(?!(?:Mid|Pre|Post|Early|Late|End|Non|Over|Under)-)[A-Z][A-Za-z]*-\d[\w.]*(?:-\w+)*"),
     lambda m: None),  # identifiers ("TOI-2284", "CVE-2025-41877", "COVID-19", "BW-20") are names, not values
    (re.compile(r"(?<![\w&])#\s?\d+\b"), lambda m: None),  # "Update #9", "#3 seed": a number, not a count (det-7)
    (re.compile(r"\b(?:[Vv]ersions?|v)\s?(\d+(?:\.\d+)*(?:\.x)?)\b|\b(?:release|build)\s+(\d+(?:\.\d+)+)\b"
                r"|(?<![\w.])(\d+(?:\.\d+){2,}|\d+\.x)\b"),
     lambda m: ("version", version_key(next(g for g in m.groups() if g)), None)),
    (re.compile(rf"(?<![\w.])({_NUM})\s*[x×]\s*({_NUM})(?![\w.]\d)"),  # "2880 x 1800": no year, no multiple
     lambda m: ("dimension", (_num(m[1], None), _num(m[2], None)), None)),
    (_LABEL, _label),
    (re.compile(r"\b((?:19|20)\d\d)\s*[–/-]\s*((?:19|20)\d\d|\d\d)\b(?![\d%.,]\d|\s*(?:%|percent|per cent))"), _period),
    (re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?!\w)|\b([01]?\d|2[0-4]):([0-5]\d)\b", re.I), _time),
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"),
     lambda m: ("date", _ymd(int(m[1]), int(m[2]), int(m[3])), None)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_DASH}(\d{{1,2}})\b(?!\s*(?:%|percent))(?:,?\s+{_YEAR}\b)?", re.I),
     _cased(lambda m: ("date", _ymd(int(m[4]) if m[4] else None, _month(m[1]), int(m[2])), float(m[3])), 1)),
    (re.compile(rf"\b(\d{{1,2}}){_DASH}(\d{{1,2}})\s+{_MONTH}(?:,?\s+{_YEAR}\b)?", re.I),
     _cased(lambda m: ("date", _ymd(int(m[4]) if m[4] else None, _month(m[3]), int(m[1])), float(m[2])), 3)),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+{_YEAR}\b", re.I),
     _cased(lambda m: ("date", _ymd(int(m[3]), _month(m[2]), int(m[1])), None), 2)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b", re.I),
     _cased(lambda m: ("date", _ymd(int(m[3]), _month(m[1]), int(m[2])), None), 1)),
    (re.compile(rf"\b{_MONTH}\s+(?:of\s+)?{_YEAR}\b", re.I),
     _cased(lambda m: ("date", _ymd(int(m[2]), _month(m[1]), None), None), 1)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?:%|percent|,\d))", re.I),
     _cased(lambda m: ("date", _ymd(None, _month(m[1]), int(m[2])), None), 1)),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}\b", re.I),
     _cased(lambda m: ("date", _ymd(None, _month(m[2]), int(m[1])), None), 2)),
    (re.compile(r"\b(1[89]\d0|20\d0)(?:'|’)?s\b"), lambda m: None),  # "the 2000's", "1990s": not a year
    (re.compile(rf"([$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY)\s)\s?({_NUM}){_SCALE_RE}"), lambda m: _money(m.groups())),
    (re.compile(rf"\b({_NUM}){_SCALE_RE}\s*(USD|EUR|GBP|dollars?|euros?|pounds?)\b", re.I),
     lambda m: _money(m.groups())),
    (re.compile(rf"\bbetween\s+({_NUM})\s*%?\s+and\s+({_NUM})\s*{_PCT}|({_NUM})\s*%?{_RANGE}({_NUM})\s*{_PCT}", re.I),
     lambda m: ("percent", (_pct_unit(m[3] or m[6]), float((m[1] or m[4]).replace(",", ""))),
                float((m[2] or m[5]).replace(",", "")))),
    (re.compile(rf"({_NUM})\s*{_PCT}", re.I),
     lambda m: ("percent", (_pct_unit(m[2]), float(m[1].replace(",", ""))), None)),
    (FRACTION, _fraction),
    (re.compile(rf"(?<![\w.])({_NUM})\s?[x×](?=[\s,.;:)]|$)|(?<![\w.])({_NUM}|{_WORDNUM_ANY})[\s-]+times\b"
                rf"(?!\s+(?:a|an|per|each|every)\b)|\b(twice|double)\b(?=\s+(?:as|the|that|its|their|what)\b)"
                rf"|\b(\d+|{_WORDNUM_ANY})-?fold\b", re.I), _multiple),
    (re.compile(rf"\b{_YEAR}\b(?!\s*(?:%|percent|'s|’s))"), lambda m: ("date", (int(m[1]), None, None), None)),
    (re.compile(rf"\bbetween\s+({_NUM})\s+and\s+({_NUM}){_SCALE_RE}(?![\w%])", re.I),
     lambda m: ("number", _num(m[1], m[3]), _num(m[2], m[3]))),
    (re.compile(rf"(?<![\w.\-–])({_NUM}){_RANGE}({_NUM}){_SCALE_RE}(?![\w%.]\d)(?![\w%])", re.I), _range),
    (re.compile(rf"(?<![\w.])({_NUM}){_PLAIN_SCALE_RE}(?![\w%])", re.I), lambda m: ("number", _num(m[1], m[2]), None)),
    (re.compile(rf"\b({_WORDNUM})\s*(%|percent\b|per cent\b)", re.I),
     lambda m: ("percent", ("%", float(word_value(m[1]))), None)),
    (re.compile(rf"\b({_WORDNUM_ANY})\b(?!-\w|\s(?:thirds?|quarters?|fifths?|tenths?|halves|in|out)\b)", re.I),
     lambda m: ("number", float(word_value(m[1])), None)),
)
