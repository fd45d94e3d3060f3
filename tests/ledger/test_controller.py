"""The revision controller: triggers to repairs, each budget, each stop rule in priority order, vital signs."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from prometheus_client import CollectorRegistry

from citetrace import names, research_run, traced_tool
from citetrace.ledger import Budgets, Ledger, LedgerError, RevisionController, next_trigger
from citetrace.store import MemoryStore, RunRecord
from citetrace.testing import Captured, capture_spans

from .conftest import ANALYSIS, NEWS, RUN, VENDOR, VENDOR_V1

SUPPORT = "SSO is available on the Business and Enterprise tiers."


class Clock:
    """A manual monotonic clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _insufficient(ledger: Ledger) -> str:
    e = ledger.add_evidence(VENDOR, SUPPORT, query="q", source_class="vendor_docs")
    c = ledger.add_claim("Acme supports SSO on Business and Enterprise.")
    ledger.link(c, supports=[e])
    return c


def test_triggers_map_to_repairs(ledger: Ledger) -> None:
    """contradicted -> adjudicating search, stale -> refetch, insufficient -> other class, open question -> search."""
    q = ledger.add_question("Which tiers include SSO?")
    assert next_trigger(ledger) is not None and next_trigger(ledger).repair == "search"  # type: ignore[union-attr]
    c = _insufficient(ledger)
    t = next_trigger(ledger)
    assert t is not None and (t.kind, t.repair, t.claim, t.avoid_classes) == (
        "insufficient_evidence", "search_other_source_class", c, ("vendor_docs",))
    con = ledger.add_evidence(ANALYSIS, "SSO remains limited to the Enterprise tier.", query="q",
                              source_class="analysis")
    ledger.verify(c, "contradicted", evidence=[con])
    t = next_trigger(ledger)
    assert t is not None and (t.kind, t.repair) == ("contradicted", "adjudicating_search")
    ledger.reverify(c, "adjudicate")
    e2 = ledger.add_evidence(NEWS, "Acme said SSO is available", query="q", source_class="news")
    ledger.verify(c, "verified", evidence=[e2])
    ledger.mark_stale(e2)
    ledger.mark_stale(ledger.claim(c).supports[0])
    t = next_trigger(ledger)
    assert t is not None and (t.kind, t.repair) == ("stale_evidence", "refetch")
    ledger.set_question_status(q, "answered")


def test_goal_satisfied_at_once_and_after_repair(ledger: Ledger) -> None:
    """Nothing repairable: zero iterations; one repair that verifies: goal_satisfied with delta -1."""
    ctl = RevisionController(ledger)
    assert list(ctl) == [] and ctl.stop_reason == "goal_satisfied"
    c = _insufficient(ledger)
    ctl = RevisionController(ledger)
    for it in ctl:
        e = ledger.add_evidence(NEWS, "Acme said SSO is available", query="q", source_class="news")
        ledger.verify(it.trigger.claim or "", "verified", evidence=[e])
    assert ctl.stop_reason == "goal_satisfied"
    assert [(s["trigger"], s["unresolved_delta"], s["new_evidence"]) for s in ctl.vital_signs] == [
        ("insufficient_evidence", -1, 1)]
    assert ledger.claim(c).status == "verified" and ledger.stop_reason() == "goal_satisfied"


def test_no_progress_after_two_flat_iterations(ledger: Ledger) -> None:
    """An unresolved count flat across two iterations stops with no_progress."""
    _insufficient(ledger)
    ctl = RevisionController(ledger, Budgets(iterations=10))
    assert len(list(ctl)) == 2 and ctl.stop_reason == "no_progress"


@pytest.mark.parametrize("dim", ["wall_clock_s", "tokens", "iterations"])
def test_each_budget_dimension(ledger: Ledger, dim: str) -> None:
    """Wall clock (measured), tokens (spent) and iterations (counted) each stop with their own reason."""
    _insufficient(ledger)
    clock = Clock()
    budgets = Budgets(**{"wall_clock_s": 100.0, "tokens": 1000, "iterations": 5, dim: 1 if dim == "iterations" else 10})
    ctl = RevisionController(ledger, budgets, clock=clock)
    for it in ctl:
        if dim == "wall_clock_s":
            clock.now += 11
        if dim == "tokens":
            it.spend(tokens=11)
        ledger.add_question(f"new angle {it.number}")  # not progress on claims, but keeps no_progress away
        ledger.add_claim(f"claim {it.number}")
    assert ctl.stop_reason == f"budget_exhausted:{dim}"
    assert ctl.spent[dim] >= getattr(budgets, dim)


