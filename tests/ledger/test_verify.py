"""Entailment (logged with inputs), corroboration by independent classes, freshness windows, weak flags, routing."""

from __future__ import annotations

from citetrace import names
from citetrace.ledger import ADJUDICATE, JudgeEntailment, Ledger, Policy, assess
from citetrace.store import Store

from .conftest import ANALYSIS, NEWS, RUN, VENDOR, VENDOR_V2, Scripted

SUPPORT = "SSO is available on the Business and Enterprise tiers."
CONTRA = "SSO remains limited to the Enterprise tier."
JUDGE = Scripted({"available": names.ENTAIL_SUPPORTED, "included": names.ENTAIL_SUPPORTED,
                  "limited": names.ENTAIL_CONTRADICTED, "Acme said": names.ENTAIL_SUPPORTED})


def _claim(ledger: Ledger, **kw: str) -> str:
    return ledger.add_claim("Acme supports SSO on the Business and Enterprise tiers.", **kw)


def test_single_source_is_insufficient_and_every_decision_is_logged(ledger: Ledger) -> None:
    """One vendor page supports it: insufficient (one class); the decision is logged with claim and span."""
    e = ledger.add_evidence(VENDOR, SUPPORT, query="q", source_class="vendor_docs")
    c = _claim(ledger)
    ledger.link(c, supports=[e])
    a = assess(ledger, c, JUDGE)
    assert (a.verdict, a.corroboration.classes, a.reason) == (
        "insufficient", ("vendor_docs",), "1 independent source class(es); 2 needed")
    (d,) = ledger.decisions()
    assert (d["claim"], d["evidence"], d["span"], d["judge"], d["label"]) == (c, e, SUPPORT, "scripted", "supported")
    assert d["claim_text"] == ledger.claim(c).text


def test_two_classes_verify_but_a_syndicated_copy_does_not(ledger: Ledger) -> None:
    """Vendor plus news corroborate; the same span under the news URL is one source."""
    e1 = ledger.add_evidence(VENDOR, SUPPORT, query="q", source_class="vendor_docs")
    copy = ledger.add_evidence(NEWS, "SSO is available on the Business and Enterprise tiers.", query="q",
                               source_class="news")
    c = _claim(ledger)
    ledger.link(c, supports=[e1, copy])
    a = assess(ledger, c, JUDGE)
    assert (a.verdict, a.corroboration.syndicated_ignored, a.corroboration.independent) == ("insufficient", (copy,), 1)
    other = ledger.add_evidence(NEWS, "Acme said SSO is available", query="q", source_class="news")
    ledger.link(c, supports=[other])
    a = assess(ledger, c, JUDGE)
    assert (a.verdict, a.evidence) == ("verified", (e1, copy, other))


def test_contradiction_then_adjudication_by_the_newer_source(ledger: Ledger, fetched: Store) -> None:
    """A live contradiction wins outside adjudication; in an adjudicating pass the newer source decides."""
    e1 = ledger.add_evidence(VENDOR, SUPPORT, query="q", source_class="vendor_docs", published_at=100.0)
    con = ledger.add_evidence(ANALYSIS, CONTRA, query="q", source_class="analysis", published_at=200.0)
    c = _claim(ledger)
    ledger.link(c, supports=[e1], contradicts=[con])
    a = assess(ledger, c, JUDGE)
    assert (a.verdict, a.evidence) == ("contradicted", (con,))
    ledger.verify(c, a.verdict, evidence=a.evidence)
    ledger.reverify(c, ADJUDICATE)
    fetched.put_document(RUN, VENDOR, VENDOR_V2, status="ok", fetched_at=1500.0)
    e2 = ledger.add_evidence(VENDOR, "SSO is included on the Business and Enterprise tiers.", query="q2",
                             source_class="vendor_docs", published_at=300.0)
    ledger.link(c, supports=[e2])
    a = assess(ledger, c, JUDGE)
    assert (a.verdict, a.evidence, a.reason) == ("verified", (e2,), "adjudicated: the newest source supports it")
    assert ledger.evidence(e1).stale


def test_freshness_window_per_claim_type(ledger: Ledger) -> None:
    """A record older than its claim type's window is not used; other types have no window."""
    day = 86400.0
    e1 = ledger.add_evidence(VENDOR, SUPPORT, query="q", source_class="vendor_docs", published_at=0.0)
    e2 = ledger.add_evidence(NEWS, "Acme said SSO is available", query="q", source_class="news",
                             published_at=90 * day)
    policy = Policy(freshness_days={"pricing": 30})
    for kind, verdict, old in (("pricing", "insufficient", (e1,)), ("general", "verified", ())):
        c = _claim(ledger, claim_type=kind)
        ledger.link(c, supports=[e1, e2])
        a = assess(ledger, c, JUDGE, policy=policy, now=100 * day)
        assert (a.verdict, a.out_of_window) == (verdict, old)


def test_weak_categories_are_flagged_and_high_impact_is_routed(ledger: Ledger) -> None:
    """A numeric claim with a low-confidence decision goes to human review, or to a second check when given."""
    e1 = ledger.add_evidence(VENDOR, "Seats cost $12 per month.", query="q", source_class="vendor_docs")
    e2 = ledger.add_evidence(NEWS, "Acme said SSO is available", query="q", source_class="news")
    low = Scripted({"$12": names.ENTAIL_SUPPORTED, "Acme said": names.ENTAIL_SUPPORTED}, confidence="low")
    c = ledger.add_claim("Acme seats cost $12 per month in 2027.")
    ledger.link(c, supports=[e1, e2])
    a = assess(ledger, c, low, policy=Policy(model_cutoff=1735689600.0))  # 2025-01-01
    assert a.flags == (names.WEAK_NUMERIC, names.WEAK_POST_CUTOFF)
    assert (a.route, ledger.claim(c).routed, a.verdict) == ("human_review", "human_review", "verified")
    disagree = Scripted({"$12": names.ENTAIL_CONTRADICTED, "Acme said": names.ENTAIL_SUPPORTED})
    a = assess(ledger, c, low, second=disagree)
    assert (a.route, a.verdict, a.reason) == ("human_review", "insufficient", "the second check disagrees")
    unsure = Scripted({"Acme said": names.ENTAIL_SUPPORTED})
    a = assess(ledger, c, low, second=unsure)
    assert (a.route, a.verdict) == ("human_review", "verified")
    agree = Scripted({"$12": names.ENTAIL_SUPPORTED, "Acme said": names.ENTAIL_SUPPORTED})
    assert assess(ledger, c, low, second=agree).route == "second_check"


def test_eval_deterministic_judge_behind_the_contract(ledger: Ledger) -> None:
    """eval's number checker, through JudgeEntailment, says a $14 claim is contradicted by a $12 span."""
    e1 = ledger.add_evidence(VENDOR, "Seats cost $12 per month.", query="q", source_class="vendor_docs")
    c = ledger.add_claim("Acme seats cost $14 per month.")
    ledger.link(c, supports=[e1])
    check = JudgeEntailment()
    decision = check.check(ledger.claim(c).text, ledger.evidence(e1).span)
    assert (decision.label, decision.judge) == ("contradicted", "deterministic")
    a = assess(ledger, c, check)
    assert a.verdict == "insufficient" and ledger.decisions()[-1]["label"] == "contradicted"
