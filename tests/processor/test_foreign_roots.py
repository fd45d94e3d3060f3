"""Roots that others create: a run under another instrumentation's (or the application's) root, on the same
provider or on another one, and embedded sampling leaving other spans alone."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import pytest

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult

from opentelemetry.util.types import Attributes

from citetrace import names, research_run, traced_tool
from citetrace.summary import TraceSummaryProcessor

from .conftest import Rig


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [] if query == "nothing" else [{"url": "https://solar.example/a"}]


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    return "page text " * 50


def test_application_root_makes_a_stored_run(make_rig: Callable[..., Rig]) -> None:
    """Tool calls under the application's own root span are one run: id = trace id, agent from the root's
    name, summary, calls and run record stored; the summary travels on a citetrace.run.summary child span."""
    rig = make_rig()
    proc = TraceSummaryProcessor(settings=rig.processor._settings, store=rig.store, tracer_provider=rig.provider)
    rig.provider.add_span_processor(proc)
    with rig.tracer.start_as_current_span("ToolCallingAgent.run", attributes={"openinference.span.kind": "AGENT"}):
        search("nothing")
        fetch("https://solar.example/a")
    rig.flush()
    proc.force_flush()
    (run,) = rig.store.runs()
    trace_hex = run.trace_id
    assert run.run_id == trace_hex and run.agent == "ToolCallingAgent" and run.ended_at is not None
    assert run.summary is not None and run.summary["searches"] == 1 and run.summary["empty_searches"] == 1
    assert [(c.seq, c.tool, c.status) for c in rig.store.calls(trace_hex)] == [
        (0, "search", names.STATUS_EMPTY), (1, "fetch", names.STATUS_OK)]
    summary_spans = [s for s in rig.everything.get_finished_spans() if s.name == names.SUMMARY_SPAN_NAME]
    (span,) = summary_spans
    attrs = span.attributes or {}
    assert attrs[names.RUN_ID] == trace_hex and attrs[names.SUMMARY_FAILED] is True
    root = next(s for s in rig.everything.get_finished_spans() if s.name == "ToolCallingAgent.run")
    assert span.parent is not None and span.parent.span_id == root.context.span_id
    assert names.SUMMARY_KEEP not in (root.attributes or {})  # never written on a span citetrace did not make
    proc.shutdown()


def test_foreign_agent_name_prefers_gen_ai_agent_name(make_rig: Callable[..., Rig]) -> None:
    """A foreign invoke_agent root (OpenLLMetry, PydanticAI) names its run by gen_ai.agent.name."""
    rig = make_rig()
    attrs = {names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.GEN_AI_AGENT_NAME: "planner"}
    with rig.tracer.start_as_current_span("invoke_agent LangGraph", attributes=attrs):
        search("solar")
    rig.flush()
    (run,) = rig.store.runs()
    assert (run.agent, run.summary is not None) == ("planner", True)
    assert rig.value("citetrace_runs_total", agent="planner", outcome="ok") == 1


def test_run_under_a_root_of_another_provider_is_released_at_its_end(make_rig: Callable[..., Rig]) -> None:
    """The root comes from another SDK provider: citetrace's held tool spans are released the moment that
    root ends (no TTL wait), the run is stored, and the other provider's spans are not exported twice."""
    rig = make_rig()
    theirs = InMemorySpanExporter()
    other = TracerProvider()
    other.add_span_processor(SimpleSpanProcessor(theirs))
    with other.get_tracer("framework").start_as_current_span("crew.kickoff"):
        search("nothing")
        rig.flush()
        assert rig.kept.get_finished_spans() == ()  # held until the trace's end
        assert rig.processor.traces_in_flight == 1
    assert rig.processor.traces_in_flight == 0  # decided by the root's end, not by a sweep
    assert [s.name for s in rig.kept_spans()] == ["execute_tool search"]
    assert [s.name for s in theirs.get_finished_spans()] == ["crew.kickoff"]
    (run,) = rig.store.runs()
    assert run.agent == "crew" and run.summary is not None and run.summary["empty_searches"] == 1
    other.shutdown()


