"""``audit``: re-derive every claim of a run from its evidence records, without re-running any search.

It checks that the journal is intact (the hash chain), that each evidence span is still verbatim in the
text the store holds for that fetch, and that each claim's status, pass and evidence follow from its
verification log. Every break is named; an empty list means the rendered report can be re-derived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citetrace import names
from citetrace.ledger._journal import chain_hash
from citetrace.ledger._model import (
    J_CLAIM, J_EVIDENCE, J_LINK, J_QUERY, J_QUESTION, J_QUESTION_STATUS, J_VERIFICATION, T_CLAIMS, T_QUESTIONS,
    LedgerError, normalise,
)
from citetrace.ledger._states import DEFAULT_CONTESTED_AFTER, ClaimState, apply_verdict, open_pass
from citetrace.store import Store

__all__ = ["AuditResult", "audit"]


@dataclass
class AuditResult:
    """What the audit checked, and every break it found (each one line naming the record)."""

    run_id: str
    breaks: list[str] = field(default_factory=list)
    entries: int = 0
    evidence: int = 0
    claims: int = 0

    @property
    def ok(self) -> bool:
        return not self.breaks


def _check_chain(entries: list[tuple[int, str, dict[str, Any]]], out: AuditResult) -> None:
    prev = ""
    for expected, (seq, kind, data) in enumerate(entries, 1):
        if seq != expected:
            out.breaks.append(f"journal: entry {expected} is missing (next is {seq})")
            return
        if data.get("chain") != chain_hash(prev, kind, data):
            out.breaks.append(f"journal: entry {seq} ({kind}) was altered after it was written")
            return
        prev = str(data["chain"])


def _check_evidence(store: Store, data: dict[str, Any], docs: dict[str, list[Any]], texts: dict[str, str | None],
                    out: AuditResult) -> bool:
    eid, url, ref = data["evidence"], data["url"], data["store_ref"]
    if ref not in texts:  # each stored page is read and normalised once however many spans it holds
        try:
            raw = store.get_ref(ref)
        except ValueError:
            raw = None
        texts[ref] = normalise(raw) if raw is not None else None
    text = texts[ref]
    if text is None:
        out.breaks.append(f"evidence {eid} ({url}): the stored text {ref} is gone")
        return False
    if normalise(data["span"]) not in text:
        out.breaks.append(f"evidence {eid} ({url}): the span is no longer verbatim in the stored text")
        return False
    fetches = [d for d in docs.get(data["content_hash"], []) if d.url == url]
    if not any(abs(d.fetched_at - float(data["retrieved_at"])) < 1e-6 for d in fetches):
        out.breaks.append(f"evidence {eid} ({url}): no fetch of this URL at retrieved_at={data['retrieved_at']}")
        return False
    return True


def _check_claim(cid: str, row: dict[str, Any] | None, log: list[dict[str, Any]], links: dict[str, set[str]],
                 good: set[str], known: set[str], out: AuditResult, contested_after: int) -> None:
    if row is None:
        out.breaks.append(f"claim {cid}: in the journal but has no row in the claim table")
        return
    state = ClaimState()
    try:
        for step in log:
            if step.get("verdict") is None:
                state = open_pass(cid, state, step["reason"])
            else:
                state = apply_verdict(cid, state, step["verdict"], contested_after=contested_after)
    except LedgerError as exc:
        out.breaks.append(f"claim {cid}: its verification log breaks the state contract: {exc}")
        return
    if (row["status"], int(row["pass"])) != (state.status, state.pass_no):
        out.breaks.append(f"claim {cid}: row says {row['status']} (pass {row['pass']}) but its verification log"
                          f" gives {state.status} (pass {state.pass_no})")
    for name, derived in (("pass_reason", state.pass_reason), ("flips", state.flips)):  # both change the report
        if row.get(name) != derived:
            out.breaks.append(f"claim {cid}: row's {name} {row.get(name)!r} differs from its verification log's "
                              f"{derived!r}")
    if len(row["history"]) != len(log):
        out.breaks.append(f"claim {cid}: history has {len(row['history'])} steps, the log {len(log)}")
    for side in ("supports", "contradicts"):
        if set(row[side]) != links[side]:
            out.breaks.append(f"claim {cid}: {side} {sorted(row[side])} differ from the journal {sorted(links[side])}")
        for eid in row[side]:
            if eid not in known:
                out.breaks.append(f"claim {cid}: {side} unknown evidence {eid}")
    if row["status"] == names.CLAIM_VERIFIED and not (set(row["supports"]) & good):
        out.breaks.append(f"claim {cid}: verified, but none of its supporting evidence checks out")


def audit(store: Store, run_id: str, *, contested_after: int = DEFAULT_CONTESTED_AFTER) -> AuditResult:
    """Re-derive a run's ledger from the store; ``result.breaks`` names every inconsistency."""
    out = AuditResult(run_id)
    entries = store.ledger_entries(run_id)
    out.entries = len(entries)
    _check_chain(entries, out)
    docs: dict[str, list[Any]] = {}
    for d in store.documents(run_id):
        docs.setdefault(d.sha256, []).append(d)
    texts: dict[str, str | None] = {}
    good: set[str] = set()
    known: set[str] = set()
    claims: dict[str, list[dict[str, Any]]] = {}
    links: dict[str, dict[str, set[str]]] = {}
    questions: dict[str, dict[str, Any]] = {}
    made: dict[str, dict[str, Any]] = {}  # claim id -> its J_CLAIM entry (what the claim says)
    for _seq, kind, data in entries:
        if kind == J_EVIDENCE:
            known.add(data["evidence"])
            out.evidence += 1
            if _check_evidence(store, data, docs, texts, out):
                good.add(data["evidence"])
        elif kind == J_CLAIM:
            claims[data["claim"]] = []
            links[data["claim"]] = {"supports": set(), "contradicts": set()}
            made[data["claim"]] = {**data, "routed": None}
        elif kind == J_LINK and data["claim"] in links:
            links[data["claim"]]["supports"].update(data["supports"])
            links[data["claim"]]["contradicts"].update(data["contradicts"])
            if "routed" in data:
                made[data["claim"]] = {**made[data["claim"]], "routed": data["routed"]}
        elif kind == J_VERIFICATION and data["claim"] in claims:
            claims[data["claim"]].append(data)
            side = {names.CLAIM_VERIFIED: "supports", names.CLAIM_CONTRADICTED: "contradicts"}.get(
                data.get("verdict") or "")
            if side:
                links[data["claim"]][side].update(data["evidence"])
        elif kind == J_QUESTION:
            questions[data["question"]] = {"status": names.Q_OPEN, "queries": [], "entry": data}
        elif kind == J_QUESTION_STATUS and data["question"] in questions:
            questions[data["question"]]["status"] = data["to"]
        elif kind == J_QUERY and data["question"] in questions:
            questions[data["question"]]["queries"].append(data["query"])
    rows = dict(store.ledger_rows(run_id, T_CLAIMS))
    for cid in rows:
        if cid not in claims:
            out.breaks.append(f"claim {cid}: has a row but no journal entry (added outside the ledger)")
    for cid, log in claims.items():
        out.claims += 1
        _check_claim(cid, rows.get(cid), log, links[cid], good, known, out, contested_after)
        _check_fields(f"claim {cid}", rows.get(cid), made[cid], _CLAIM_FIELDS, out)
    qrows = dict(store.ledger_rows(run_id, T_QUESTIONS))
    for qid, derived in questions.items():
        row = qrows.get(qid)
        if row is None:
            out.breaks.append(f"sub-question {qid}: dropped from the question graph")
        else:
            if row["status"] != derived["status"] or list(row["queries"]) != derived["queries"]:
                out.breaks.append(f"sub-question {qid}: row ({row['status']}, {len(row['queries'])} queries) differs"
                                  f" from the journal ({derived['status']}, {len(derived['queries'])} queries)")
            _check_fields(f"sub-question {qid}", row, derived["entry"], _QUESTION_FIELDS, out)
    return out


_CLAIM_FIELDS = ("text", "question", "claim_type", "impact", "routed")
_QUESTION_FIELDS = ("text", "depends_on")


def _check_fields(what: str, row: dict[str, Any] | None, entry: dict[str, Any], fields: tuple[str, ...],
                  out: AuditResult) -> None:
    """The row says what its journal entry said: the report is rendered from rows, so a row rewritten by hand
    (a claim's text) would assert something no evidence was checked for."""
    if row is None:
        return
    for name in fields:
        if name in entry and row.get(name) != entry[name]:
            out.breaks.append(f"{what}: row's {name} {row.get(name)!r} differs from the journal's {entry[name]!r}")
