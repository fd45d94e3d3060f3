"""Rebuilding a ledger's state from the store: rows as they are, evidence and logs replayed from the journal."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from citetrace.ledger._entry import EvidenceIndex
from citetrace.ledger._model import (
    J_DECISION, J_EVIDENCE, J_ITERATION, J_REJECTED, J_STALE, J_STOP, T_CLAIMS, T_QUESTIONS, Evidence,
)
from citetrace.store import Store

__all__ = ["LedgerState", "load_state", "evidence_from_entry"]


def evidence_from_entry(data: dict[str, Any]) -> Evidence:
    """The ``Evidence`` view of a journal entry (stale marks are applied separately)."""
    return Evidence(
        id=data["evidence"], url=data["url"], span=data["span"], retrieved_at=float(data["retrieved_at"]),
        query=data["query"], source_class=data["source_class"], store_ref=data["store_ref"],
        content_hash=data["content_hash"], question=data.get("question"), published_at=data.get("published_at"),
        fetch_call=data.get("fetch_call"), trace_id=data.get("trace_id"), syndicated_of=data.get("syndicated_of"),
    )


@dataclass
class LedgerState:
    """The in-memory view of one run's ledger."""

    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    iterations: list[dict[str, Any]] = field(default_factory=list)
    stops: list[dict[str, Any]] = field(default_factory=list)
    last_chain: str = ""
    last_seq: int = 0
    """The seq of the last journal entry read: a write must extend exactly this journal (``after_seq``)."""
    index: EvidenceIndex = field(default_factory=EvidenceIndex)

    def apply(self, kind: str, data: dict[str, Any]) -> None:
        """Fold one journal entry into the view."""
        if kind == J_EVIDENCE:
            ev = evidence_from_entry(data)
            self.evidence[ev.id] = ev
            self.index.add(ev)
        elif kind == J_STALE:
            old = self.evidence.get(data["evidence"])
            if old is not None and not old.stale:
                self.evidence[old.id] = replace(old, stale=True, stale_reason=data.get("reason"),
                                                superseded_by=data.get("superseded_by"))
        elif kind == J_REJECTED:
            self.rejected.append(data)
        elif kind == J_DECISION:
            self.decisions.append(data)
        elif kind == J_ITERATION:
            self.iterations.append(data)
        elif kind == J_STOP:
            self.stops.append(data)
        self.last_chain = str(data.get("chain", self.last_chain))


def load_state(store: Store, run_id: str) -> LedgerState:
    """Read one run's ledger from the store."""
    state = LedgerState()
    for seq, kind, data in store.ledger_entries(run_id):
        state.apply(kind, data)
        state.last_seq = seq
    # rows after the journal: a row newer than the journal read makes the next write conflict and re-read
    state.questions = dict(store.ledger_rows(run_id, T_QUESTIONS))
    state.claims = dict(store.ledger_rows(run_id, T_CLAIMS))
    return state
