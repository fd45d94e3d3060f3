"""The demo's ledger mode: the SSO example exactly, and the contested, blocked and budget scenarios."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

import pytest

from citetrace.cli import main
from citetrace.demo._ledger_demo import EXPECTED, LedgerDemoResult, mismatches, run_ledger_demo, select_scenarios
from citetrace.store import SQLiteStore
from citetrace.testing import capture_spans


@pytest.fixture(scope="module")
def results() -> dict[str, LedgerDemoResult]:
    with capture_spans():
        return {r.scenario: r for r in run_ledger_demo()}


def test_sso_example(results: dict[str, LedgerDemoResult]) -> None:
    """insufficient (one vendor source) -> contradicted (analysis) -> verified (updated page); goal, delta -1."""
    r = results["sso"]
    assert r.transitions == ["insufficient->contradicted", "contradicted->insufficient", "insufficient->verified"]
    assert r.stop_reason == "goal_satisfied" and r.vital_signs[-1]["unresolved_delta"] == -1
    assert [s["trigger"] for s in r.vital_signs] == ["insufficient_evidence", "contradicted"]
    assert "- Acme Cloud supports SSO on the Business and Enterprise tiers [1] (evidence e3)." in r.report
    assert not mismatches(r)


def test_contested_renders_both_sides(results: dict[str, LedgerDemoResult]) -> None:
    """Two flips make the uptime claim contested; the controller stops repairing it; both sides are shown."""
    r = results["contested"]
    assert r.statuses == {"c1": "contested"} and r.stop_reason == "goal_satisfied"
    assert "**Contested:** Acme Cloud guarantees 99.9% monthly uptime." in r.report
    assert "Supporting: [1][2][3] (evidence e1 (stale), e2, e4)" in r.report
    assert "Contradicting: [1] (evidence e3)" in r.report
    assert not mismatches(r)


def test_blocked_question_keeps_its_queries(results: dict[str, LedgerDemoResult]) -> None:
    """The add-on question is blocked with both empty queries, and the run still reaches its goal."""
    r = results["blocked"]
    assert r.questions == {"q1": "answered", "q2": "blocked"}
    assert ('q2 (blocked: no usable result for 2 queries): Is an SSO add-on sold for the Starter tier? Queries'
            ' tried: "acme starter addon cost"; "starter addon single-signon".') in r.report
    assert not mismatches(r)


def test_budget_exhausted_renders_a_labelled_partial_report(results: dict[str, LedgerDemoResult]) -> None:
    """Out of tool calls: a partial report whose unresolved claim says why."""
    r = results["budget"]
    assert r.stop_reason == "budget_exhausted:tool_calls"
    assert "_Partial result: the revision stopped on budget_exhausted:tool_calls._" in r.report
    assert ("- **Unresolved (insufficient evidence; stopped: budget_exhausted:tool_calls):** Acme Cloud has more"
            " than 40,000 business customers.") in r.report
    assert sum(s["tool_calls"] for s in r.vital_signs) == 4 and not mismatches(r)


def test_every_scenario_has_an_expectation_and_bad_names_are_refused() -> None:
    """The expectations cover every scenario; an unknown name raises naming it."""
    assert set(EXPECTED) == set(select_scenarios("all"))
    with pytest.raises(ValueError, match="unknown ledger scenario.*nope"):
        select_scenarios("sso,nope")


@pytest.fixture
def own_environ() -> Iterator[None]:
    """The demo command sets OTEL_* variables for its process; in-process here, they are put back after."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_cli_ledger_mode_then_show_audit_report(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                own_environ: None) -> None:
    """`citetrace demo --ledger sso --check` keeps the run; show --json, audit and report read it back."""
    db = tmp_path / "s.db"
    assert main(["demo", "--ledger", "sso", "--check", "--store", str(db)]) == 0
    printed = capsys.readouterr().out
    assert "claim c1: insufficient -> contradicted | new pass -> verified" in printed
    assert "iteration 2: trigger contradicted -> adjudicating_search, unresolved 0 (delta -1)" in printed
    (run,) = SQLiteStore(db).runs()
    assert main(["ledger", "show", run.run_id, "--json", "--store", str(db)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["status"] for c in data["claims"]] == ["verified"] and data["stop_reason"] == "goal_satisfied"
    assert [i["trigger"] for i in data["iterations"]] == ["insufficient_evidence", "contradicted"]
    assert main(["ledger", "audit", run.run_id, "--store", str(db)]) == 0
    assert capsys.readouterr().out.startswith(f"audit of run {run.run_id}: ok;")
    assert main(["ledger", "report", run.run_id, "--store", str(db)]) == 0
    assert capsys.readouterr().out == run.answer  # the report recorded as the run's answer is the rendered one


def test_eval_of_the_rendered_report_maps_each_claim_to_its_evidence() -> None:
    """citetrace eval on the SSO run's rendered answer pairs the claim with its evidence page, found in the store."""
    from citetrace.eval import evaluate_run
    from citetrace.ledger import Ledger

    with capture_spans() as cap:
        (result,) = run_ledger_demo("sso")
    evaluation = evaluate_run(cap.store, result.run_id)
    ledger = Ledger.open(result.run_id, store=cap.store)
    evidence_urls = {ledger.evidence(e).url for e in ledger.claim("c1").supports if not ledger.evidence(e).stale}
    cited = [p for p in evaluation.pairs if p.has_citation]
    assert cited and {p.pair.url for p in cited} == evidence_urls
    assert all(p.in_run_store for p in cited)
    assert all(p.pair.claim.startswith("Acme Cloud supports SSO") for p in cited)
