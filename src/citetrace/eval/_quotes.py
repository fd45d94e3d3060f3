"""Quotations in a sentence: quote marks paired in order, titles left out (a claim's quotation is checked
verbatim by the deterministic checker, see ``_facts``)."""

from __future__ import annotations

import re

__all__ = ["quotations"]

_TITLE_CUE = re.compile(r"(?:titled|entitled|called|named|headlined|report|study|paper|book|article|series|"
                        r"film|show|album|song|programme|program|campaign|plan)\s*$", re.I)
_QUOTE_PAIRS = re.compile(r"\"([^\"\n]{1,400})\"|“([^“”\n]{1,400})”")


def _is_title(inner: str, before: str) -> bool:
    """A quoted title ("Housing Outlook 2024", the report "Fair Shares") is not a quotation."""
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", inner)
    long = [w for w in words if len(w) > 3]
    title_case = bool(long) and sum(w[0].isupper() for w in long) / len(long) >= 0.6
    return title_case or bool(_TITLE_CUE.search(before))


def quotations(text: str) -> list[tuple[int, int, str]]:
    """(start, end, normalised inner text) of each quotation: quote marks paired in order (two separate
    quotations never merge), at least three words, titles excluded."""
    out: list[tuple[int, int, str]] = []
    for m in _QUOTE_PAIRS.finditer(text):
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        if len(inner.split()) < 3 or _is_title(inner, text[max(0, m.start() - 20):m.start()]):
            continue
        out.append((m.start(), m.end(), " ".join(inner.lower().split()).strip(" ,.")))
    return out
