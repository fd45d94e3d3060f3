"""Verification as three separate checks (entailment, corroboration, freshness) and a policy combining them.

Entailment goes through a narrow contract, ``Entailment.check(claim, span) -> EntailmentDecision``, so any
eval judge fits (``JudgeEntailment`` adapts them) and every decision is logged in the ledger with its inputs.
Independence comes from source-class tags after folding syndicated copies into their origin: two pages
quoting one press release are one source. Freshness windows are per claim type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Protocol, Sequence

from citetrace import names
from citetrace.ledger._ledger import Ledger
from citetrace.ledger._model import ADJUDICATE, J_DECISION, Claim, Evidence, LedgerError

__all__ = [
    "Entailment", "EntailmentDecision", "JudgeEntailment", "Policy", "Assessment", "Corroboration", "assess",
    "corroboration", "freshness", "weak_flags",
]

_DAY = 86400.0
_NUMERIC = re.compile(r"\d|\b(percent|million|billion|thousand|dozen|half|twice)\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(19|20)\d\d\b")


@dataclass(frozen=True)
class EntailmentDecision:
    """Does this span support this claim: ``supported``, ``contradicted`` or ``insufficient``."""

    label: str
    judge: str
    confidence: str = "high"
    """``high`` or ``low`` (flags from the judge, a capped verdict, or a weak category lower it)."""
    explanation: str = ""
    flags: tuple[str, ...] = ()


class Entailment(Protocol):
    """The only thing the ledger asks of a judge."""

    name: str

    def check(self, claim: str, span: str) -> EntailmentDecision:
        ...


class JudgeEntailment:
    """Any ``citetrace.eval`` judge as an entailment check (with eval's deterministic number/date checker)."""

    def __init__(self, judge: object | None = None) -> None:
        from citetrace.eval import make_judge

        self.judge = judge if judge is not None else make_judge("deterministic")
        self.name = str(getattr(self.judge, "name", "judge"))

    def check(self, claim: str, span: str) -> EntailmentDecision:
        from citetrace.eval import judge_with_checker
        from citetrace.eval import CONTRADICTED, SUPPORTED, Passage

        verdict, _check = judge_with_checker(self.judge, claim, [Passage(span, 0, len(span))])  # type: ignore[arg-type]
        label = {SUPPORTED: names.ENTAIL_SUPPORTED, CONTRADICTED: names.ENTAIL_CONTRADICTED}.get(
            verdict.label, names.ENTAIL_INSUFFICIENT)
        low = bool(verdict.flags) or label == names.ENTAIL_INSUFFICIENT
        return EntailmentDecision(label, f"{verdict.judge}", "low" if low else "high",
                                  f"{verdict.label}: {verdict.explanation}", tuple(verdict.flags))


@dataclass(frozen=True)
class Policy:
    """What counts as verified: independent classes needed, freshness windows (days) per claim type, cutoff."""

    min_independent: int = 2
    freshness_days: Mapping[str, float] = field(default_factory=dict)
    """Claim type -> maximum age in days of a usable source (types not listed have no window)."""
    model_cutoff: float | None = None
    """Epoch seconds of the model's knowledge cutoff: claims dated after it are flagged ``post_cutoff``."""
    domain_types: tuple[str, ...] = ("medical", "legal", "financial", "scientific")
    """Claim types that need domain expertise (flagged ``domain_expertise``)."""


@dataclass(frozen=True)
class Corroboration:
    """Independent sources among the live supporting records judged ``supported``."""

    classes: tuple[str, ...]
    origins: tuple[str, ...]
    syndicated_ignored: tuple[str, ...]

    @property
    def independent(self) -> int:
        return len(self.classes)


@dataclass(frozen=True)
class Assessment:
    """The three checks for one claim, the suggested verdict and the evidence it rests on."""

    claim: str
    verdict: str
    """``verified``, ``contradicted`` or ``insufficient`` (do nothing yet)."""
    evidence: tuple[str, ...]
    decisions: Mapping[str, EntailmentDecision]
    corroboration: Corroboration
    out_of_window: tuple[str, ...]
    flags: tuple[str, ...]
    route: str
    reason: str


def weak_flags(claim: Claim, policy: Policy) -> tuple[str, ...]:
    """The known-weak categories this claim falls in (numbers, domain expertise, after the model's cutoff)."""
    flags = []
    if _NUMERIC.search(claim.text):
        flags.append(names.WEAK_NUMERIC)
    if claim.claim_type in policy.domain_types:
        flags.append(names.WEAK_DOMAIN)
    if policy.model_cutoff is not None:
        import time as _t

        cutoff_year = _t.gmtime(policy.model_cutoff).tm_year
        if any(int(m.group(0)) > cutoff_year for m in _YEAR.finditer(claim.text)):
            flags.append(names.WEAK_POST_CUTOFF)
    return tuple(flags)


def freshness(records: Sequence[Evidence], claim_type: str, policy: Policy, now: float) -> tuple[str, ...]:
    """Ids of records too old for this claim type (by publication time when known, else fetch time)."""
    window = policy.freshness_days.get(claim_type)
    if window is None:
        return ()
    return tuple(r.id for r in records if now - r.as_of > window * _DAY)


def corroboration(records: Sequence[Evidence], by_id: Mapping[str, Evidence]) -> Corroboration:
    """Distinct source classes over distinct origins; syndicated copies count as their origin."""
    origins: dict[str, str] = {}
    ignored = []
    for r in records:
        if r.syndicated_of is not None:
            ignored.append(r.id)
        origin = by_id.get(r.origin, r)
        origins.setdefault(origin.id, origin.source_class)
    return Corroboration(tuple(sorted(set(origins.values()))), tuple(origins), tuple(ignored))


def assess(ledger: Ledger, cid: str, entailment: Entailment, *, policy: Policy | None = None,
           second: Entailment | None = None, now: float | None = None) -> Assessment:
    """Run the three checks on a claim's linked evidence, log each entailment decision, suggest a verdict.

    Support and live contradiction both present: contradicted, unless the pass is an adjudication and the
    newest supporting source is newer than every contradicting one (then verified). Support alone needs
    ``min_independent`` source classes. High-impact claims (numbers, or ``impact="high"``) with a
    low-confidence decision go to ``second`` when given: if it says the opposite the claim stays
    undecided and goes to human review; if it cannot confirm, the verdict stands and goes to human review.
    """
    if not isinstance(ledger, Ledger):
        raise LedgerError(f"assess() needs a Ledger, got {type(ledger).__name__}")
    policy = policy or Policy()
    claim = ledger.claim(cid)
    now = ledger.clock() if now is None else now
    by_id = {e.id: e for e in ledger.evidence_records()}
    linked = [by_id[e] for e in (*claim.supports, *claim.contradicts)]
    old = set(freshness(linked, claim.claim_type, policy, now))
    decisions: dict[str, EntailmentDecision] = {}
    entries = []
    for ev in linked:
        d = entailment.check(claim.text, ev.span)
        decisions[ev.id] = d
        entries.append((J_DECISION, {"claim": cid, "claim_text": claim.text, "evidence": ev.id, "span": ev.span,
                                     "judge": d.judge, "label": d.label, "confidence": d.confidence,
                                     "explanation": d.explanation[:500], "flags": list(d.flags),
                                     "pass": claim.pass_no, "at": now}))
    ledger._commit(entries, [])  # noqa: SLF001 - the decision log belongs to the ledger's journal
    live = [e for e in linked if not e.stale and e.id not in old]
    sup = [e for e in live if e.id in claim.supports and decisions[e.id].label == names.ENTAIL_SUPPORTED]
    con = [e for e in live if e.id in claim.contradicts and decisions[e.id].label == names.ENTAIL_CONTRADICTED]
    corr = corroboration(sup, by_id)
    flags = weak_flags(claim, policy)
    if sup and con:
        newest_sup, newest_con = max(e.as_of for e in sup), max(e.as_of for e in con)
        if claim.pass_reason == ADJUDICATE and newest_sup > newest_con:
            verdict, rest, why = names.CLAIM_VERIFIED, sup, "adjudicated: the newest source supports it"
        else:
            verdict, rest, why = names.CLAIM_CONTRADICTED, con, "an independent live source contradicts it"
    elif con:
        verdict, rest, why = names.CLAIM_CONTRADICTED, con, "contradicted by live evidence"
    elif sup and corr.independent >= policy.min_independent:
        verdict, rest, why = names.CLAIM_VERIFIED, sup, f"corroborated by {corr.independent} source classes"
    else:
        verdict, rest, why = names.CLAIM_INSUFFICIENT, [], (
            f"{corr.independent} independent source class(es); {policy.min_independent} needed" if sup
            else "no live evidence entails it")
    low = any(decisions[e.id].confidence == "low" for e in rest) or bool(flags)
    high_impact = claim.impact == "high" or names.WEAK_NUMERIC in flags
    route = names.ROUTE_NONE
    if high_impact and low and verdict != names.CLAIM_INSUFFICIENT:
        route = names.ROUTE_SECOND_CHECK if second is not None else names.ROUTE_HUMAN_REVIEW
        if second is not None:
            labels = {second.check(claim.text, e.span).label for e in rest}
            decisive = {names.ENTAIL_SUPPORTED, names.ENTAIL_CONTRADICTED}
            mine = names.ENTAIL_SUPPORTED if verdict == names.CLAIM_VERIFIED else names.ENTAIL_CONTRADICTED
            if labels & (decisive - {mine}):  # the second check says the opposite: do not decide
                route, verdict, rest, why = names.ROUTE_HUMAN_REVIEW, names.CLAIM_INSUFFICIENT, [], (
                    "the second check disagrees")
            elif labels != {mine}:  # it could not confirm: the verdict stands, a human looks at it
                route = names.ROUTE_HUMAN_REVIEW
    if route != names.ROUTE_NONE and claim.routed != route:
        ledger.route(cid, route)
    return Assessment(cid, verdict, tuple(e.id for e in rest), decisions, corr, tuple(sorted(old)), flags, route, why)
