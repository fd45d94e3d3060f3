"""The ledger's records and errors: sub-questions, evidence, claims, and the journal kinds that persist them.

Records are frozen views rebuilt from the store; the store's journal is the truth. Evidence never changes:
a stale mark is a later journal entry, and the ``Evidence`` view just shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from citetrace._redact import redact_url

__all__ = [
    "LedgerError", "EvidenceError", "IllegalTransition", "Question", "Evidence", "Claim", "HistoryEntry",
    "normalise", "ADJUDICATE", "J_QUESTION", "J_QUESTION_STATUS", "J_QUERY", "J_EVIDENCE", "J_REJECTED", "J_STALE", "J_CLAIM",
    "J_LINK", "J_VERIFICATION", "J_DECISION", "J_ITERATION", "J_STOP", "T_QUESTIONS", "T_CLAIMS",
]

# journal kinds (append-only) and row tables (current state) in the store
ADJUDICATE: Final = "adjudicate"
"""The ``reverify`` reason of an adjudicating pass: a contradiction it confirms is settled."""

J_QUESTION: Final = "question"
J_QUESTION_STATUS: Final = "question_status"
J_QUERY: Final = "query"
J_EVIDENCE: Final = "evidence"
J_REJECTED: Final = "rejected"
J_STALE: Final = "stale"
J_CLAIM: Final = "claim"
J_LINK: Final = "link"
J_VERIFICATION: Final = "verification"
J_DECISION: Final = "decision"
J_ITERATION: Final = "iteration"
J_STOP: Final = "stop"
T_QUESTIONS: Final = "questions"
T_CLAIMS: Final = "claims"


class LedgerError(ValueError):
    """Misuse of the ledger (unknown id, missing reason, bad argument); the message names the problem."""


class EvidenceError(LedgerError):
    """Evidence refused by the entry check; ``url`` is the URL and the message says why."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"evidence for {redact_url(url)} refused: {reason}")  # the message is a sink too
        self.url = url
        self.reason = reason


class IllegalTransition(LedgerError):
    """A claim status change the state contract forbids, naming the claim, its status and the request."""

    def __init__(self, claim: str, status: str, requested: str, why: str = "") -> None:
        detail = f" ({why})" if why else ""
        super().__init__(f"claim {claim}: illegal transition {status} -> {requested}{detail}")
        self.claim = claim
        self.status = status
        self.requested = requested


def normalise(text: str) -> str:
    """Whitespace folded to single spaces and trimmed: the form in which a span must be verbatim."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Question:
    """A sub-question: ``depends_on`` other ids, a status, the queries tried, and its status history."""

    id: str
    text: str
    depends_on: tuple[str, ...]
    status: str
    reason: str | None
    queries: tuple[str, ...]
    history: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Evidence:
    """One retrieved span, checked on entry against this run's stored fetch of ``url``."""

    id: str
    url: str
    span: str
    retrieved_at: float
    query: str
    source_class: str
    store_ref: str
    content_hash: str
    question: str | None = None
    published_at: float | None = None
    fetch_call: int | None = None
    """The tool call (``citetrace show`` number) that fetched the page, when the run recorded it."""
    trace_id: str | None = None
    syndicated_of: str | None = None
    """The evidence id whose text this record repeats under another URL (never independent support)."""
    stale: bool = False
    stale_reason: str | None = None
    superseded_by: str | None = None

    @property
    def origin(self) -> str:
        """The record this one counts as for independence (itself unless it is a syndicated copy)."""
        return self.syndicated_of or self.id

    @property
    def as_of(self) -> float:
        """When the source says it was current: its publication time if known, else the fetch time."""
        return self.published_at if self.published_at is not None else self.retrieved_at


@dataclass(frozen=True)
class HistoryEntry:
    """One status change of a claim, as the verification log recorded it."""

    pass_no: int
    from_status: str
    to_status: str
    evidence: tuple[str, ...]
    reason: str
    at: float


@dataclass(frozen=True)
class Claim:
    """An atomic claim with its evidence links, status, pass number and history."""

    id: str
    text: str
    question: str | None
    status: str
    pass_no: int
    pass_reason: str
    supports: tuple[str, ...]
    contradicts: tuple[str, ...]
    history: tuple[HistoryEntry, ...]
    flips: int = 0
    claim_type: str = "general"
    impact: str = "normal"
    routed: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
