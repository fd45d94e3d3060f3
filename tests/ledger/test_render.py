"""Rendering reads claim rows only: verified with evidence ids, contested with both sides, unresolved labelled."""

from __future__ import annotations

from citetrace.eval._report import parse_report
from citetrace.ledger import Ledger
from citetrace.store import Store

from .conftest import ANALYSIS, NEWS, RUN, VENDOR


def _evidence(ledger: Ledger) -> tuple[str, str, str]:
    sup = ledger.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.", query="q",
                              source_class="vendor_docs")
    news = ledger.add_evidence(NEWS, "Acme said SSO is available", query="q", source_class="news")
    con = ledger.add_evidence(ANALYSIS, "SSO remains limited to the Enterprise tier.", query="q",
                              source_class="analysis")
    return sup, news, con


def test_each_status_renders_with_its_label(ledger: Ledger) -> None:
    """Verified carries markers and ids; contested both sides; unverifiable and insufficient are labelled."""
    sup, news, con = _evidence(ledger)
    v = ledger.add_claim("Acme supports SSO on Business and Enterprise.")
    ledger.verify(v, "verified", evidence=[sup, news])
    k = ledger.add_claim("Acme's SSO works with every identity provider.")
    ledger.verify(k, "verified", evidence=[sup])
    ledger.reverify(k)
    ledger.verify(k, "contradicted", evidence=[con])
    ledger.reverify(k)
    ledger.verify(k, "verified")
    u = ledger.add_claim("Acme will drop SSO fees next year.")
    ledger.verify(u, "unverifiable")
    ledger.add_claim("Acme has 40 million users.")
    report = ledger.render()
    assert "- Acme supports SSO on Business and Enterprise [1][2] (evidence e1, e2)." in report
    assert "- **Contested:** Acme's SSO works with every identity provider." in report
    assert "  - Supporting: [1] (evidence e1)\n  - Contradicting: [3] (evidence e3)" in report
    assert "- **Unresolved (unverifiable):** Acme will drop SSO fees next year." in report
    assert "- **Unresolved (insufficient evidence):** Acme has 40 million users." in report
    assert f"[1] {VENDOR}\n[2] {NEWS}\n[3] {ANALYSIS}" in report


def test_text_without_a_row_never_renders_as_an_assertion(ledger: Ledger, fetched: Store) -> None:
    """Free-form notes (the run's recorded answer) are not in the report; with no rows nothing is asserted."""
    fetched.finish_run(RUN, ended_at=1010.0, answer="Acme is the market leader.", error_type=None)
    report = ledger.render()
    assert "market leader" not in report
    assert "No claim has a row in the ledger, so nothing is asserted." in report
    cid = ledger.add_claim("Acme is the market leader.")
    assert ledger.claim(cid).status == "insufficient"
    assert "- **Unresolved (insufficient evidence):** Acme is the market leader." in ledger.render()


def test_eval_maps_each_rendered_claim_to_its_evidence_pages(ledger: Ledger) -> None:
    """citetrace eval's parser reads a verified line as one claim citing its evidence URLs."""
    sup, news, _ = _evidence(ledger)
    v = ledger.add_claim("Acme supports SSO on Business and Enterprise.")
    ledger.verify(v, "verified", evidence=[sup, news])
    parsed = parse_report(ledger.render())
    cited = [s for s in parsed.sentences if s.citations]
    assert len(cited) == 1 and cited[0].text.startswith("Acme supports SSO")
    assert [c.url for c in cited[0].citations] == [VENDOR, NEWS]
