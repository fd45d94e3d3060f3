"""A foreign invoke_agent root (an agent framework's own span, no citetrace.run.id) still gets a stored summary."""

from __future__ import annotations

from opentelemetry.trace import SpanKind

from citetrace import names, traced_tool
from citetrace import _telemetry
from citetrace.config import load_settings
from citetrace.store import MemoryStore
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import capture_spans


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return []


def test_foreign_root_summary_filed_under_trace_id() -> None:
    """With no citetrace.run.id anywhere, the summary is stored under the trace id (32 hex)."""
    store = MemoryStore()
    processor = TraceSummaryProcessor(settings=load_settings(environ={}), store=store)
    with capture_spans(store=store, processors=(processor,)) as cap:
        tracer = _telemetry.current().tracer()
        with tracer.start_as_current_span(
            "invoke_agent framework-agent", kind=SpanKind.INTERNAL,
            attributes={names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.GEN_AI_AGENT_NAME: "fw"},
        ) as root:
            search("nothing")
        trace_hex = format(root.get_span_context().trace_id, "032x")
        processor.force_flush()
    assert len(cap.tool_spans(status="empty")) == 1
    record = store.get_run(trace_hex)
    assert record is not None and record.summary is not None
    assert record.summary["empty_searches"] == 1
    assert record.summary["trace_id"] == trace_hex
    assert "empty_search" in record.summary["failure_reasons"]