@traced_tool(kind="fetch", name="read_page")
def read_page(url: str) -> str:
    """A fetch whose text lands in the store."""
    return f"Page at {url}. " + "Acme said SSO is available on request. " * 10


@pytest.fixture
def captured() -> Iterator[Captured]:
    with capture_spans() as cap:
        yield cap


def test_tool_calls_counted_from_traced_tools_and_iterations_are_spans(captured: Captured) -> None:
    """Traced fetches inside the run count against tool_calls; each iteration is a span in the run."""
    registry = CollectorRegistry()
    with research_run(question="Which tiers include SSO?", agent="scout") as run:
        ledger = run.ledger
        url = "https://acme.example/p0"
        read_page(url)
        e = ledger.add_evidence(url, "Acme said SSO is available on request.", query="q", source_class="vendor_docs")
        assert ledger.evidence(e).fetch_call == 0 and ledger.evidence(e).trace_id == run.trace_id
        c = ledger.add_claim("Acme supports SSO.")
        ledger.link(c, supports=[e])
        ctl = RevisionController(ledger, Budgets(tool_calls=3, iterations=10), registry=registry)
        for it in ctl:
            for i in range(2):
                read_page(f"https://acme.example/p{it.number}-{i}")
            ledger.add_claim(f"extra {it.number}")
    assert ctl.stop_reason == "budget_exhausted:tool_calls"
    assert [s["tool_calls"] for s in ctl.vital_signs] == [2, 2]
    spans = {s.name: s for s in captured.spans}
    root = spans["invoke_agent scout"]
    first = spans["ledger_iteration 1"]
    assert first.parent is not None and first.parent.span_id == root.context.span_id
    assert first.attributes is not None and first.attributes[names.LEDGER_TRIGGER] == "insufficient_evidence"
    assert first.attributes[names.LEDGER_TOOL_CALLS] == 2
    tools_in_first = [s for s in captured.tool_spans() if s.parent and s.parent.span_id == first.context.span_id]
    assert len(tools_in_first) == 2
    assert root.attributes is not None and root.attributes[names.LEDGER_STOP_REASON] == "budget_exhausted:tool_calls"
    assert registry.get_sample_value("citetrace_ledger_tool_calls_total", {"agent": "scout"}) == 4
    assert registry.get_sample_value("citetrace_ledger_stops_total",
                                     {"agent": "scout", "reason": "budget_exhausted:tool_calls"}) == 1
    assert registry.get_sample_value("citetrace_ledger_iterations_total",
                                     {"agent": "scout", "trigger": "insufficient_evidence"}) == 2


def test_hard_error_inside_with_it_stops_and_reraises(ledger: Ledger) -> None:
    """An exception inside ``with it:`` propagates unchanged and the controller stops with hard_error."""
    _insufficient(ledger)
    ctl = RevisionController(ledger)
    boom = RuntimeError("search API down")
    with pytest.raises(RuntimeError) as info:
        for it in ctl:
            with it:
                raise boom
    assert info.value is boom
    assert (ctl.stop_reason, ctl.stop_detail) == ("hard_error", "RuntimeError: search API down")
    assert ctl.vital_signs[0]["error"] == "RuntimeError: search API down"


def test_leaving_the_loop_early_is_a_hard_error_unless_a_higher_rule_holds(ledger: Ledger) -> None:
    """break before a stop rule: hard_error; a goal reached in that same iteration still wins."""
    c = _insufficient(ledger)
    ctl = RevisionController(ledger)
    for _it in ctl:
        break
    assert (ctl.stop_reason, ctl.stop_detail) == ("hard_error", "the loop was left before a stop rule")
    ctl = RevisionController(ledger)
    for _it in ctl:
        e = ledger.add_evidence(NEWS, "Acme said SSO is available", query="q", source_class="news")
        ledger.verify(c, "verified", evidence=[e])
        break
    assert ctl.stop_reason == "goal_satisfied"


def test_priority_goal_over_budget_over_no_progress(ledger: Ledger) -> None:
    """With the iteration budget spent and the count flat, budget_exhausted wins over no_progress."""
    _insufficient(ledger)
    ctl = RevisionController(ledger, Budgets(iterations=2))
    list(ctl)
    assert ctl.stop_reason == "budget_exhausted:iterations"


