"""The audit re-derives every claim from the store and names each break of a tampered store."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from citetrace.cli import main
from citetrace.ledger import Ledger, audit
from citetrace.store import RunRecord, SQLiteStore

from .conftest import ANALYSIS, ANALYSIS_TEXT, RUN, VENDOR, VENDOR_V1


def _build(path: Path) -> SQLiteStore:
    store = SQLiteStore(path)
    store.put_run(RunRecord(RUN, "0" * 32, "tester", "Which Acme tiers include SSO?", 1000.0))
    store.put_document(RUN, VENDOR, VENDOR_V1, status="ok", fetched_at=1001.0)
    store.put_document(RUN, ANALYSIS, ANALYSIS_TEXT, status="ok", fetched_at=1002.0)
    led = Ledger(RUN, store=store)
    q = led.add_question("Which tiers include SSO?")
    led.record_query(q, "acme sso tiers")
    sup = led.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.", query="acme sso",
                           source_class="vendor_docs")
    con = led.add_evidence(ANALYSIS, "SSO remains limited to the Enterprise tier.", query="acme review",
                           source_class="analysis")
    c1 = led.add_claim("Acme supports SSO on the Business and Enterprise tiers.", question=q)
    led.verify(c1, "verified", evidence=[sup])
    c2 = led.add_claim("SSO is limited to Enterprise.", question=q)
    led.link(c2, contradicts=[sup])
    led.verify(c2, "unverifiable")
    led.link(c1, contradicts=[con])
    return store


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    _build(path).close()
    return path


def _sql(path: Path, statement: str, *args: object) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(statement, args)
    conn.close()


def test_untouched_store_audits_clean(db: Path) -> None:
    """A ledger written through the API re-derives with no break, through the CLI too (exit 0)."""
    result = audit(SQLiteStore(db), RUN)
    assert result.ok, result.breaks
    assert (result.evidence, result.claims) == (2, 2)
    assert main(["ledger", "audit", RUN, "--store", str(db)]) == 0


def test_edited_page_text_breaks_the_span(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rewriting the stored page so the span is gone: exit 1 naming the evidence and URL."""
    _sql(db, "UPDATE content SET text = ? WHERE text LIKE 'Acme Docs%'", "Acme Docs. SSO is Enterprise only.")
    assert main(["ledger", "audit", RUN, "--store", str(db)]) == 1
    err = capsys.readouterr().err
    assert f"evidence e1 ({VENDOR}): the span is no longer verbatim" in err
    assert "claim c1: verified, but none of its supporting evidence checks out" in err


def test_claim_row_set_to_verified_by_hand_is_caught(db: Path) -> None:
    """A claim row whose status was edited no longer follows from its verification log."""
    conn = sqlite3.connect(db)
    (data,) = conn.execute("SELECT data FROM ledger_rows WHERE key = 'c2'").fetchone()
    row = json.loads(data)
    row["status"] = "verified"
    with conn:
        conn.execute("UPDATE ledger_rows SET data = ? WHERE key = 'c2'", (json.dumps(row),))
    conn.close()
    breaks = audit(SQLiteStore(db), RUN).breaks
    assert "claim c2: row says verified (pass 1) but its verification log gives unverifiable (pass 1)" in breaks


def test_edited_journal_entry_breaks_the_chain(db: Path) -> None:
    """Changing an evidence record inside the journal is detected by the hash chain."""
    conn = sqlite3.connect(db)
    (seq, data) = conn.execute("SELECT seq, data FROM ledger_journal WHERE kind = 'evidence' ORDER BY seq").fetchone()
    entry = json.loads(data)
    entry["source_class"] = "filing"
    with conn:
        conn.execute("UPDATE ledger_journal SET data = ? WHERE seq = ?", (json.dumps(entry), seq))
    conn.close()
    assert audit(SQLiteStore(db), RUN).breaks == [f"journal: entry {seq} (evidence) was altered after it was written"]


