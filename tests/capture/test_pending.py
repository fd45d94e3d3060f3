"""A boundary run's deferred span: it adopts a root another instrumentation makes inside the call (which
stays a root), and is a root of its own otherwise; spans others make keep their parents either way."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan

from citetrace import names, traced_tool
from citetrace.config import load_settings
from citetrace.instrumentation._agents._boundary import Boundary, boundary_wrapper, text_of
from citetrace.store import MemoryStore
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import Captured, capture_spans

ANSWER = "Solar grew [1].\n\n[1]: https://a.example/page"


class _On:
    active = True


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [{"url": "https://a.example/page"}]


def _agent(body: Callable[[], None]) -> Callable[[], str]:
    """A stand-in framework call, wrapped as an agent boundary."""

    def call() -> str:
        body()
        return ANSWER

    wrapper = boundary_wrapper(Boundary(answer=text_of, default_agent="fw"), _On())
    return lambda: wrapper(call, None, (), {})


@pytest.fixture
def cap() -> Iterator[tuple[Captured, MemoryStore, TraceSummaryProcessor]]:
    """citetrace's spans and a summary processor on one provider, as ``configure()`` sets them up."""
    store = MemoryStore()
    processor = TraceSummaryProcessor(settings=load_settings(environ={}), store=store)
    with capture_spans(store=store, processors=(processor,)) as captured:
        yield captured, store, processor


def _other(captured: Captured) -> trace.Tracer:
    """Another instrumentation's tracer on the same provider."""
    return captured.tracer_provider.get_tracer("openinference.instrumentation.langchain")


def _by_name(captured: Captured) -> dict[str, ReadableSpan]:
    return {s.name: s for s in captured.spans}


def test_a_root_made_inside_the_call_stays_a_root_and_the_run_joins_its_trace(cap: Any) -> None:
    """A foreign root opened inside the call (not made current, as OpenInference's LangChain tracer does)
    keeps no parent; the run's span is its child and the tool span the run's, all in one trace, summarized."""
    captured, store, processor = cap

    def body() -> None:
        root = _other(captured).start_span("LangGraph")
        search("solar")
        root.end()  # their root ends inside the call, before the run's span

    assert _agent(body)() == ANSWER
    spans = _by_name(captured)
    root, run, tool = spans["LangGraph"], spans["invoke_agent fw"], spans["execute_tool search"]
    assert root.parent is None
    assert run.parent is not None and run.parent.span_id == root.context.span_id
    assert tool.parent is not None and tool.parent.span_id == run.context.span_id
    assert len({s.context.trace_id for s in captured.spans}) == 1
    assert run.start_time >= root.start_time
    processor.force_flush()  # summaries are written from the processor's own thread
    (stored,) = store.runs()
    assert stored.trace_id == format(root.context.trace_id, "032x")
    assert stored.summary is not None and stored.summary["searches"] == 1
    assert (run.attributes or {})[names.summary_attr("searches")] == 1
    assert processor.holds(root.context.trace_id) is False  # nothing left in flight


def test_an_enclosing_root_is_adopted_at_the_end_when_no_tool_ran(cap: Any) -> None:
    """No citetrace span started during the call: the run's span starts at its end, still under the foreign
    root that enclosed the work, and the trace is not left in flight."""
    captured, store, processor = cap
    assert _agent(lambda: _other(captured).start_span("LangGraph").end())() == ANSWER
    spans = _by_name(captured)
    assert spans["LangGraph"].parent is None
    assert spans["invoke_agent fw"].parent.span_id == spans["LangGraph"].context.span_id  # type: ignore[union-attr]
    assert store.runs()[0].answer == ANSWER
    assert processor.holds(spans["LangGraph"].context.trace_id) is False


def test_short_foreign_roots_are_not_adopted(cap: Any) -> None:
    """Roots that end before the run needs its span (one per LLM call, say) stay separate traces; the run
    is a root of its own, with the call's start time."""
    captured, store, _ = cap

    def body() -> None:
        _other(captured).start_span("llm 1").end()
        search("solar")
        _other(captured).start_span("llm 2").end()

    _agent(body)()
    spans = _by_name(captured)
    run = spans["invoke_agent fw"]
    assert run.parent is None and spans["llm 1"].parent is None and spans["llm 2"].parent is None
    assert run.start_time <= spans["llm 1"].start_time
    assert spans["execute_tool search"].parent.span_id == run.context.span_id  # type: ignore[union-attr]
    assert len({s.context.trace_id for s in captured.spans}) == 3


def test_spans_others_make_inside_the_call_keep_their_parent(cap: Any) -> None:
    """With nothing current at the call, the application's own spans inside it stay roots (as without
    citetrace): the run's span is never made current."""
    captured, _, _ = cap
    app = captured.tracer_provider.get_tracer("my-app")

    def body() -> None:
        with app.start_as_current_span("app step"):
            pass
        assert not trace.get_current_span().get_span_context().is_valid

    _agent(body)()
    assert _by_name(captured)["app step"].parent is None


def test_a_current_span_at_the_call_is_the_runs_parent(cap: Any) -> None:
    """An application span current at the call (a Langfuse-style root) is the run's parent, and stays the
    parent of the spans the application makes inside the call."""
    captured, store, processor = cap
    app = captured.tracer_provider.get_tracer("my-app")

    def body() -> None:
        with app.start_as_current_span("app step"):
            pass
        search("solar")

    with app.start_as_current_span("handle request"):
        _agent(body)()
    spans = _by_name(captured)
    outer = spans["handle request"].context.span_id
    assert spans["invoke_agent fw"].parent.span_id == outer  # type: ignore[union-attr]
    assert spans["app step"].parent.span_id == outer  # type: ignore[union-attr]
    processor.force_flush()
    (stored,) = store.runs()
    assert stored.summary is not None and stored.summary["searches"] == 1