def test_embedded_sampling_exports_other_spans_at_once(make_rig: Callable[..., Rig]) -> None:
    """Embedded sampling holds only citetrace's spans: another instrumentation's span in a healthy, dropped
    trace is exported when it ends, not held and not dropped; CITETRACE_SAMPLING_SCOPE=trace drops it."""
    rig = make_rig(sample_percent=0.0)
    with research_run("q", agent="scout"):
        with rig.tracer.start_as_current_span("llm call"):
            pass
        assert [s.name for s in rig.kept_spans()] == ["llm call"]
        search("solar")
    assert sorted(s.name for s in rig.kept_spans()) == ["invoke_agent scout", "llm call"]
    whole = make_rig(sample_percent=0.0, sampling_scope="trace")
    with research_run("q", agent="scout"):
        with whole.tracer.start_as_current_span("llm call"):
            pass
        search("solar")
    assert [s.name for s in whole.kept_spans()] == ["invoke_agent scout"]


class RecordOnly(Sampler):
    """Records every span but never samples it for export."""

    def should_sample(self, parent_context: object, trace_id: int, name: str, kind: object = None,
                      attributes: Attributes = None, links: object = None, trace_state: object = None
                      ) -> SamplingResult:
        return SamplingResult(Decision.RECORD_ONLY, attributes)

    def get_description(self) -> str:
        return "record-only"


def test_record_only_spans_are_summarized_but_never_exported(make_rig: Callable[..., Rig]) -> None:
    """A RECORD_ONLY sampler: the run is summarized and stored, and not one span is exported."""
    rig = make_rig(sample_percent=100.0)
    provider = TracerProvider(sampler=RecordOnly())
    provider.add_span_processor(rig.processor)
    from citetrace import _telemetry

    _telemetry.current().use_tracer_provider(provider)
    with research_run("q", agent="scout") as run:
        search("nothing")
    rig.flush()
    assert rig.kept.get_finished_spans() == ()
    record = rig.store.get_run(run.id)
    assert record is not None and record.summary is not None and record.summary["empty_searches"] == 1


class Batches(InMemorySpanExporter):
    """Remembers the size of every batch it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def export(self, spans: Any) -> Any:
        self.sizes.append(len(spans))
        return super().export(spans)


@contextmanager
def embedded_pipeline(exporter: Any, registry: Any = None) -> Iterator[TraceSummaryProcessor]:
    """A processor with embedded sampling exporting to ``exporter``, as the current telemetry's provider."""
    from citetrace import _telemetry
    from citetrace.config import load_settings
    from citetrace.store import MemoryStore

    settings = load_settings(sampling="embedded", sample_percent=0.0)
    proc = TraceSummaryProcessor(settings=settings, store=MemoryStore(), exporter=exporter, registry=registry)
    provider = TracerProvider()
    provider.add_span_processor(proc)
    previous = _telemetry.current()
    _telemetry.reset(settings, tracer_provider=provider, store=MemoryStore())
    try:
        yield proc
    finally:
        _telemetry.install(previous)
        provider.shutdown()


def test_embedded_export_honours_otel_bsp_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept spans go through the SDK's BatchSpanProcessor, so OTEL_BSP_MAX_EXPORT_BATCH_SIZE shapes the
    batches the exporter gets."""
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "2")
    exporter = Batches()
    with embedded_pipeline(exporter) as proc:
        with research_run("q", agent="scout"):
            for _ in range(4):
                search("nothing")
        assert proc.force_flush(5_000)
    assert sum(exporter.sizes) == 5 and max(exporter.sizes) <= 2


class Stalled(InMemorySpanExporter):
    """An exporter that holds its first export until the test lets it go (an endpoint that hangs)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def export(self, spans: Any) -> Any:
        self.entered.set()
        self.release.wait(10)
        return super().export(spans)


def test_a_full_export_queue_is_counted_as_buffer_drops(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the exporter stalled and OTEL_BSP_MAX_QUEUE_SIZE=2, each span the full queue pushes out is counted
    as a ``buffer`` drop: exported plus dropped is every span."""
    from prometheus_client import CollectorRegistry

    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "2")
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "1")
    exporter, registry = Stalled(), CollectorRegistry()
    with embedded_pipeline(exporter, registry) as proc:
        with research_run("q", agent="scout"):
            search("nothing")  # an empty search: the run fails and its two spans are kept
        assert exporter.entered.wait(10)  # the export worker holds one span; the queue holds the other
        with research_run("q", agent="scout"):
            for _ in range(9):
                search("nothing")  # ten more spans: one fits in the queue, nine are dropped
        dropped = registry.get_sample_value("citetrace_spans_dropped_total", {"reason": names.DROP_BUFFER})
        exporter.release.set()
        assert proc.force_flush(5_000)
    assert dropped == 9
    assert len(exporter.get_finished_spans()) == 3
