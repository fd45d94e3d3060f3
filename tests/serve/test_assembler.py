"""Trace assembly: finalise after the root's grace period or the TTL, the same summary as summarize(), bounds."""

from __future__ import annotations

from typing import Sequence

from prometheus_client import CollectorRegistry

from citetrace import names
from citetrace.serve import decode_body, encode_request
from citetrace.serve._assembler import Assembler
from citetrace.serve._decode import WireSpan
from citetrace.summary import SpanRecord, SummaryMetrics, Thresholds, summarize

from ._spans import failing_run, healthy_run, root, tool


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def wire(spans: Sequence[SpanRecord], service: str = "svc") -> list[WireSpan]:
    """The spans as serve receives them (through the real OTLP encoding)."""
    return decode_body(encode_request(spans, service_name=service).SerializeToString(), "application/x-protobuf").spans


def make(clock: Clock, **kw: object) -> tuple[Assembler, SummaryMetrics]:
    metrics = SummaryMetrics(CollectorRegistry())
    params: dict[str, object] = {"grace_seconds": 2.0, "ttl_seconds": 60.0}
    params.update(kw)
    return Assembler(metrics=metrics, thresholds=Thresholds(), clock=clock, **params), metrics  # type: ignore[arg-type]


def value(metrics: SummaryMetrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


def test_summary_equals_summarize_of_the_same_spans() -> None:
    """serve's summary of a run is exactly summarize() over the same spans (the in-process function)."""
    clock = Clock()
    asm, _ = make(clock)
    spans = failing_run(0xF00D)
    asm.add(wire(spans[:2]))
    asm.add(wire(spans[2:]))
    clock.now += 2.01
    [(got, _)] = asm.finalize_due()
    assert got == summarize(spans, default_agent="svc")
    assert got.failure_reasons == (names.REASON_UNCITED_URL, names.REASON_CITED_NOT_FETCHED,
                                   names.REASON_EMPTY_SEARCH, names.REASON_FAILED_READS, names.REASON_RATE_LIMITED)


def test_waits_for_the_grace_period_after_the_root_and_counts_late_children() -> None:
    """Nothing is finalised before root+grace; a child arriving within the grace period still counts."""
    clock = Clock()
    asm, _ = make(clock)
    spans = healthy_run(0xBEEF)
    asm.add(wire([spans[2], spans[0]]))  # root first, then the search
    clock.now += 1.5
    assert asm.finalize_due() == []
    asm.add(wire([spans[1]]))  # the fetch, late but within the grace period
    clock.now += 0.6
    [(summary, _)] = asm.finalize_due()
    assert (summary.searches, summary.reads, summary.failed) == (1, 1, False)
    assert asm.in_flight == 0


def test_spans_after_finalisation_are_late_and_retries_are_not_double_counted() -> None:
    """A re-sent span is counted once; a span of an already finalised trace is reported late and ignored."""
    clock = Clock()
    asm, metrics = make(clock)
    spans = healthy_run(0xCAFE)
    asm.add(wire(spans))
    asm.add(wire(spans[:1]))  # an exporter retry
    clock.now += 3
    [(summary, _)] = asm.finalize_due()
    assert summary.searches == 1
    assert value(metrics, names.METRIC_TOOL_CALLS_TOTAL, agent="agent-a", tool="web_search", kind="search",
                 status="ok") == 1
    added = asm.add(wire([tool(0xCAFE, 9, names.TOOL_KIND_SEARCH, names.STATUS_OK)]))
    assert added.late == 1
    assert asm.in_flight == 0


def test_rootless_trace_is_finalised_at_the_ttl_and_counted() -> None:
    """A trace whose root never arrives is summarised from its tool spans after the idle TTL, counted as ttl."""
    clock = Clock()
    asm, metrics = make(clock, ttl_seconds=30.0)
    asm.add(wire(failing_run(0xA1)[:-1]))
    clock.now += 29
    assert asm.finalize_due() == []
    clock.now += 2
    [(summary, _)] = asm.finalize_due()
    assert (summary.searches, summary.reads, summary.run_id, summary.agent) == (2, 2, "run-1", "agent-a")
    assert value(metrics, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_TTL) == 1


def test_traces_in_flight_are_capped_and_evictions_counted() -> None:
    """Above max_traces the least recently active trace is evicted (counted); a rooted one is still summarised."""
    clock = Clock()
    asm, metrics = make(clock, max_traces=3)
    asm.add(wire(healthy_run(1)))  # rooted
    for tid in range(2, 7):
        added = asm.add(wire(healthy_run(tid)[:1]))
        assert asm.in_flight <= 3
        if tid == 4:
            assert [s.trace_id for s, _ in added.finished] == [f"{1:032x}"]
    assert value(metrics, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_CAPACITY) == 3
    assert value(metrics, names.METRIC_TRACES_IN_FLIGHT) == 3


def test_spans_per_trace_are_capped_but_the_root_is_kept() -> None:
    """Spans over max_spans_per_trace are refused and counted; the root still gets in and finalises the run."""
    clock = Clock()
    asm, metrics = make(clock, max_spans_per_trace=3)
    spans = [tool(0xB2, i, names.TOOL_KIND_SEARCH, names.STATUS_OK, query=f"q{i}") for i in range(2, 8)]
    added = asm.add(wire(spans + [root(0xB2)]))
    assert added.refused == 3
    assert value(metrics, names.METRIC_SPANS_DROPPED_TOTAL, reason=names.DROP_SPANS_PER_TRACE) == 3
    clock.now += 3
    [(summary, _)] = asm.finalize_due()
    assert summary.searches == 3


def test_drain_counts_every_trace_in_flight() -> None:
    """At shutdown every held trace counts as in flight; rooted ones are still summarised from what arrived."""
    clock = Clock()
    asm, metrics = make(clock)
    asm.add(wire(healthy_run(0xD1)))
    asm.add(wire(healthy_run(0xD2)[:2]))
    asm.add(wire(healthy_run(0xD3)[:1]))
    summaries, lost = asm.drain()
    assert [s.trace_id for s, _ in summaries] == [f"{0xD1:032x}"]
    assert lost == 3
    assert value(metrics, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_SHUTDOWN) == 3
    assert asm.in_flight == 0


def test_two_runs_in_one_trace_are_summarised_separately() -> None:
    """Runs are told apart by run id inside a trace, as in the in-process processor."""
    clock = Clock()
    asm, _ = make(clock)
    first = healthy_run(0xE1, run_id="r-a")
    second = [SpanRecord(s.trace_id, s.span_id + 10, s.parent_span_id, s.name, s.start_ns, s.end_ns,
                         s.attributes, s.status_error) for s in failing_run(0xE1, run_id="r-b")]
    asm.add(wire(first + second))
    clock.now += 3
    got = {s.run_id: s.failed for s, _ in asm.finalize_due()}
    assert got == {"r-a": False, "r-b": True}


def test_non_citetrace_spans_are_ignored() -> None:
    """Spans that are neither tool spans nor run roots create no trace state."""
    clock = Clock()
    asm, _ = make(clock)
    other = SpanRecord(0x99, 5, None, "GET /", 1, 2, {"http.request.method": "GET"})
    asm.add(wire([other]))
    assert asm.in_flight == 0


def test_summary_inputs_cover_every_attribute_the_summary_code_reads() -> None:
    """The receiver decodes only SUMMARY_INPUTS: every span-attribute name the shared summary code uses is in it."""
    import re
    from pathlib import Path

    import citetrace.summary as summary_pkg
    from citetrace.serve._assembler import SUMMARY_INPUTS

    skip = ("METRIC_", "ENV_", "SUMMARY_", "LABEL_", "STORE_DEFAULT")
    used: set[str] = set()
    for module in ("_summarize.py", "_metrics.py", "_aggregate.py"):
        path = Path(summary_pkg.__file__).with_name(module)
        if not path.exists():
            continue
        for const in re.findall(r"names\.([A-Z][A-Z0-9_]+)", path.read_text()):
            value = getattr(names, const, None)
            if isinstance(value, str) and "." in value and not const.startswith(skip):
                used.add(value)
    assert used, "found no attribute names in the summary code"
    assert used <= SUMMARY_INPUTS, used - SUMMARY_INPUTS


def test_add_after_drain_is_refused_for_retry() -> None:
    """Spans racing the shutdown are not silently taken into a drained assembler: the caller is told to retry."""
    clock = Clock()
    asm, _ = make(clock)
    asm.drain()
    added = asm.add(wire(healthy_run(0xF1)))
    assert added.closed and asm.in_flight == 0
