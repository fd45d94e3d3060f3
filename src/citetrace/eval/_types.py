"""The records citation evaluation passes between its stages: citations, sentences, pairs, passages, verdicts.

Kept in one small module so that parsing, checks, judges and rates share one vocabulary and none of them
imports another's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from citetrace.claims import AtomicClaim

__all__ = [
    "SUPPORTED",
    "PARTIAL",
    "CONTRADICTED",
    "ABSENT",
    "JUDGE_ERROR",
    "UNFETCHED",
    "JUDGE_LABELS",
    "PAIR_LABELS",
    "Citation",
    "Sentence",
    "Pair",
    "Passage",
    "Verdict",
    "ReportParseError",
]

SUPPORTED: Final = "SUPPORTED"
"""The passage states the whole claim."""
PARTIAL: Final = "PARTIAL"
"""The passage states part of the claim, or a less precise version of it."""
CONTRADICTED: Final = "CONTRADICTED"
"""The passage states something incompatible with the claim (wrong number, date, direction)."""
ABSENT: Final = "ABSENT"
"""The passage says nothing that bears on the claim."""
JUDGE_ERROR: Final = "JUDGE_ERROR"
"""The judge refused, failed or returned something unparseable. Counted, never dropped."""
UNFETCHED: Final = "UNFETCHED"
"""The cited URL has no usable text in the run store, so there was nothing to judge."""

JUDGE_LABELS: Final = (SUPPORTED, PARTIAL, CONTRADICTED, ABSENT)
"""The four answers a judge may give."""
PAIR_LABELS: Final = (SUPPORTED, PARTIAL, CONTRADICTED, ABSENT, JUDGE_ERROR, UNFETCHED)
"""Every label a judged pair can end with (closed set; also a metric label)."""


class ReportParseError(ValueError):
    """A report that cannot be read as text with citations; the message names the problem."""


@dataclass(frozen=True)
class Citation:
    """One citation inside a sentence: the marker as written and the URL it points to (None if unresolved)."""

    marker: str
    url: str | None
    start: int
    end: int
    problem: str | None = None


@dataclass(frozen=True)
class Sentence:
    """One sentence of the report, with its character span in the original text."""

    index: int
    text: str
    start: int
    end: int
    block: str
    citations: tuple[Citation, ...] = ()
    needs_citation: bool = True
    reason: str = "claim"
    claims: tuple[AtomicClaim, ...] = ()
    """The sentence's atomic claims (``citetrace.claims``); each anchor's ``key`` is the index of its
    citation in ``citations``. Empty for a sentence that needs no citation."""


@dataclass(frozen=True)
class Pair:
    """One (atomic claim, cited URL) pair; ``url`` is None for a sentence that cites nothing.

    ``claim_index`` is the atomic claim's index in its sentence and ``claim_text`` what the judge reads
    (None: the whole sentence); ``inherited`` says the citation was written for the sentence, not inside
    the claim's clause.
    """

    sentence: Sentence
    url: str | None
    marker: str | None = None
    problem: str | None = None
    claim_index: int = 0
    claim_text: str | None = None
    inherited: bool = False

    @property
    def claim(self) -> str:
        return self.sentence.text if self.claim_text is None else self.claim_text


@dataclass(frozen=True)
class Passage:
    """A window of the stored page text, with its offsets and retrieval score."""

    text: str
    start: int
    end: int
    score: float = 0.0


@dataclass(frozen=True)
class Verdict:
    """A judge's answer for one pair."""

    label: str
    judge: str
    quote: str | None = None
    explanation: str = ""
    flags: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.label not in PAIR_LABELS:
            raise ValueError(f"unknown verdict label {self.label!r}; expected one of {PAIR_LABELS}")
