"""LangGraph interrupts: a graph that stops at ``interrupt()`` and is resumed with ``Command(resume=...)`` on
the same thread is one run (``_agents/_paused.py``).

Found by an outside-style check: a research graph (Send fan-out, a human review ``interrupt()``, MemorySaver)
made two runs, the resumed one with the report and no tool call, so each of its citations was "never
fetched" and the run FAILED (uncited_url, cited_not_fetched), while the run that fetched had no answer.
The real LangGraph, tavily-python over the fake network, environment variables only.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, TypedDict

import pytest

from citetrace import _telemetry, names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.instrumentation._agents import _paused
from citetrace.testing import Captured

from ._research import INVENTED, ResearchWeb, run_agent, runs, show

SCRIPT = "langgraph_interrupt_agent.py"
# per run: 2 searches (one empty: the run's failure reason empty_search), 1 page read (page/a); ANSWER cites page/a (read), page/b (only returned)
# and INVENTED (never returned): 2 cited but never fetched, 1 not returned by any search
RESUMED = {"searches": 2, "reads": 1, "empty_searches": 1, "citations": 3, "cited_not_fetched": 2,
           "uncited_from_retrieval": 1, "failed": True}


def _figures(run: dict[str, Any]) -> dict[str, Any]:
    summary = run["summary"] or {}
    return {key: summary.get(key) for key in RESUMED}


def _session(tmp_path: Path, web: ResearchWeb, mode: str) -> list[dict[str, Any]]:
    out = run_agent(tmp_path, SCRIPT, web.base, mode, web.answer())
    assert out.strip().splitlines()[-1] == "True", out
    return sorted(runs(tmp_path), key=lambda run: run["question"])  # "What is O..." before "What is t..."


@pytest.mark.parametrize("mode", ["resume", "aresume"])
def test_paused_and_resumed_graph_is_one_run(tmp_path: Path, research_web: ResearchWeb, mode: str) -> None:
    (run,) = _session(tmp_path, research_web, mode)
    assert (run["agent"], run["question"], run["answer"]) == ("reviewed", "What is OpenTelemetry?",
                                                               research_web.answer())
    assert _figures(run) == RESUMED, "the fetched page counts for the report written after the resume"
    assert run["summary"]["unfetched_urls"] == sorted([research_web.good[1], INVENTED])
    calls = show(tmp_path, run["run_id"])["calls"]
    assert sorted((c["kind"], c["status"]) for c in calls) == [("fetch", "ok"), ("search", "empty"),
                                                              ("search", "ok")]


def test_two_threads_each_resume_their_own_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    first, second = _session(tmp_path, research_web, "threads")
    assert [first["question"], second["question"]] == ["What is OpenTelemetry?", "What is tracing?"]
    for run in (first, second):
        assert run["answer"] == research_web.answer() and _figures(run) == RESUMED


def test_thread_started_afresh_ends_the_paused_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """A new input on a paused thread is a new run; the paused one ends as it stood: no answer, not failed."""
    first, second = _session(tmp_path, research_web, "fresh")
    assert [first["question"], second["question"]] == ["What is OpenTelemetry?", "What is tracing?"]
    for run in (first, second):
        assert run["answer"] is None and run["error_type"] is None
        assert run["summary"]["searches"] == 2 and run["summary"]["failure_reasons"] == ["empty_search"]


def test_never_resumed_run_ends_at_exit(tmp_path: Path, research_web: ResearchWeb) -> None:
    (run,) = _session(tmp_path, research_web, "never")
    assert run["answer"] is None and run["error_type"] is None
    assert run["summary"]["searches"] == 2 and run["summary"]["reads"] == 1
    assert run["summary"]["failure_reasons"] == ["empty_search"], "no citation checks on a run with no answer"


def _review_graph() -> Any:
    from langgraph.checkpoint.memory import MemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import interrupt

    class State(TypedDict, total=False):
        question: str
        approved: str
        final_report: str

    def review(state: State) -> State:
        return {"approved": interrupt("approve?")}

    def write(state: State) -> State:
        return {"final_report": f"Approved: {state['approved']}"}

    graph = StateGraph(State)
    graph.add_node("review", review)
    graph.add_node("write", write)
    graph.add_edge(START, "review")
    graph.add_edge("review", "write")
    graph.add_edge("write", END)
    return graph.compile(checkpointer=MemorySaver(), name="reviewed")


def test_a_run_parked_past_the_ttl_is_ended_and_a_late_resume_is_a_run_of_its_own(
        instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """In process, an injected clock: parked, not ended before the TTL; ended as it stood at the sweep past it
    (not failed, no answer); the late resume still works and is a second run."""
    from langgraph.types import Command

    app, cfg = _review_graph(), {"configurable": {"thread_id": "t"}}
    assert "__interrupt__" in app.invoke({"question": "Ship it?"}, cfg)
    assert cap.run_spans() == [] and _paused.parked_count() == 1
    _paused.sweep(time.monotonic())
    assert cap.run_spans() == []
    _paused.sweep(time.monotonic() + _telemetry.current().settings.trace_ttl_seconds + 1)
    (root,) = cap.run_spans()
    assert names.ERROR_TYPE not in (root.attributes or {}) and _paused.parked_count() == 0
    assert app.invoke(Command(resume="yes"), cfg)["final_report"] == "Approved: yes"
    first, second = sorted(cap.store.runs(), key=lambda run: run.started_at)
    assert (first.question, first.answer) == ("Ship it?", None)
    assert (second.question, second.answer) == (None, "Approved: yes")


def test_a_graph_without_a_checkpointer_thread_is_never_parked(instrumented: CiteTraceInstrumentor,
                                                               cap: Captured) -> None:
    """No ``thread_id`` (or no checkpointer): nothing to resume, so the run ends with the call as before."""
    app = _review_graph()
    with pytest.raises(ValueError):  # LangGraph's own: a checkpointer needs a thread_id
        app.invoke({"question": "Ship it?"})
    assert _paused.parked_count() == 0 and len(cap.run_spans()) == 1
