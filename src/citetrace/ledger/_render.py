"""The report rendered from claim rows, never from free-form notes, and the ledger as a plain dict.

Verified claims carry citation markers (so ``citetrace eval`` maps each claim to the pages of its evidence)
and their evidence ids; contested claims carry both sides, labelled; everything unresolved carries an
explicit label. Text that has no claim row is never rendered as an assertion.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from citetrace import names
from citetrace.ledger._model import ADJUDICATE, Claim

if TYPE_CHECKING:
    from citetrace.ledger._ledger import Ledger

__all__ = ["render", "ledger_dict", "UNRESOLVED_LABEL", "CONTESTED_LABEL", "CONTRADICTED_LABEL"]

UNRESOLVED_LABEL = "Unresolved"
CONTESTED_LABEL = "Contested"
CONTRADICTED_LABEL = "Contradicted by the evidence"


class _Refs:
    """Reference numbers by URL, in order of first use."""

    def __init__(self, ledger: "Ledger") -> None:
        self.ledger = ledger
        self.numbers: dict[str, int] = {}

    def markers(self, eids: tuple[str, ...]) -> str:
        out = []
        for eid in eids:
            url = self.ledger.evidence(eid).url
            n = self.numbers.setdefault(url, len(self.numbers) + 1)
            if f"[{n}]" not in out:
                out.append(f"[{n}]")
        return "".join(out)


def _live(ledger: "Ledger", eids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(e for e in eids if not ledger.evidence(e).stale)


def _ids(ledger: "Ledger", eids: tuple[str, ...]) -> str:
    return ", ".join(e + (" (stale)" if ledger.evidence(e).stale else "") for e in eids) or "none"


def _sentence(text: str) -> str:
    return text.rstrip().rstrip(".")


def _claim_line(ledger: "Ledger", claim: Claim, refs: _Refs, stop: str | None) -> tuple[str, str]:
    """(section, markdown line) for one claim row."""
    text = _sentence(claim.text)
    if claim.status == names.CLAIM_VERIFIED:
        eids = _live(ledger, claim.supports) or claim.supports
        review = " (routed to human review)" if claim.routed == names.ROUTE_HUMAN_REVIEW else ""
        return "verified", f"- {text} {refs.markers(eids)} (evidence {', '.join(eids)}){review}."
    if claim.status == names.CLAIM_CONTESTED:
        sup = claim.supports
        con = claim.contradicts
        return "contested", (
            f"- **{CONTESTED_LABEL}:** {text}.\n"
            f"  - Supporting: {refs.markers(sup)} (evidence {_ids(ledger, sup)})\n"
            f"  - Contradicting: {refs.markers(con)} (evidence {_ids(ledger, con)})")
    if claim.status == names.CLAIM_CONTRADICTED and claim.pass_reason == ADJUDICATE:
        con = _live(ledger, claim.contradicts) or claim.contradicts
        return "contradicted", (f"- **{CONTRADICTED_LABEL}:** the claim that {text[0].lower() + text[1:]} "
                                f"{refs.markers(con)} (evidence {', '.join(con)}).")
    why = {names.CLAIM_INSUFFICIENT: "insufficient evidence", names.CLAIM_UNVERIFIABLE: "unverifiable",
           names.CLAIM_CONTRADICTED: "contradicted, not yet adjudicated"}[claim.status]
    if stop and stop != names.STOP_GOAL_SATISFIED and claim.status != names.CLAIM_UNVERIFIABLE:
        why += f"; stopped: {stop}"
    return "unresolved", f"- **{UNRESOLVED_LABEL} ({why}):** {text}."


_SECTIONS = (("verified", "Findings"), ("contradicted", CONTRADICTED_LABEL), ("contested", "Contested claims"),
             ("unresolved", "Unresolved claims"))


def render(ledger: "Ledger") -> str:
    """The report in markdown, built from claim and question rows only."""
    record = None
    try:
        record = ledger.store.get_run(ledger.run_id)
    except Exception:  # noqa: BLE001 - the title is cosmetic
        pass
    title = (record.question if record is not None and record.question else None) or "Research report"
    stop = ledger.stop_reason()
    refs = _Refs(ledger)
    sections: dict[str, list[str]] = {key: [] for key, _ in _SECTIONS}
    for claim in ledger.claims():
        section, line = _claim_line(ledger, claim, refs, stop)
        sections[section].append(line)
    lines = [f"# {title}", ""]
    if stop and stop != names.STOP_GOAL_SATISFIED:
        lines += [f"_Partial result: the revision stopped on {stop}._", ""]
    for key, heading in _SECTIONS:
        if sections[key]:
            lines += [f"## {heading}", "", *sections[key], ""]
    if not any(sections.values()):
        lines += ["No claim has a row in the ledger, so nothing is asserted.", ""]
    questions = ledger.questions()
    if questions:
        lines += ["## Sub-questions", ""]
        for q in questions:
            state = q.status + (f": {q.reason}" if q.reason else "")
            tried = "; ".join(f'"{x}"' for x in q.queries)
            lines.append(f"- {q.id} ({state}): {q.text}" + (f" Queries tried: {tried}." if tried else ""))
        lines.append("")
    if refs.numbers:
        lines += ["## References", ""]
        lines += [f"[{n}] {url}" for url, n in refs.numbers.items()]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def ledger_dict(ledger: "Ledger") -> dict[str, Any]:
    """The whole ledger as JSON-able data (``citetrace ledger show --json``)."""
    return {
        "run_id": ledger.run_id,
        "questions": [asdict(q) for q in ledger.questions()],
        "evidence": [asdict(e) for e in ledger.evidence_records()],
        "rejected": ledger.rejected(),
        "claims": [asdict(c) for c in ledger.claims()],
        "decisions": ledger.decisions(),
        "iterations": ledger.iterations(),
        "stop_reason": ledger.stop_reason(),
    }
