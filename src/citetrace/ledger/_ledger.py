"""``Ledger``: the question graph, the append-only evidence ledger and the claim table of one run.

Everything is persisted in the run store as it happens (a journal entry plus the changed row, in one
transaction), so ``Ledger.open(run_id)`` in a new process continues where the last one stopped. The
ledger enforces the state contract; judging what a span says is ``citetrace.ledger.assess``'s job.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import time
from typing import Any, Callable, Iterable, Sequence, TypeVar

from citetrace import names
from citetrace._redact import redact_report, redact_text
from citetrace._urls import redact_url
from citetrace.ledger import _entry
from citetrace.ledger._journal import Journal
from citetrace.ledger._load import load_state
from citetrace.ledger._model import (
    ADJUDICATE, J_CLAIM, J_EVIDENCE, J_LINK, J_QUERY, J_QUESTION, J_QUESTION_STATUS, J_REJECTED, J_STALE, J_VERIFICATION,
    T_CLAIMS, T_QUESTIONS, Claim, Evidence, EvidenceError, LedgerError, Question,
)
from citetrace.ledger._rows import claim_from_row, question_from_row
from citetrace.ledger._states import DEFAULT_CONTESTED_AFTER, ClaimState, apply_verdict, open_pass
from citetrace.store import Store, StoreConflict

__all__ = ["Ledger", "ADJUDICATE"]

_CLASS = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_IMPACTS = ("normal", "high")
_CONFLICT_TRIES = 100
"""How many times one call is re-applied on a re-read state before it gives up (each try lost a race)."""

_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T")


def _serialised(method: _F) -> _F:
    """Apply a writing call under the ledger's lock, against the journal as the store has it.

    Ids (``c3``, ``e7``) and rows are computed from the state this ledger read. Another ``Ledger`` on the same
    run (another agent, another process) may have written since: the store then refuses the write
    (``StoreConflict``, nothing written), this ledger re-reads the run, and the whole call runs again, checks
    included, on the new state. Each call commits once, at its end, so a re-run never writes twice. Nested
    calls run inside the outer call's try.
    """
    @functools.wraps(method)
    def wrapper(self: "Ledger", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            if self._depth:
                return method(self, *args, **kwargs)
            self._depth += 1
            try:
                return self._until_applied(lambda: method(self, *args, **kwargs), method.__name__)
            finally:
                self._depth -= 1
    return wrapper  # type: ignore[return-value]


class Ledger:
    """One run's ledger. Use ``run.ledger`` inside ``research_run`` or ``Ledger.open(run_id)``."""

    def __init__(self, run_id: str, *, store: Store | None = None, trace_id: str | None = None,
                 clock: Callable[[], float] = time.time, contested_after: int = DEFAULT_CONTESTED_AFTER) -> None:
        if not isinstance(run_id, str) or not run_id:
            raise LedgerError(f"a ledger needs a run id, got {run_id!r}")
        if contested_after < 1:
            raise LedgerError(f"contested_after must be >= 1, got {contested_after}")
        if store is None:
            from citetrace import _telemetry

            store = _telemetry.current().run_store()
        self.run_id = run_id
        self.store = store
        self.trace_id = trace_id
        self.clock = clock
        self.contested_after = contested_after
        self._lock = threading.RLock()
        self._depth = 0
        self._cache = _entry.TextCache()
        self._state = load_state(store, run_id)
        self._journal = Journal(store, run_id, self._state.last_chain, last_seq=self._state.last_seq)

    @classmethod
    def open(cls, run_id: str, *, store: Store | None = None, **kwargs: Any) -> "Ledger":
        """Re-open a run's ledger from the store (an id prefix works); LedgerError if the store has no such run."""
        if not isinstance(run_id, str) or not run_id.strip():  # "" would be a prefix of every run
            raise LedgerError(f"a ledger needs a run id, got {run_id!r}")
        if store is None:
            from citetrace import _telemetry

            store = _telemetry.current().run_store()
        record = store.get_run(run_id)
        if record is None:
            if not store.ledger_entries(run_id):
                raise LedgerError(f"no run {run_id!r} in store {store.uri}")
            return cls(run_id, store=store, **kwargs)
        return cls(record.run_id, store=store, trace_id=record.trace_id or None, **kwargs)

    # -- reading ------------------------------------------------------------------------------------
    def question(self, qid: str) -> Question:
        return question_from_row(self._row(self._state.questions, qid, "sub-question"))

    def questions(self) -> list[Question]:
        return [question_from_row(r) for r in self._state.questions.values()]

    def open_questions(self) -> list[Question]:
        """Sub-questions still ``open`` (a query over statuses, not a re-reading)."""
        return [q for q in self.questions() if q.status == names.Q_OPEN]

    def evidence(self, eid: str) -> Evidence:
        found = self._state.evidence.get(eid)
        if found is None:
            raise LedgerError(f"unknown evidence id {eid!r} in run {self.run_id}")
        return found

    def evidence_records(self) -> list[Evidence]:
        return list(self._state.evidence.values())

    def rejected(self) -> list[dict[str, Any]]:
        """Evidence refused by the entry check, each with the URL, the reason and when."""
        return list(self._state.rejected)

    def claim(self, cid: str) -> Claim:
        return claim_from_row(self._row(self._state.claims, cid, "claim"))

    def claims(self) -> list[Claim]:
        return [claim_from_row(r) for r in self._state.claims.values()]

    def decisions(self) -> list[dict[str, Any]]:
        """Every entailment decision with its inputs (claim text, span, judge), in order."""
        return list(self._state.decisions)

    def iterations(self) -> list[dict[str, Any]]:
        """The revision controller's vital signs, one dict per iteration, across controllers and restarts."""
        return list(self._state.iterations)

    def stop_reason(self) -> str | None:
        """Why the last revision controller stopped, or None."""
        return self._state.stops[-1]["reason"] if self._state.stops else None

    def unresolved(self) -> list[Claim]:
        """Claims the report cannot assert or deny yet: insufficient, unverifiable, contested, unsettled contradicted."""
        return [c for c in self.claims() if is_unresolved(c)]

    # -- question graph -----------------------------------------------------------------------------
    @_serialised
    def add_question(self, text: str, depends_on: Iterable[str] = ()) -> str:
        """Add a sub-question (``open``); ``depends_on`` names earlier sub-questions."""
        text = _text(text, "question")
        deps = _ids(depends_on, "add_question(depends_on=...)")
        with self._lock:
            for dep in deps:
                self._row(self._state.questions, dep, "sub-question")
            qid = f"q{len(self._state.questions) + 1}"
            row = {"id": qid, "text": text, "depends_on": list(deps), "status": names.Q_OPEN, "reason": None,
                   "queries": [], "history": [], "created_at": self.clock()}
            self._commit([(J_QUESTION, {"question": qid, "text": text, "depends_on": list(deps)})],
                         [(T_QUESTIONS, qid, row)])
        return qid

    @_serialised
    def set_question_status(self, qid: str, status: str, reason: str | None = None) -> None:
        """Move a sub-question; ``abandoned`` needs a reason. Nothing is ever removed from the graph."""
        if status not in names.QUESTION_STATUSES:
            raise LedgerError(f"unknown question status {status!r}; expected one of {names.QUESTION_STATUSES}")
        if status == names.Q_ABANDONED and not (reason and reason.strip()):
            raise LedgerError(f"sub-question {qid}: abandoned needs a reason")
        with self._lock:
            row = dict(self._row(self._state.questions, qid, "sub-question"))
            at = self.clock()
            row["history"] = [*row["history"], {"from": row["status"], "to": status, "reason": reason, "at": at}]
            row["status"], row["reason"] = status, reason
            self._commit([(J_QUESTION_STATUS, {"question": qid, "to": status, "reason": reason, "at": at})],
                         [(T_QUESTIONS, qid, row)])

    @_serialised
    def record_query(self, qid: str, query: str) -> None:
        """Append a query to a sub-question's history (kept whatever the question's fate)."""
        query = _text(query, "query")
        with self._lock:
            row = dict(self._row(self._state.questions, qid, "sub-question"))
            row["queries"] = [*row["queries"], query]
            self._commit([(J_QUERY, {"question": qid, "query": query, "at": self.clock()})],
                         [(T_QUESTIONS, qid, row)])

    # -- evidence ledger ----------------------------------------------------------------------------
    @_serialised
    def add_evidence(self, url: str, span: str, *, query: str, source_class: str, question: str | None = None,
                     published_at: float | None = None) -> str:
        """Enter a span checked against this run's stored fetch of ``url``; EvidenceError (logged) if refused.

        The same span from the same fetch returns the existing id instead of a second record.
        """
        if not isinstance(url, str) or not url.strip():
            raise LedgerError("add_evidence needs a URL")
        if not isinstance(span, str):
            raise LedgerError(f"the span for {url} must be a str, got {type(span).__name__}")
        if not isinstance(query, str):
            raise LedgerError(f"the query for {redact_url(url)} must be a str, got {type(query).__name__}")
        query = redact_text(query)
        if published_at is not None and (isinstance(published_at, bool) or not isinstance(published_at, (int, float))
                                         or not math.isfinite(published_at)):
            raise LedgerError(f"published_at must be epoch seconds (a finite number) or None, got {published_at!r}")
        if not isinstance(source_class, str) or not _CLASS.match(source_class):
            raise LedgerError(f"source_class must be a short lower-case tag such as {names.SOURCE_CLASSES[0]!r},"
                              f" got {source_class!r}")
        if question is not None:
            self._row(self._state.questions, question, "sub-question")
        with self._lock:
            try:
                fetch = _entry.find_fetch(self.store, self.run_id, url, span, self._cache)
            except EvidenceError as exc:
                self._commit([(J_REJECTED, {"url": redact_url(url), "span": span[:500], "query": query,
                                            "source_class": source_class, "reason": exc.reason,
                                            "at": self.clock()})], [])
                raise
            doc = fetch.document
            index = self._state.index
            for entry in index.by_hash.get(doc.sha256, ()):
                ev = self._state.evidence[entry.id]
                if ev.url == doc.url and ev.span == span:
                    return ev.id
            eid = f"e{len(self._state.evidence) + 1}"
            record = {
                "evidence": eid, "url": doc.url, "span": span, "retrieved_at": doc.fetched_at, "query": query,
                "source_class": source_class, "store_ref": doc.ref, "content_hash": doc.sha256,
                "question": question, "published_at": published_at, "fetch_call": self._fetch_call(doc.url),
                "trace_id": self.trace_id,
                "syndicated_of": _entry.syndicated_origin(index, url, span, doc.sha256),
            }
            entries: list[tuple[str, dict[str, Any]]] = [(J_EVIDENCE, record)]
            for old in _entry.superseded(index, self._state.evidence, url, fetch):
                entries.append((J_STALE, {"evidence": old.id, "reason": "page_changed", "superseded_by": eid,
                                          "at": self.clock()}))
            self._commit(entries, [])
        return eid

    @_serialised
    def mark_stale(self, eid: str, reason: str = "marked") -> None:
        """Mark a record stale (a later journal entry; the record itself is never edited)."""
        with self._lock:
            if self.evidence(eid).stale:
                return
            self._commit([(J_STALE, {"evidence": eid, "reason": reason, "superseded_by": None,
                                     "at": self.clock()})], [])

    # -- claim table --------------------------------------------------------------------------------
    @_serialised
    def add_claim(self, text: str, *, question: str | None = None, claim_type: str = "general",
                  impact: str = "normal") -> str:
        """Add an atomic claim at ``insufficient`` (pass 1). ``impact="high"``: the conclusion depends on it."""
        text = _text(text, "claim")
        if impact not in _IMPACTS:
            raise LedgerError(f"impact must be one of {_IMPACTS}, got {impact!r}")
        with self._lock:
            if question is not None:
                self._row(self._state.questions, question, "sub-question")
            cid = f"c{len(self._state.claims) + 1}"
            row: dict[str, Any] = {
                   "id": cid, "text": text, "question": question, "status": names.CLAIM_INSUFFICIENT, "pass": 1,
                   "pass_reason": "initial", "supports": [], "contradicts": [], "history": [], "flips": 0,
                   "last_decisive": None, "claim_type": claim_type, "impact": impact, "routed": None,
                   "created_at": self.clock()}
            self._commit([(J_CLAIM, {"claim": cid, "text": text, "question": question, "claim_type": claim_type,
                                     "impact": impact})], [(T_CLAIMS, cid, row)])
        return cid

    def add_claims(self, text: str, *, question: str | None = None, **kwargs: Any) -> list[str]:
        """Split ``text`` into atomic claims with the shared splitter and add each one."""
        from citetrace.ledger._split import split_claims

        return [self.add_claim(part, question=question, **kwargs) for part in split_claims(text)]

    @_serialised
    def link(self, cid: str, supports: Sequence[str] = (), contradicts: Sequence[str] = ()) -> None:
        """Attach evidence to a claim. Contradicting evidence is kept like any other; links never change status."""
        supports, contradicts = _ids(supports, "link(supports=...)"), _ids(contradicts, "link(contradicts=...)")
        with self._lock:
            row = dict(self._row(self._state.claims, cid, "claim"))
            self._check_links(cid, row, supports, contradicts)
            row["supports"] = _merged(row["supports"], supports)
            row["contradicts"] = _merged(row["contradicts"], contradicts)
            self._commit([(J_LINK, {"claim": cid, "supports": list(supports), "contradicts": list(contradicts),
                                    "at": self.clock()})], [(T_CLAIMS, cid, row)])

    @_serialised
    def verify(self, cid: str, verdict: str, *, evidence: Sequence[str] = (), reason: str = "") -> str:
        """Decide the current pass: ``verified``/``contradicted`` (resting on ``evidence``) or ``unverifiable``.

        Returns the new status (``contested`` when this verdict completes the flips). IllegalTransition on a
        forbidden move; LedgerError when a decisive verdict has no live evidence of its side.
        """
        evidence = _ids(evidence, "verify(evidence=...)")
        with self._lock:
            row = dict(self._row(self._state.claims, cid, "claim"))
            state = apply_verdict(cid, _state_of(row), verdict, contested_after=self.contested_after)
            side = {names.CLAIM_VERIFIED: "supports", names.CLAIM_CONTRADICTED: "contradicts"}.get(verdict)
            if side is None and evidence:
                raise LedgerError(f"claim {cid}: {verdict} rests on no evidence; pass none")
            if side is not None:
                self._check_links(cid, row, evidence if side == "supports" else (),
                                  evidence if side == "contradicts" else ())
                row[side] = _merged(row[side], evidence)
                if not any(not self.evidence(e).stale for e in row[side]):
                    raise LedgerError(f"claim {cid}: {verdict} needs live (non-stale) evidence that {side} it")
            self._transition(cid, row, state, list(evidence), reason or verdict, verdict)
            return state.status

    @_serialised
    def reverify(self, cid: str, reason: str = "reverify") -> int:
        """Open a new pass at ``insufficient`` (history kept); returns the pass number."""
        with self._lock:
            row = dict(self._row(self._state.claims, cid, "claim"))
            state = open_pass(cid, _state_of(row), reason)
            self._transition(cid, row, state, [], reason)
            return state.pass_no

    @_serialised
    def route(self, cid: str, route: str) -> None:
        """Record where a low-confidence, high-impact claim was sent (``second_check`` or ``human_review``)."""
        if route not in names.ROUTES:
            raise LedgerError(f"unknown route {route!r}; expected one of {names.ROUTES}")
        with self._lock:
            row = dict(self._row(self._state.claims, cid, "claim"))
            row["routed"] = route
            self._commit([(J_LINK, {"claim": cid, "supports": [], "contradicts": [], "routed": route,
                                    "at": self.clock()})], [(T_CLAIMS, cid, row)])

    # -- rendering and audit (thin: the modules do the work) ------------------------------------------
    def render(self) -> str:
        """The report in markdown, from claim rows only."""
        from citetrace.ledger._render import render

        return render(self)

    def audit(self) -> Any:
        """Re-derive every claim from the store (see ``citetrace.ledger.audit``)."""
        from citetrace.ledger._audit import audit

        return audit(self.store, self.run_id)

    def as_dict(self) -> dict[str, Any]:
        """Everything ``citetrace ledger show --json`` prints."""
        from citetrace.ledger._render import ledger_dict

        return ledger_dict(self)

    # -- internals ----------------------------------------------------------------------------------
    def _commit(self, entries: list[tuple[str, dict[str, Any]]], rows: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Write entries and rows, then fold them into the state. Outside a ``_serialised`` call (the
        controller's vital signs and stops, the decision log) the write is pure appends that depend on no
        id or row, so a conflict just re-reads and writes them after the other writer's entries."""
        with self._lock:
            if self._depth or rows:
                return self._commit_once(entries, rows)
            return self._until_applied(lambda: self._commit_once(entries, rows), f"{len(entries)} journal entries")

    def _until_applied(self, attempt: Callable[[], _T], what: str) -> _T:
        """Run ``attempt`` until the store takes its write, re-reading the run after each lost race."""
        for _ in range(_CONFLICT_TRIES):
            try:
                return attempt()
            except StoreConflict:
                self._reload()
        raise LedgerError(f"run {self.run_id}: other writers kept writing this ledger first; {what} "
                          f"not applied after {_CONFLICT_TRIES} tries")

    def _commit_once(self, entries: list[tuple[str, dict[str, Any]]],
                     rows: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
        stored = self._journal.write(entries, rows)
        for (kind, _), item in zip(entries, stored):
            self._state.apply(kind, item)
        for table, key, data in rows:
            (self._state.questions if table == T_QUESTIONS else self._state.claims)[key] = data
        return stored

    def _reload(self) -> None:
        """Re-read the run's ledger after another writer extended it (the text cache stays valid)."""
        self._state = load_state(self.store, self.run_id)
        self._journal.last_chain = self._state.last_chain
        self._journal.last_seq = self._state.last_seq

    def _transition(self, cid: str, row: dict[str, Any], state: ClaimState, evidence: list[str], reason: str,
                    verdict: str | None = None) -> None:
        at = self.clock()
        step = {"pass": state.pass_no, "from": row["status"], "to": state.status, "verdict": verdict,
                "evidence": evidence, "reason": reason, "at": at}
        row.update(status=state.status, pass_reason=state.pass_reason, flips=state.flips,
                   last_decisive=state.last_decisive, history=[*row["history"], step])
        row["pass"] = state.pass_no
        self._commit([(J_VERIFICATION, {"claim": cid, **step})], [(T_CLAIMS, cid, row)])

    def _check_links(self, cid: str, row: dict[str, Any], supports: Sequence[str], contradicts: Sequence[str]) -> None:
        for eid in (*supports, *contradicts):
            self.evidence(eid)
        both = (set(row["supports"]) | set(supports)) & (set(row["contradicts"]) | set(contradicts))
        if both:
            raise LedgerError(f"claim {cid}: evidence {', '.join(sorted(both))} cannot both support and contradict it")

    def _row(self, table: dict[str, dict[str, Any]], key: str, what: str) -> dict[str, Any]:
        found = table.get(key)
        if found is None:
            raise LedgerError(f"unknown {what} id {key!r} in run {self.run_id}")
        return found

    def _fetch_call(self, url: str) -> int | None:
        from citetrace.capture import current_run

        run = current_run()
        try:
            calls = run.calls if run is not None and run.id == self.run_id else self.store.calls(self.run_id)
        except Exception:  # noqa: BLE001 - the link is a convenience; the store ref is the proof
            return None
        for call in reversed(calls):
            if call.kind == names.TOOL_KIND_FETCH and call.url is not None and _entry.same_url(call.url, url):
                return call.seq
        return None

    def __repr__(self) -> str:
        return f"Ledger(run_id={self.run_id!r}, claims={len(self._state.claims)}, evidence={len(self._state.evidence)})"


def is_unresolved(claim: Claim) -> bool:
    """Neither asserted nor settled: the rule ``unresolved()`` and the vital signs use."""
    if claim.status == names.CLAIM_VERIFIED:
        return False
    if claim.status == names.CLAIM_CONTRADICTED:
        return claim.pass_reason != ADJUDICATE
    return True


def _state_of(row: dict[str, Any]) -> ClaimState:
    return ClaimState(row["status"], int(row["pass"]), row["pass_reason"], row["last_decisive"], int(row["flips"]))


def _ids(value: Iterable[str], what: str) -> tuple[str, ...]:
    """Ids passed where a list of them goes. A lone string is refused naming it: iterated, ``"e1"`` became the
    ids ``"e"`` and ``"1"``, refused as an unknown id the caller never wrote."""
    if isinstance(value, str):
        raise LedgerError(f"{what} expects a list of ids, got the string {value!r} (write [{value!r}])")
    return tuple(value)


def _merged(current: Sequence[str], extra: Sequence[str]) -> list[str]:
    out = list(current)
    out.extend(e for e in dict.fromkeys(extra) if e not in out)
    return out


def _text(value: object, what: str) -> str:
    """Whitespace-folded text the agent wrote (a question, a query, a claim), redacted like the answer it
    becomes (a claim) or a search span's query text: every ledger sink (journal, rows, render, show) gets it so."""
    if not isinstance(value, str) or not value.strip():
        raise LedgerError(f"a {what} needs non-empty text, got {value!r}")
    text = " ".join(value.split())
    return redact_text(text) if what == "query" else redact_report(text)
