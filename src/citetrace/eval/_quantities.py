"""How exact a stated quantity is, and when two quantities agree: qualifiers, fractions, ranges, tolerances.

"about 9 %" against a page's 9.4 % is not a contradiction, "two thirds" is a percentage (66.7 %), and
"March 6–7" is a range that contains March 7. The tolerances are stated here once and in docs/eval.md:

- ``about`` (about, around, roughly, approximately, circa, some, an estimated, ~): within 10 % of the value
  (and at least 0.5 for a percentage, so "about 9 %" accepts 8.5-9.9 %);
- ``nearly`` (nearly, almost, close to, just under): between 90 % of the value and the value;
- ``more`` (more than, over, above, at least, in excess of, upwards of): the other value is at least it;
- ``less`` (less than, under, below, fewer than, at most, up to, no more than): at most it;
- ``fraction`` (a third, two thirds, a quarter, half of, a tenth, one in five): within 3 percentage points;
- ranges ("40-50 %", "between 40 and 50 jobs", "March 6–7"): agree when the intervals overlap.

A passage's own qualifier counts too: a page that says "about 9 %" does not contradict a claim of 9.4 %.
Without a qualifier a value matches at the claim's precision (4.2 % matches 4.23 %, not the reverse).
"""

from __future__ import annotations

import math
import re

__all__ = ["qualifier_before", "fraction_value", "FRACTION", "values_agree"]

_QUALIFIERS = (
    ("about", re.compile(r"(?:about|around|roughly|approximately|approx\.?|circa|c\.|some|an estimated|estimated|"
                         r"~)\s*$", re.I)),
    ("nearly", re.compile(r"(?:nearly|almost|close to|just under|just below)\s*$", re.I)),
    ("more", re.compile(r"(?:more than|over|above|at least|in excess of|upwards of|exceeding|greater than)\s*$", re.I)),
    ("less", re.compile(r"(?:less than|under|below|fewer than|at most|up to|no more than)\s*$", re.I)),
)

_FRACTION_WORDS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5,
                   "fifths": 5, "tenth": 10, "tenths": 10}
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(a|an|one|two|three|four|five|six|seven|eight|nine|\d)"
_OF = r"(third|thirds|quarter|quarters|fifth|fifths|tenth|tenths|half)"
FRACTION = re.compile(
    rf"\b(?:{_COUNT}[\s-]+{_OF}|(?<!second )(?<!first )(half))\s+of\b"
    rf"|\b{_COUNT}\s+(?:in|out of)\s+(two|three|four|five|six|seven|eight|nine|ten|\d{{1,3}})\b"
    rf"|\b(all|none)\s+of\b"
    rf"|\bthe\s+(full|entire|whole)\s+(?=(?:cost|costs|amount|price|sum|bill|fee)\b)",
    re.I,
)
"""Fractions of a whole: "two thirds of", "a tenth of", "half of", "one in five"."""


def _count(word: str) -> int:
    w = word.lower()
    return int(w) if w.isdigit() else _COUNT_WORDS[w]


def fraction_value(m: re.Match[str]) -> float | None:
    """The percentage a FRACTION match states (66.7 for "two thirds of"), or None for nonsense (5 in 3)."""
    count, of, half, num, den, whole = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5), m.group(6)
    if m.group(7):  # "the full cost": all of it
        return 100.0
    if whole:  # "all of", "none of"
        return 100.0 if whole.lower() == "all" else 0.0
    if half:
        return 50.0
    if count and of:
        n, d = _count(count), _FRACTION_WORDS[of.lower()]
    else:
        n, d = _count(num), _count(den)
    return 100.0 * n / d if 0 < n <= d else None


def qualifier_before(text: str, start: int) -> str:
    """The qualifier written just before a number at ``start`` ("" when none)."""
    head = text[max(0, start - 24):start]
    for name, pattern in _QUALIFIERS:
        if pattern.search(head):
            return name
    return ""


def _tolerance(value: float, qualifier: str, percent: bool) -> tuple[float, float] | None:
    """The interval a qualified value stands for, or None when it is exact."""
    if qualifier == "about":
        half = max(abs(value) * 0.10, 0.5 if percent else 0.0)
        return value - half, value + half
    if qualifier == "nearly":
        return value * 0.9, value
    if qualifier == "more":
        return value, float("inf")
    if qualifier == "less":
        return float("-inf"), value
    if qualifier == "fraction":
        return value - 3.0, value + 3.0
    return None


def _decimals(text: str) -> int:
    m = re.search(r"\d+\.(\d+)", text)
    return len(m.group(1)) if m else 0


def _interval(value: float, qualifier: str, percent: bool, text: str, precise: bool) -> tuple[float, float]:
    """The values a stated quantity stands for: its tolerance, or its written precision for the claim side."""
    tolerance = _tolerance(value, qualifier, percent)
    if tolerance is not None:
        return tolerance
    decimals = _decimals(text)
    if precise and decimals > 0:  # a claim of 4.2 stands for [4.15, 4.25): it matches a page's 4.23, and
        # not 4.25, which rounds to 4.3 (99.9 % is not 99.95 %); "$1.2 billion" scales the half-width too
        raw = re.search(r"\d[\d,]*(?:\.\d+)?", text)
        written = float(raw.group(0).replace(",", "")) if raw else 0.0
        half = 0.5 * 10 ** -decimals * (abs(value) / written if written else 1.0)
        return value - half, value + half * (1 - 1e-6)
    return value, value


def values_agree(claim: tuple[float, float | None, str, str], other: tuple[float, float | None, str, str],
                 percent: bool = False) -> bool:
    """Do two quantities agree? Each is (value, range high or None, qualifier, text as written).

    Both sides stand for an interval (a range, a qualifier's tolerance, or the claim's written precision);
    they agree when the intervals overlap. The same bound on both sides ("up to 52 %" and "up to 25 %")
    compares the bounds themselves.
    """
    cv, ch, cq, ctext = claim
    ov, oh, oq, otext = other
    if ch is None and oh is None and cq == oq and cq in ("more", "less", "nearly"):
        cq = oq = ""
    clo, chi = (cv, ch) if ch is not None else _interval(cv, cq, percent, ctext, True)
    olo, ohi = (ov, oh) if oh is not None else _interval(ov, oq, percent, otext, False)
    eps = 1e-12 * max(1.0, *(abs(v) for v in (clo, chi, olo, ohi) if math.isfinite(v)))  # float noise only
    # ("$1.2 billion" == "1,200 million dollars"); an open bound's infinity is no noise (det-6: with it, "more
    # than 210,000" agreed with every value)
    return clo <= ohi + eps and olo <= chi + eps
