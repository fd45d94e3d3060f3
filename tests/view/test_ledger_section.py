"""A run with a ledger shows its question graph, evidence, claims with history and the vital-signs chart."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from citetrace.ledger import Budgets, Ledger, RevisionController
from citetrace.store import RunRecord, ToolCallRecord, open_store
from citetrace.view import page_for_run

pytestmark = pytest.mark.slow
URL = "https://acme.example/pricing"


@pytest.fixture()
def ledger_page(tmp_path: Path) -> tuple[Path, Ledger]:
    """A real SQLite store with one fetched page and a ledger built on it through the public API."""
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    now = time.time()
    store.put_run(RunRecord("ledger-run", "cd" * 16, "agent", "Which tiers include SSO?", now - 5, now, "-"))
    store.put_document("ledger-run", URL, "SSO is available on the Business and Enterprise tiers.", status="ok",
                       http_status=200, fetched_at=now - 4)
    store.put_calls([ToolCallRecord("ledger-run", 0, "read", "fetch", "ok", now - 4, 20, url=URL, http_status=200)])
    ledger = Ledger("ledger-run", store=store)
    q1 = ledger.add_question("Which Acme tiers include SSO?")
    ledger.add_question("What does a seat cost?", depends_on=[q1])
    ledger.record_query(q1, "acme sso tiers")
    e = ledger.add_evidence(URL, "SSO is available on the Business and Enterprise tiers.", query="acme sso tiers",
                            source_class="vendor_docs")
    c = ledger.add_claim("Acme supports SSO on the Business and Enterprise tiers.", question=q1)
    ledger.link(c, supports=[e])
    ledger.verify(c, "verified", evidence=[e])
    for _ in RevisionController(ledger, budgets=Budgets(tool_calls=5, iterations=3)):
        pass
    path = tmp_path / "ledger.html"
    path.write_text(page_for_run(store, "ledger-run"), encoding="utf-8")
    return path, ledger


def test_ledger_section_matches_the_ledger(ledger_page: tuple[Path, Ledger], open_page: Any) -> None:
    """Question statuses, evidence ids, claim statuses and history, one chart point per iteration, stop reason."""
    path, ledger = ledger_page
    loaded = open_page(path.as_uri())
    page = loaded.page
    statuses = page.locator("#ledger-questions tr[data-status]").evaluate_all("els => els.map(e => e.dataset.status)")
    assert statuses == [q.status for q in ledger.questions()]
    assert page.locator("#ledger-evidence tr[data-evidence]").count() == len(ledger.evidence_records())
    assert page.locator("#ledger-claims tr[data-status]").evaluate_all("els => els.map(e => e.dataset.status)") == \
        [c.status for c in ledger.claims()]
    assert "insufficient -> verified" in page.locator("#ledger-claims").inner_text()
    points = page.locator("#vital-signs polyline[data-series='unresolved']").get_attribute("points") or ""
    assert len(points.split()) == len(ledger.iterations())
    assert str(ledger.stop_reason()) in page.content()
    assert loaded.console == []


def test_a_claim_links_to_its_evidence(ledger_page: tuple[Path, Ledger], open_page: Any) -> None:
    """A claim's evidence id is a link to that evidence row (Enter follows it), and the row is a deep-link target."""
    path, ledger = ledger_page
    evidence = ledger.evidence_records()[0]
    page = open_page(path.as_uri()).page
    link = page.locator(f"#ledger-claims a[href='#evidence-{evidence.id}']")
    link.focus()
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == f"#evidence-{evidence.id}"
    assert page.locator(f"#evidence-{evidence.id}").get_attribute("data-evidence") == evidence.id