def test_vital_signs_survive_restart_and_bad_budgets_are_refused(ledger: Ledger) -> None:
    """Iterations are journaled (show reads them after a restart); non-positive budgets raise naming them."""
    _insufficient(ledger)
    list(RevisionController(ledger, Budgets(iterations=1)))
    again = Ledger.open(ledger.run_id, store=ledger.store)
    assert [(i["iteration"], i["trigger"]) for i in again.iterations()] == [(1, "insufficient_evidence")]
    assert again.stop_reason() == "budget_exhausted:iterations"
    with pytest.raises(LedgerError, match="budget tokens must be a positive finite number"):
        Budgets(tokens=0)
    ctl = RevisionController(ledger)
    iter(ctl)
    with pytest.raises(LedgerError, match="runs once"):
        iter(ctl)


class FailingStore(MemoryStore):
    """A memory store whose ledger writes start failing after a given number of calls."""

    def __init__(self, ok_writes: int) -> None:
        super().__init__()
        self.ok_writes = ok_writes

    def ledger_write(self, run_id: str, *, entries: Any = (), rows: Any = (), after_seq: int | None = None) -> list[int]:
        if self.ok_writes <= 0:
            raise OSError("disk full")
        self.ok_writes -= 1
        return super().ledger_write(run_id, entries=entries, rows=rows, after_seq=after_seq)


def test_a_store_that_fails_mid_revision_stops_with_hard_error() -> None:
    """The iteration's journal write fails: the controller stops with hard_error naming the failure."""
    store = FailingStore(ok_writes=3)
    store.put_run(RunRecord(RUN, "0" * 32, "t", None, 1.0))
    store.put_document(RUN, VENDOR, VENDOR_V1, status="ok", fetched_at=1.0)
    ledger = Ledger(RUN, store=store)
    e = ledger.add_evidence(VENDOR, SUPPORT, query="q", source_class="vendor_docs")
    c = ledger.add_claim("Acme supports SSO.")
    ledger.link(c, supports=[e])
    ctl = RevisionController(ledger, Budgets(iterations=5))
    assert len(list(ctl)) == 1
    assert (ctl.stop_reason, ctl.stop_detail) == ("hard_error", "OSError: disk full")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_budget_that_bounds_nothing_is_refused(value: float) -> None:
    """Budgets(wall_clock_s=nan) was accepted: every comparison with NaN is false, so that dimension never ran
    out (and inf is no bound either). A bounded revision needs finite caps."""
    with pytest.raises(LedgerError, match="budget wall_clock_s must be a positive finite number"):
        Budgets(wall_clock_s=value)


@pytest.mark.parametrize("amount", [{"tokens": "812"}, {"tokens": float("nan")}, {"tool_calls": float("inf")},
                                    {"tokens": True}, {"tokens": -1}])
def test_spend_takes_only_finite_non_negative_numbers(ledger: Ledger, amount: dict[str, Any]) -> None:
    """``it.spend(tokens="812")`` was a bare TypeError from a comparison, and ``tokens=nan`` was added: the spent
    total became NaN and the token budget could never run out. Each is a one-line LedgerError naming it."""
    _insufficient(ledger)
    ctl = RevisionController(ledger, Budgets(iterations=2))
    for it in ctl:
        with pytest.raises(LedgerError, match="spend.. takes finite non-negative numbers"):
            it.spend(**amount)
        break


@pytest.mark.parametrize("where", ["no_run", "another_run"])
def test_tool_calls_after_a_restart_count_against_the_budget(captured: Captured, where: str) -> None:
    """A ledger re-opened after a restart (``Ledger.open``) runs its controller outside the run that made it:
    with no run at all, or inside the new process's own ``research_run``. Before, the traced calls of its
    iterations counted 0 (only a live run with the ledger's own id was counted), so ``tool_calls`` never ran
    out: the revision stopped on no_progress with 5 calls in the first iteration. Every traced call ended while
    an iteration is current now counts."""
    with research_run(question="Which tiers include SSO?", agent="scout") as first:
        url = "https://acme.example/p0"
        read_page(url)
        ledger = first.ledger
        c = ledger.add_claim("Acme supports SSO.")
        ledger.link(c, supports=[ledger.add_evidence(url, "Acme said SSO is available on request.", query="q",
                                                     source_class="vendor_docs")])
    again = Ledger.open(first.id, store=captured.store)
    ctl = RevisionController(again, Budgets(tool_calls=3, iterations=5))

    def revise() -> None:
        for it in ctl:
            for i in range(2):
                read_page(f"https://acme.example/r{it.number}-{i}")
            again.add_claim(f"extra {it.number}")  # progress, so no_progress cannot stop it first

    if where == "no_run":
        revise()
    else:
        with research_run(question="continue", agent="scout"):
            revise()
    assert ctl.stop_reason == "budget_exhausted:tool_calls"
    assert [s["tool_calls"] for s in ctl.vital_signs] == [2, 2]
