"""Row dicts (as stored) to the frozen ``Question`` and ``Claim`` views."""

from __future__ import annotations

from typing import Any

from citetrace.ledger._model import Claim, HistoryEntry, Question

__all__ = ["claim_from_row", "question_from_row"]


def question_from_row(row: dict[str, Any]) -> Question:
    return Question(row["id"], row["text"], tuple(row["depends_on"]), row["status"], row.get("reason"),
                    tuple(row["queries"]), tuple(row.get("history") or ()))


def claim_from_row(row: dict[str, Any]) -> Claim:
    history = tuple(
        HistoryEntry(int(h["pass"]), h["from"], h["to"], tuple(h["evidence"]), h["reason"], float(h["at"]))
        for h in row["history"]
    )
    return Claim(
        id=row["id"], text=row["text"], question=row.get("question"), status=row["status"], pass_no=int(row["pass"]),
        pass_reason=row["pass_reason"], supports=tuple(row["supports"]), contradicts=tuple(row["contradicts"]),
        history=history, flips=int(row.get("flips", 0)), claim_type=row.get("claim_type", "general"),
        impact=row.get("impact", "normal"), routed=row.get("routed"),
    )
