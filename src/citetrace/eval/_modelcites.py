"""Citations the model attached outside its text, placed back into the report so they pair with claims.

A provider's web search answer carries its citations as records beside the text: OpenAI ``url_citation``
annotations (``start_index``/``end_index`` into an output text part), Anthropic text blocks with
``citations``, Gemini grounding supports (a segment of the answer). Capture keeps each as the answer's own
cited text plus the provider's offsets (``Store.model_citations``). The recorded report may be that text
joined from several parts, stripped, or written into a larger report, so the offsets are only a hint: a
citation is placed where its cited text occurs (the occurrence nearest the hint), else where the same words
occur with other whitespace; one whose text is not in the report is counted as not placed, never guessed.
Perplexity cites with bare ``[n]`` markers and a ``citations`` list: those become the ``[n]`` -> URL map the
report parser already takes (the report's own reference list wins).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from citetrace import names
from citetrace.store import ModelCitation

__all__ = ["PlacedCitation", "numbered_url_map", "place_model_citations"]

_MAX_OCCURRENCES = 200  # occurrences of one cited text compared against its hint; the rest are not looked at


@dataclass(frozen=True)
class PlacedCitation:
    """A model citation's span ``[start, end)`` in the report text, its URL and the provider's record type."""

    start: int
    end: int
    url: str
    kind: str


def numbered_url_map(text: str, citations: Sequence[ModelCitation]) -> tuple[dict[str, str], int]:
    """The ``[n]`` -> URL map of the numbered model citations (Perplexity's ``citations`` list) whose marker the
    report carries, and how many numbered ones it does not carry."""
    found: dict[str, str] = {}
    missed = 0
    for c in citations:
        if c.kind == names.MODEL_CITATION_NUMBERED:
            number = c.text.strip()[1:-1]
            if number.isdigit() and c.text.strip() in text:
                found.setdefault(number, c.url)
            else:
                missed += 1
    return found, missed


def place_model_citations(text: str, citations: Sequence[ModelCitation]) -> tuple[list[PlacedCitation], int]:
    """Each span citation's place in ``text``, in order, and how many could not be placed (text not in the
    report). Numbered citations are not spans: ``numbered_url_map`` resolves them."""
    placed: list[PlacedCitation] = []
    missed = 0
    for c in citations:
        if c.kind == names.MODEL_CITATION_NUMBERED:
            continue
        span = _find(text, c)
        if span is None:
            missed += 1
            continue
        start, end = span  # the span without its edge whitespace, so it never reaches into a neighbour
        start += len(text[start:end]) - len(text[start:end].lstrip())
        end -= len(text[start:end]) - len(text[start:end].rstrip())
        placed.append(PlacedCitation(start, end, c.url, c.kind or "model_citation"))
    return placed, missed


def _find(text: str, c: ModelCitation) -> tuple[int, int] | None:
    cited = c.text
    if not cited.strip():
        return None
    if 0 <= c.start < c.end <= len(text) and text[c.start:c.end] == cited:
        return c.start, c.end
    hint = max(c.start, 0)
    best: int | None = None
    pos = text.find(cited)
    for _ in range(_MAX_OCCURRENCES):
        if pos < 0:
            break
        if best is None or abs(pos - hint) < abs(best - hint):
            best = pos
        pos = text.find(cited, pos + 1)
    if best is not None:
        return best, best + len(cited)
    words = cited.split()
    match = re.search(r"\s+".join(re.escape(w) for w in words), text) if words else None
    return (match.start(), match.end()) if match else None