def test_deleted_entry_and_dropped_question_are_named(db: Path) -> None:
    """A removed journal entry and a sub-question removed from the rows are both named."""
    _sql(db, "DELETE FROM ledger_journal WHERE seq = 3")
    _sql(db, "DELETE FROM ledger_rows WHERE tab = 'questions'")
    breaks = audit(SQLiteStore(db), RUN).breaks
    assert "journal: entry 3 is missing (next is 4)" in breaks
    assert "sub-question q1: dropped from the question graph" in breaks


def test_removed_fetch_record_is_named(db: Path) -> None:
    """Evidence whose fetch no longer exists at its retrieved_at is a break."""
    _sql(db, "UPDATE documents SET fetched_at = 5.0 WHERE url = ?", ANALYSIS)
    breaks = audit(SQLiteStore(db), RUN).breaks
    assert breaks == [f"evidence e2 ({ANALYSIS}): no fetch of this URL at retrieved_at=1002.0"]


def _edit_row(db: Path, key: str, **changes: object) -> None:
    conn = sqlite3.connect(db)
    (data,) = conn.execute("SELECT data FROM ledger_rows WHERE key = ?", (key,)).fetchone()
    with conn:
        conn.execute("UPDATE ledger_rows SET data = ? WHERE key = ?", (json.dumps({**json.loads(data), **changes}), key))
    conn.close()


def test_a_claim_row_whose_text_was_rewritten_is_caught(db: Path) -> None:
    """The report is rendered from claim rows: rewriting a verified claim's text in its row made the report
    assert "Acme supports SSO on every tier" on evidence that says Business and Enterprise, and the audit said
    ok (it compared status, pass, history length and links, not what the claim says). Each row's text,
    sub-question, type and impact must equal its journal entry."""
    _edit_row(db, "c1", text="Acme supports SSO on every tier.", impact="high")
    breaks = audit(SQLiteStore(db), RUN).breaks
    assert breaks == ["claim c1: row's text 'Acme supports SSO on every tier.' differs from the journal's "
                      "'Acme supports SSO on the Business and Enterprise tiers.'",
                      "claim c1: row's impact 'high' differs from the journal's 'normal'"]


def test_a_sub_question_row_whose_text_was_rewritten_is_caught(db: Path) -> None:
    """The same for the question graph: a sub-question's text and dependencies come from its journal entry."""
    _edit_row(db, "q1", text="Which tiers are free?")
    assert audit(SQLiteStore(db), RUN).breaks == [
        "sub-question q1: row's text 'Which tiers are free?' differs from the journal's 'Which tiers include SSO?'"]


def test_a_claim_row_marked_adjudicated_or_flipped_by_hand_is_caught(tmp_path: Path) -> None:
    """How a pass was opened and the flip count come from the log too: a contradicted claim whose row was marked
    adjudicated renders as settled ("Contradicted by the evidence") instead of unresolved, and audited ok."""
    store = _build(tmp_path / "s.db")
    led = Ledger(RUN, store=store)
    c3 = led.add_claim("Acme has no SSO at all.")
    led.verify(c3, "contradicted", evidence=[led.evidence_records()[0].id])
    store.close()
    _edit_row(tmp_path / "s.db", c3, pass_reason="adjudicate", flips=2)
    assert audit(SQLiteStore(tmp_path / "s.db"), RUN).breaks == [
        f"claim {c3}: row's pass_reason 'adjudicate' differs from its verification log's 'initial'",
        f"claim {c3}: row's flips 2 differs from its verification log's 0"]


def test_a_route_changed_by_hand_is_caught(db: Path) -> None:
    """Where a claim was routed (shown in the report) comes from the journal's route entry."""
    _edit_row(db, "c1", routed="human_review")
    assert audit(SQLiteStore(db), RUN).breaks == ["claim c1: row's routed 'human_review' differs from the journal's None"]
